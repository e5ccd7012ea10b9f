//! The built `restop` binary: help, usage errors, exit statuses, and what
//! reaches stdout and stderr.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

fn restop(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run restop")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// True when this machine can read RDMA resources, where the live-host
/// expectations below do not apply.
fn host_has_rdma() -> bool {
    std::path::Path::new("/sys/class/infiniband").exists()
}

#[test]
fn help_mentions_every_option() {
    let out = restop(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for option in [
        "--once",
        "--json",
        "--demo",
        "--seed",
        "--delay",
        "-d,",
        "--timeout",
        "--dev",
        "--pid",
        "--type",
        "--state",
        "--sort",
        "--top",
        "--help",
        "--version",
    ] {
        assert!(help.contains(option), "--help does not mention {option}");
    }
    for example in ["500ms", "qp,mr", "mr_bytes", "Exit status"] {
        assert!(help.contains(example), "--help lacks {example:?}");
    }
}

#[test]
fn bad_delay_is_a_usage_error() {
    for bad in ["0", "-1s", "soon"] {
        let out = restop(&["--once", "--delay", bad]);
        assert_eq!(out.status.code(), Some(2), "--delay {bad}");
        assert!(stdout(&out).is_empty());
        let err = stderr(&out);
        assert!(err.contains("--delay"), "{err}");
        assert!(err.contains("500ms"), "{err}");
    }
}

#[test]
fn bad_filter_values_are_usage_errors() {
    for args in [
        &["--once", "--type", "qp,bogus"][..],
        &["--once", "--state", "dead"],
        &["--once", "--sort", "colour"],
        &["--once", "--pid", "me"],
        &["--seed", "3"],
    ] {
        let out = restop(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stdout(&out).is_empty());
    }
}

#[test]
fn interactive_mode_says_it_is_not_built_yet() {
    let out = restop(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("use --once or --json"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn without_rdma_once_and_json_fail_and_point_at_demo() {
    if host_has_rdma() {
        return;
    }
    for mode in ["--once", "--json"] {
        let out = restop(&[mode]);
        assert_eq!(out.status.code(), Some(1), "{mode}");
        assert!(stdout(&out).is_empty(), "{mode} printed: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("--demo"), "{mode}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn demo_once_prints_a_report_marked_as_simulated() {
    let out = restop(&["--demo", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.lines().next().unwrap_or("").contains("DEMO"), "{text}");
    assert!(text.contains("DEVICES"));
    assert!(text.contains("TOP CONSUMERS"));
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "{line:?}");
    }
}

#[test]
fn demo_json_is_valid_and_says_demo() {
    let out = restop(&["--demo", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["meta"]["source"], "demo");
}

#[test]
fn demo_with_an_unknown_device_warns_and_exits_1() {
    let out = restop(&["--demo", "--json", "--dev", "no_such_dev"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let warnings = doc["meta"]["warnings"].to_string();
    assert!(
        warnings.contains("no device named no_such_dev (have: "),
        "{warnings}"
    );
    assert!(stderr(&out).contains("no device named no_such_dev"));
}

#[test]
fn a_reader_that_leaves_early_is_not_an_error() {
    // `restop --demo --once | head -1`
    let mut child = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(["--demo", "--once", "--top", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn restop");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn a_reader_that_never_reads_is_not_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(["--demo", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn restop");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}
