//! `--demo-at`: scripted demo runs (`--once`, `--json`) pick a moment of the
//! simulated timeline instead of always showing demo time 0.

use restop::demo::DemoSource;
use restop::model::DetailScope;
use restop::source::{CollectRequest, Source};
use std::process::Command;
use std::time::Duration;

fn restop(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn request() -> CollectRequest {
    CollectRequest {
        details: DetailScope::ErrorsOnly,
        force_objects: true,
    }
}

#[test]
fn a_source_started_later_shows_that_moment_of_the_same_story() {
    let step = Duration::from_secs(2);
    let mut run = DemoSource::new(1, step);
    let mut snapshot = run.collect(&request()).unwrap();
    for _ in 0..30 {
        snapshot = run.collect(&request()).unwrap();
    }
    let later = DemoSource::starting_at(1, step, Duration::from_secs(60))
        .collect(&request())
        .unwrap();
    assert_eq!(later.meta.collected_at_ms, snapshot.meta.collected_at_ms);
    assert_eq!(later.tallies, snapshot.tallies);
}

#[test]
fn demo_at_ten_minutes_once_with_state_err_lists_error_qps() {
    let at_zero = restop(&["--demo", "--once", "--state", "err"]);
    let later = restop(&["--demo", "--demo-at", "10m", "--once", "--state", "err"]);
    assert!(later.contains("00:10:00"), "{later}");
    assert!(later.contains("ERR"), "{later}");
    assert_ne!(at_zero, later);
}

#[test]
fn demo_at_is_in_the_json_time() {
    let json = restop(&["--demo", "--demo-at", "90s", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let text = v.to_string();
    assert!(
        text.contains("2026-01-01T00:01:30"),
        "{}",
        &text[..400.min(text.len())]
    );
}
