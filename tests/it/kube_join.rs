//! A real Prometheus scrapes `restop export --demo --owners-by pod --no-pid-label` and a
//! synthetic kube-state-metrics serving `kube_pod_info` for the demo node's pods: the
//! documented join `restop_* * on(namespace, pod) group_left kube_pod_info` gives every
//! pod its node. Skipped with a notice where Prometheus is not installed.

use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::prometheus::*;

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
    let config = format!(
        "global:\n  scrape_interval: 1s\n\
             scrape_configs:\n  - job_name: restop\n    static_configs:\n      \
             - targets: ['127.0.0.1:{restop_port}']\n  \
             - job_name: kube-state-metrics\n    static_configs:\n      \
             - targets: ['127.0.0.1:{ksm_port}']\n"
    );
    let server = start_prometheus(&prometheus, dir.path(), &config);
    let (prom_port, log) = (server.port, server.log.clone());

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
