//! A real Prometheus scrapes `restop export --demo --owners-by pod --no-pid-label` and a
//! synthetic kube-state-metrics serving `kube_pod_info` for the demo node's pods: the
//! documented join `restop_* * on(namespace, pod) group_left kube_pod_info` gives every
//! pod its node. Skipped with a notice where Prometheus is not installed.

use serde_json::Value;
use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);

fn on_path(tool: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Percent-encodes a query parameter.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// GET over HTTP/1.0 (so the answer is never chunked) and parse the JSON body.
fn api(port: u16, path_and_query: &str) -> Option<Value> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {path_and_query} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
    )
    .ok()?;
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).ok()?;
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
    serde_json::from_slice(&bytes[end + 4..]).ok()
}

fn query(port: u16, promql: &str) -> Option<Value> {
    api(port, &format!("/api/v1/query?query={}", encode(promql)))
}

/// Polls `probe` until it gives something, or fails after `WAIT` with `what`
/// and Prometheus' log.
fn wait_for<T>(what: &str, log: &Path, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(found) = probe() {
            return found;
        }
        if Instant::now() > deadline {
            let log = fs::read_to_string(log).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(20).collect();
            panic!(
                "timed out waiting for {what}; prometheus log (last lines, newest first):\n{}",
                tail.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn results(answer: &Value) -> Option<&Vec<Value>> {
    (answer["status"] == "success")
        .then(|| answer["data"]["result"].as_array())
        .flatten()
}

/// `kube_pod_info` as kube-state-metrics exports it, for the demo host's pods, served on
/// loopback so Prometheus scrapes it as a second job.
fn serve_kube_state_metrics(body: String) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(10_000) {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = s.read(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

/// (namespace, pod, uid) of every pod in the demo host's `--json`.
fn demo_pods() -> Vec<(String, String, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(["--demo", "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut pods: Vec<(String, String, String)> = doc["processes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| {
            let c = &p["container"];
            let k = &c["kubernetes"];
            Some((
                k["namespace"].as_str()?.to_string(),
                k["pod"].as_str()?.to_string(),
                c["pod"].as_str()?.to_string(),
            ))
        })
        .collect();
    pods.sort();
    pods.dedup();
    pods
}

#[test]
fn restop_series_join_kube_pod_info_by_namespace_and_pod() {
    let Some(prometheus) = on_path("prometheus") else {
        println!("skipped: prometheus not installed (apt-get install prometheus)");
        return;
    };
    let pods = demo_pods();
    assert!(pods.len() >= 5, "{pods:?}");
    let ksm: String = pods
        .iter()
        .map(|(ns, pod, uid)| {
            format!(
                "kube_pod_info{{namespace=\"{ns}\",pod=\"{pod}\",uid=\"{uid}\",node=\"gpu-node-17\",\
                 created_by_kind=\"StatefulSet\"}} 1\n"
            )
        })
        .collect();
    let ksm_port = serve_kube_state_metrics(format!("# TYPE kube_pod_info gauge\n{ksm}"));

    let dir = tempfile::tempdir().unwrap();
    let restop_port = free_port();
    let prom_port = free_port();
    let _restop = Killed(
        Command::new(env!("CARGO_BIN_EXE_restop"))
            .args([
                "export",
                "--demo",
                "-d",
                "1s",
                "--owners-by",
                "pod",
                "--no-pid-label",
            ])
            .arg("--listen")
            .arg(format!("127.0.0.1:{restop_port}"))
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let config = dir.path().join("prometheus.yml");
    fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n\
             scrape_configs:\n  - job_name: restop\n    static_configs:\n      \
             - targets: ['127.0.0.1:{restop_port}']\n  \
             - job_name: kube-state-metrics\n    static_configs:\n      \
             - targets: ['127.0.0.1:{ksm_port}']\n"
        ),
    )
    .unwrap();
    let log = dir.path().join("prometheus.log");
    let _prometheus = Killed(
        Command::new(prometheus)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{prom_port}"))
            .stdin(Stdio::null())
            .stdout(fs::File::create(dir.path().join("prometheus.out")).unwrap())
            .stderr(fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );

    // The documented join: restop's per-pod QPs with the node from kube_pod_info.
    let joined = wait_for("the join of restop_* with kube_pod_info", &log, || {
        let answer = query(
            prom_port,
            "restop_process_resources{job=\"restop\",type=\"qp\",pod!=\"\"} \
             * on(namespace, pod) group_left(node) kube_pod_info",
        )?;
        let found = results(&answer)?.clone();
        (found.len() == pods.len()).then_some(found)
    });
    for (ns, pod, uid) in &pods {
        let row = joined
            .iter()
            .find(|r| r["metric"]["namespace"] == *ns && r["metric"]["pod"] == *pod)
            .unwrap_or_else(|| panic!("{ns}/{pod} missing from {joined:?}"));
        assert_eq!(row["metric"]["node"], "gpu-node-17");
        assert_eq!(row["metric"]["uid"], *uid);
        // Grouped by pod and without pid: no pid label, one series per pod.
        assert!(row["metric"].get("pid").is_none(), "{row}");
    }
    // The three ranks of the pre-training job are one series: their sum.
    let training = joined
        .iter()
        .find(|r| r["metric"]["pod"] == "llama70b-pretrain-worker-3")
        .unwrap();
    let qps: u64 = training["value"][1].as_str().unwrap().parse().unwrap();
    assert!(qps >= 3 * 560, "{training}");

    // The scrape was gzip-compressed (Prometheus asks for it) and accepted whole.
    let targets = api(prom_port, "/api/v1/targets").unwrap();
    for target in targets["data"]["activeTargets"].as_array().unwrap() {
        assert_eq!(target["health"], "up", "{target}");
    }
}
