//! `restop fleet --hosts`: real `restop export --demo` exporters on loopback, scraped directly,
//! with some targets dead (nothing listening) and some hanging (a listener that accepts and
//! never answers): one refresh ends within the timeout plus a second, every live exporter is
//! read and every dead or hanging one is marked down.

use serde_json::Value;
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::prometheus::{Killed, free_port};

fn exporter(name: &str, port: u16) -> Killed {
    Killed(
        Command::new(env!("CARGO_BIN_EXE_restop"))
            .args([
                "export",
                "--demo",
                "--demo-host",
                name,
                "-d",
                "1s",
                "--listen",
            ])
            .arg(format!("127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "exporter on {port} never listened"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_refresh_with_dead_and_hanging_exporters_ends_within_the_timeout() {
    let names = [
        "node-01-healthy",
        "node-02-leak",
        "node-03-storm",
        "node-04-limit",
        "node-05-errqp",
        "node-06-healthy",
        "node-07-healthy",
        "node-08-healthy",
        "node-09-healthy",
        "node-10-healthy",
    ];
    let mut live = Vec::new();
    let mut targets = Vec::new();
    for name in names {
        let port = free_port();
        live.push(exporter(name, port));
        targets.push((name, format!("127.0.0.1:{port}")));
    }
    // Hanging: the kernel completes the connection, nobody ever reads or answers.
    let hanging: Vec<TcpListener> = (0..2)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    // Dead: port 1 (tcpmux) on three loopback addresses, where nothing listens.
    let dead: Vec<String> = (1..=3).map(|i| format!("127.0.0.{i}:1")).collect();
    for (_, t) in &targets {
        wait_listening(t.rsplit(':').next().unwrap().parse().unwrap());
    }
    let mut all: Vec<String> = targets.iter().map(|(_, t)| t.clone()).collect();
    all.extend(hanging.iter().map(|l| l.local_addr().unwrap().to_string()));
    all.extend(dead.iter().cloned());

    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args([
            "fleet",
            "--json",
            "--http-timeout",
            "2s",
            "--concurrency",
            "8",
        ])
        .arg("--hosts")
        .arg(all.join(","))
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "one refresh took {took:?} with a 2 s timeout"
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hosts = doc["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 15);
    let status = |host: &str| {
        hosts
            .iter()
            .find(|h| h["host"] == host)
            .map(|h| h["status"].as_str().unwrap().to_string())
            .unwrap()
    };
    for l in &hanging {
        assert_eq!(status(&l.local_addr().unwrap().to_string()), "down");
    }
    for d in &dead {
        assert_eq!(status(d), "down");
    }
    for (_, t) in &targets {
        assert_ne!(status(t), "down", "{t}");
    }
    // Down hosts first; then the troubled demo hosts before the healthy ones.
    let order: Vec<&str> = hosts
        .iter()
        .map(|h| h["status"].as_str().unwrap())
        .collect();
    assert!(order[..5].iter().all(|s| *s == "down"), "{order:?}");
    let first_ok = order.iter().position(|s| *s == "ok").unwrap();
    assert!(order[first_ok..].iter().all(|s| *s == "ok"), "{order:?}");
    let host_of = |name: &str| targets.iter().find(|(n, _)| *n == name).unwrap().1.clone();
    assert_eq!(status(&host_of("node-04-limit")), "critical");
    assert_eq!(status(&host_of("node-03-storm")), "critical");
    assert_eq!(status(&host_of("node-01-healthy")), "ok");
    let limit = hosts
        .iter()
        .find(|h| h["host"] == host_of("node-04-limit"))
        .unwrap();
    assert_eq!(limit["worst_usage"]["type"], "qp");
    assert!(limit["worst_usage"]["ratio"].as_f64().unwrap() >= 0.95);
    drop(live);
}

#[test]
fn a_fleet_with_no_exporter_answering_exits_1_with_the_reason() {
    let dead = "127.0.0.1:1".to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(["fleet", "--once", "--http-timeout", "1s", "--hosts", &dead])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no host answered"), "{stderr}");
}
