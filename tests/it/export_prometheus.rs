//! A real Prometheus server (Debian package `prometheus`) on loopback scrapes
//! `restop export --demo`: restop's series arrive, the alerting rules load
//! and evaluate against them, and every dashboard query runs. Skipped with a
//! notice where Prometheus is not installed.

use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::prometheus::*;

#[test]
fn prometheus_scrapes_restop_and_evaluates_the_rules_and_dashboard() {
    let Some(prometheus) = on_path("prometheus") else {
        println!("skipped: prometheus not installed (apt-get install prometheus)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let restop_port = free_port();

    let _restop = Killed(
        Command::new(env!("CARGO_BIN_EXE_restop"))
            .args(["export", "--demo", "-d", "1s", "--listen"])
            .arg(format!("127.0.0.1:{restop_port}"))
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let config = format!(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
             rule_files:\n  - {}\n\
             scrape_configs:\n  - job_name: restop\n    static_configs:\n      \
             - targets: ['127.0.0.1:{restop_port}']\n",
        root.join("assets/prometheus/restop-rules.yml").display()
    );
    let server = start_prometheus(&prometheus, dir.path(), &config);
    let (prom_port, log) = (server.port, server.log.clone());

    // restop's series arrive: 5 demo devices × 7 types.
    let series = wait_for("restop_resources in Prometheus", &log, || {
        let answer = query(prom_port, "restop_resources")?;
        let found = results(&answer)?.clone();
        (found.len() == 35).then_some(found)
    });
    let labels = &series[0]["metric"];
    assert_eq!(labels["job"], "restop");
    assert_eq!(labels["instance"], format!("127.0.0.1:{restop_port}"));
    assert!(labels["device"].is_string() && labels["type"].is_string());

    // The target is healthy: the exposition (OpenMetrics, as Prometheus asks
    // for it) was accepted whole.
    let targets = api(prom_port, "/api/v1/targets").unwrap();
    let target = &targets["data"]["activeTargets"][0];
    assert_eq!(target["health"], "up", "{target}");
    assert_eq!(target["lastError"], "", "{target}");
    // Counters keep their _total name through OpenMetrics.
    let errors = query(prom_port, "restop_collection_errors_total").unwrap();
    assert_eq!(results(&errors).unwrap().len(), 9);
    let up = query(prom_port, "restop_up").unwrap();
    assert_eq!(results(&up).unwrap()[0]["value"][1], "1");

    // Every rule loads and evaluates cleanly.
    let rule_count = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/prometheus/restop-rules.yml"),
    )
    .unwrap()
    .lines()
    .filter(|l| l.trim_start().starts_with("- alert:") || l.trim_start().starts_with("- record:"))
    .count();
    wait_for("every rule evaluated with health ok", &log, || {
        let rules = api(prom_port, "/api/v1/rules")?;
        let groups = rules["data"]["groups"].as_array()?;
        let all: Vec<&Value> = groups
            .iter()
            .flat_map(|g| g["rules"].as_array().into_iter().flatten())
            .collect();
        (all.len() == rule_count && all.iter().all(|r| r["health"] == "ok")).then_some(())
    });
    // The demo's VF near its MR limit (96 %) makes the usage alerts pending.
    wait_for(
        "RdmaResourceUsageCritical pending for mlx5_3 mr",
        &log,
        || {
            let alerts = api(prom_port, "/api/v1/alerts")?;
            alerts["data"]["alerts"]
                .as_array()?
                .iter()
                .any(|a| {
                    a["labels"]["alertname"] == "RdmaResourceUsageCritical"
                        && a["labels"]["device"] == "mlx5_3"
                        && a["labels"]["type"] == "mr"
                        && a["state"] == "pending"
                })
                .then_some(())
        },
    );

    // rate() needs two samples of a counter: wait for the second scrape.
    wait_for("a rate of the NIC counters", &log, || {
        let answer = query(prom_port, "rate(restop_port_transmit_bytes_total[5m])")?;
        (!results(&answer)?.is_empty()).then_some(())
    });
    // Every dashboard query runs; those that are not filtered by a threshold
    // return data.
    let dashboard: Value = serde_json::from_str(
        &fs::read_to_string(root.join("assets/grafana/restop-dashboard.json")).unwrap(),
    )
    .unwrap();
    let mut exprs = Vec::new();
    collect_exprs(&dashboard["panels"], &mut exprs);
    assert!(exprs.len() >= 10);
    for expr in exprs {
        let promql = expr
            // What Grafana makes of it at this scrape interval and zoom (≥ 4 scrapes).
            .replace("$__rate_interval", "5m")
            .replace("$job", ".*")
            .replace("$cluster", ".*")
            .replace("$instance", ".*")
            .replace("$device", ".*")
            .replace("$type", "qp");
        let answer = query(prom_port, &promql).unwrap();
        assert_eq!(answer["status"], "success", "{promql}: {answer}");
        if !promql.contains("> 0") {
            let found = results(&answer).map_or(0, Vec::len);
            assert!(found > 0, "no data for dashboard query {promql}");
        }
    }
}

fn collect_exprs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("expr", Value::String(expr)) => out.push(expr.clone()),
                    _ => collect_exprs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_exprs(v, out)),
        _ => {}
    }
}
