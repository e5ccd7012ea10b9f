//! Limits in what restop prints: the simulated host's VF at ~84 % of its QPs
//! and the one at ~96 % of its MRs must both be called out, thresholds move
//! the calls, shares and levels appear in JSON, and bad thresholds are usage
//! errors of the binary.

use restop::demo::DemoSource;
use restop::model::filter::Filter;
use restop::model::{Snapshot, Thresholds};
use restop::output::{OnceOptions, render_json_with, render_once};
use restop::source::{CollectRequest, Source};
use std::process::{Command, Stdio};
use std::time::Duration;

fn demo() -> Snapshot {
    DemoSource::new(1, Duration::from_secs(2))
        .collect(&CollectRequest::default())
        .unwrap()
}

fn report(thresholds: Thresholds) -> String {
    render_once(
        &demo(),
        &Filter::default(),
        &OnceOptions {
            thresholds,
            ..OnceOptions::default()
        },
    )
}

#[test]
fn the_demo_report_warns_about_both_vfs() {
    let text = report(Thresholds::default());
    assert!(
        text.contains(
            "! mlx5_2 qp at 84% of max (1711/2048, warning); train.py (pid 21407) holds 33%"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "! mlx5_3 mr at 96% of max (7840/8192, critical); finetune.py (pid 26730) holds\n  100%"
        ),
        "{text}"
    );
}

#[test]
fn thresholds_decide_what_is_called_out() {
    let strict = report(Thresholds::from_percent(97.0, 99.0).unwrap());
    assert!(!strict.contains(" of max ("), "{strict}");
    let loose = report(Thresholds::from_percent(50.0, 80.0).unwrap());
    assert!(
        loose.contains("mlx5_2 qp at 84% of max (1711/2048, critical)"),
        "{loose}"
    );
}

#[test]
fn json_has_limit_warnings_levels_and_shares() {
    let doc = serde_json::to_value(render_json_with(
        &demo(),
        &Filter::default(),
        &Thresholds::default(),
    ))
    .unwrap();
    let limits: Vec<&str> = doc["meta"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "limit")
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    assert_eq!(limits.len(), 2, "{limits:?}");
    let mlx5_3 = doc["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "mlx5_3")
        .unwrap();
    assert_eq!(mlx5_3["usage"]["mr"]["level"], "critical");
    assert_eq!(mlx5_3["usage"]["mr"]["max_source"], "demo");
    assert_eq!(mlx5_3["usage"]["ctx"]["level"], serde_json::Value::Null);
    let finetune = doc["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == 26730)
        .unwrap();
    // It holds every MR of mlx5_3, 7840 of the 8192 the VF allows.
    assert_eq!(finetune["share"]["mr"]["of_current"], 1.0);
    assert_eq!(finetune["share"]["mr"]["of_max"], 7840.0 / 8192.0);
    assert_eq!(finetune["rdma_cgroup"], serde_json::Value::Null);
}

fn restop(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn bad_thresholds_are_usage_errors() {
    for args in [
        &["--warn", "96"][..],
        &["--crit", "120"],
        &["--warn", "0"],
        &["--warn", "90", "--crit", "90"],
    ] {
        let mut all = vec!["--demo", "--once"];
        all.extend_from_slice(args);
        let out = restop(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--warn") || err.contains("--crit"), "{err}");
    }
    let out = restop(&["--demo", "--once", "--warn", "50", "--crit", "60"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("mlx5_2 qp at 84% of max (1711/2048, critical)"),
        "{text}"
    );
}
