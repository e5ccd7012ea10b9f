//! `restop fleet --prometheus` against a real Prometheus (Debian's `prometheus` package) on
//! loopback scraping 20 `restop export --demo --demo-host NAME` exporters, each a host of its
//! own (healthy ones, one leaking, one with a NIC storm, one at its QP limit, one with ERROR
//! QPs), with the shipped recording rules loaded. `--json` shows each host's facts equal to
//! what PromQL says at the same evaluation time, the troubled hosts first; `--once` lists the
//! same order; an exporter taken down is marked down within two refreshes. The full-screen
//! view runs over the same server in tmux (`fleet_terminal.rs`), and again shorter for its
//! sparklines' range query (`fleet_sparklines.rs`). Skipped with a notice where
//! Prometheus is not installed.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::prometheus::*;

const HOSTS: usize = 20;

fn host_name(i: usize) -> String {
    match i {
        0 => "node-00-leak".into(),
        1 => "node-01-storm".into(),
        2 => "node-02-limit".into(),
        3 => "node-03-errqp".into(),
        _ => format!("node-{i:02}-healthy"),
    }
}

fn exporter(name: &str, port: u16) -> Killed {
    Killed(
        Command::new(env!("CARGO_BIN_EXE_restop"))
            .args(["export", "--demo", "--demo-host", name, "-d", "2s"])
            .arg("--listen")
            .arg(format!("127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

fn fleet(prom_port: u16, mode: &str) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args([
            "fleet",
            mode,
            "--host-label",
            "node",
            "-d",
            "2s",
            "--http-timeout",
            "20s",
            "--prometheus",
        ])
        .arg(format!("http://127.0.0.1:{prom_port}"))
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// One `--json` refresh, or why it failed (a loaded machine can make Prometheus slow while
/// twenty exporters start).
fn try_fleet_json(prom_port: u16) -> Result<Value, String> {
    let (code, output) = fleet(prom_port, "--json");
    if code != Some(0) {
        return Err(output);
    }
    let end = output.rfind("\n}").map_or(output.len(), |i| i + 2);
    serde_json::from_str(&output[..end]).map_err(|e| format!("{e}: {output}"))
}

fn fleet_json(prom_port: u16) -> Value {
    try_fleet_json(prom_port).unwrap_or_else(|e| panic!("restop fleet --json failed: {e}"))
}

/// `sum by (node) (EXPR)` at `time`, as node → value.
fn by_node(prom_port: u16, expr: &str, time: f64) -> BTreeMap<String, f64> {
    let answer = api(
        prom_port,
        &format!("/api/v1/query?query={}&time={time:.3}", encode(expr)),
    )
    .unwrap();
    results(&answer)
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["metric"]["node"].as_str().unwrap_or("").to_string(),
                s["value"][1].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect()
}

/// Whether every host's devices, ERROR QPs, leak suspects and worst usage in `doc` are what
/// PromQL says at the document's evaluation time.
fn facts_match(prom_port: u16, doc: &Value) -> Result<(), String> {
    let t = doc["server_time"].as_f64().ok_or("no server_time")? / 1000.0;
    let devices = by_node(prom_port, "count by (node) (restop_device_info)", t);
    let errqps = by_node(prom_port, "sum by (node) (restop_error_queue_pairs)", t);
    let leaks = by_node(prom_port, "max by (node) (restop_leak_suspects)", t);
    let usage = by_node(prom_port, "max by (node) (restop_resources_usage_ratio)", t);
    for h in doc["hosts"].as_array().ok_or("no hosts")? {
        let node = h["host"].as_str().ok_or("no host")?;
        let want = |m: &BTreeMap<String, f64>| m.get(node).copied().unwrap_or(0.0);
        let got = [
            (
                "devices",
                h["devices"].as_f64().unwrap_or(0.0),
                want(&devices),
            ),
            (
                "error_qps",
                h["error_qps"].as_f64().unwrap_or(0.0),
                want(&errqps),
            ),
            (
                "leak_suspects",
                h["leak_suspects"].as_f64().unwrap_or(0.0),
                want(&leaks),
            ),
            (
                "worst_usage",
                h["worst_usage"]["ratio"].as_f64().unwrap_or(0.0),
                want(&usage),
            ),
        ];
        for (what, got, want) in got {
            if (got - want).abs() > 1e-9 {
                return Err(format!("{node} {what}: fleet {got}, PromQL {want}"));
            }
        }
    }
    Ok(())
}

/// As `wait_for`, with room for a machine loaded with 20 exporters (three minutes).
fn patient_wait<T>(what: &str, log: &Path, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + Duration::from_secs(180);
    loop {
        if let Some(found) = probe() {
            return found;
        }
        if std::time::Instant::now() > deadline {
            return wait_for(what, log, probe);
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn status_of(doc: &Value, host: &str) -> String {
    doc["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == host)
        .map(|h| h["status"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

#[test]
fn the_fleet_from_prometheus_matches_promql_worst_first_and_marks_a_downed_host() {
    let Some(prometheus) = on_path("prometheus") else {
        println!("skipped: prometheus not installed (apt-get install prometheus)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let ports: Vec<u16> = (0..HOSTS).map(|_| free_port()).collect();
    let mut exporters: Vec<Option<Killed>> = (0..HOSTS)
        .map(|i| Some(exporter(&host_name(i), ports[i])))
        .collect();
    let targets: String = (0..HOSTS)
        .map(|i| {
            format!(
                "      - targets: ['127.0.0.1:{}']\n        labels:\n          node: {}\n",
                ports[i],
                host_name(i)
            )
        })
        .collect();
    let config = format!(
        "global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\n  evaluation_interval: 2s\n\
             rule_files:\n  - {}\n\
             scrape_configs:\n  - job_name: restop\n    static_configs:\n{targets}",
        root.join("assets/prometheus/restop-fleet-rules.yml")
            .display()
    );
    let server = start_prometheus(&prometheus, dir.path(), &config);
    let (prom_port, log) = (server.port, server.log.clone());

    patient_wait("every exporter up and the rules recorded", &log, || {
        let up = query(prom_port, "sum(restop:fleet_target_up)")?;
        let n: f64 = results(&up)?.first()?["value"][1].as_str()?.parse().ok()?;
        (n as usize == HOSTS).then_some(())
    });
    // The leak needs the exporter's trend window of history; the NIC storm a rate.
    patient_wait("the leak suspect and the storm's counters", &log, || {
        let doc = try_fleet_json(prom_port).ok()?;
        let leak = doc["hosts"]
            .as_array()?
            .iter()
            .find(|h| h["host"] == "node-00-leak")?;
        let storm = doc["hosts"]
            .as_array()?
            .iter()
            .find(|h| h["host"] == "node-01-storm")?;
        (leak["leak_suspects"].as_u64()? > 0 && storm["nic"]["warning"].as_u64()? > 0).then_some(())
    });

    // Each host's facts are PromQL's at the same evaluation time (a scrape may land between
    // the fleet's queries and PromQL's: try a few times).
    let mut last = String::new();
    let doc = (0..10)
        .find_map(|_| {
            let doc = fleet_json(prom_port);
            match facts_match(prom_port, &doc) {
                Ok(()) => Some(doc),
                Err(e) => {
                    last = e;
                    std::thread::sleep(Duration::from_millis(300));
                    None
                }
            }
        })
        .unwrap_or_else(|| panic!("the fleet never matched PromQL: {last}"));
    let hosts = doc["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), HOSTS);
    assert!(
        !doc["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("recording rules not loaded")),
        "{}",
        doc["notes"]
    );
    // Troubled hosts before every healthy-looking one. A healthy demo host may still be
    // judged a leak suspect once (an owner ramping up for a minute looks like one), never
    // anything worse.
    let order: Vec<String> = hosts
        .iter()
        .map(|h| format!("{} {} {}", h["host"], h["status"], h["why"]))
        .collect();
    let first_ok = hosts.iter().position(|h| h["status"] == "ok").unwrap();
    assert!(
        hosts[first_ok..].iter().all(|h| h["status"] == "ok"),
        "{order:?}"
    );
    for name in [
        "node-00-leak",
        "node-01-storm",
        "node-02-limit",
        "node-03-errqp",
    ] {
        let at = hosts.iter().position(|h| h["host"] == name).unwrap();
        assert!(at < first_ok, "{name}: {order:?}");
    }
    for h in &hosts[..first_ok] {
        let name = h["host"].as_str().unwrap();
        if name.ends_with("-healthy") {
            assert_eq!(h["status"], "warning", "{order:?}");
            assert!(
                h["why"][0].as_str().unwrap().contains("leak suspect"),
                "{order:?}"
            );
        }
    }
    assert_eq!(status_of(&doc, "node-01-storm"), "critical");
    assert_eq!(status_of(&doc, "node-03-errqp"), "critical");
    assert_eq!(status_of(&doc, "node-02-limit"), "critical");
    assert_eq!(status_of(&doc, "node-00-leak"), "warning");
    let limit = hosts.iter().find(|h| h["host"] == "node-02-limit").unwrap();
    assert_eq!(limit["worst_usage"]["type"], "qp");
    // Cluster-wide lists carry their host.
    let lists = doc["top_consumers"].as_array().unwrap();
    let qps = lists
        .iter()
        .find(|l| l["kind"] == "process" && l["metric"] == "qp")
        .unwrap();
    assert!(
        qps["consumers"][0]["host"]
            .as_str()
            .unwrap()
            .starts_with("node-")
    );
    assert!(
        doc["leak_suspects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["host"] == "node-00-leak")
    );

    // --once shows the same hosts in the same order.
    let (code, text) = fleet(prom_port, "--once");
    assert_eq!(code, Some(0));
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("STATUS"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(rows.len(), HOSTS, "{text}");
    for name in [
        "node-00-leak",
        "node-01-storm",
        "node-02-limit",
        "node-03-errqp",
    ] {
        let first_ok = rows.iter().position(|r| r.starts_with("ok ")).unwrap();
        assert!(rows[..first_ok].iter().any(|r| r.contains(name)), "{text}");
    }

    // The full-screen view over the same server (tmux): worst first, `/`, Enter.
    let view = crate::fleet_terminal::FleetTerminal::open(prom_port, "2s");
    if let Some(view) = &view {
        view.check_worst_first(&[
            "node-00-leak",
            "node-01-storm",
            "node-02-limit",
            "node-03-errqp",
        ]);
        view.check_filter("node-03", "node-03-errqp");
        view.check_enter_opens_the_host();
    }
    // The sparklines: one range query for the rows on screen of a shorter view.
    crate::fleet_sparklines::check(prom_port, HOSTS);

    // One host goes down: down within two refreshes (-d 2s, Prometheus scrapes every 2s).
    let victim = host_name(7);
    exporters[7] = None;
    let statuses: Vec<String> = (0..2)
        .map(|_| {
            std::thread::sleep(Duration::from_secs(2));
            status_of(&fleet_json(prom_port), &victim)
        })
        .collect();
    assert_eq!(statuses[1], "down", "{victim}: {statuses:?}");
    let doc = fleet_json(prom_port);
    assert_eq!(
        doc["hosts"][0]["host"],
        victim.as_str(),
        "a down host is first"
    );
    // The view, refreshing on its own every 2 s, has it down too: by its next refresh, or
    // (on a machine loaded enough that one refresh waits on Prometheus) within the
    // --http-timeout that bounds it.
    if let Some(view) = view {
        view.check_down(&victim, Duration::from_secs(20));
        view.quit();
    }
}
