//! The built binary in batch mode and with recordings: what scripts and
//! pipes see on stdout, stderr and in the exit status.

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Output, Stdio};

fn restop(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run restop")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn demo_batch_prints_two_reports_and_exits_zero() {
    let out = restop(&["--demo", "--batch", "-n", "2", "-d", "10ms"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let stdout = text(&out.stdout);
    let ticks: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("=== restop tick"))
        .collect();
    assert_eq!(ticks.len(), 2, "{stdout}");
    assert!(ticks[0].starts_with("=== restop tick 1: 2026-01-01 00:00:00"));
    assert!(stdout.contains("DEMO — simulated data"));
}

#[test]
fn demo_batch_json_gives_n_parseable_lines() {
    let out = restop(&["--demo", "--batch", "--json", "-n", "3", "-d", "10ms"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3);
    for line in lines {
        let doc: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(doc["schema_version"], 1);
        assert_eq!(doc["meta"]["source"], "demo");
    }
}

#[test]
fn a_closed_pipe_ends_batch_mode_silently_with_status_zero() {
    // `restop --demo --batch --json | head -2`
    let mut child = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(["--demo", "--batch", "--json", "-d", "10ms"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..2 {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str::<serde_json::Value>(&line).unwrap();
    }
    drop(stdout);
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(stderr, "");
}

#[test]
fn sigterm_and_sigint_end_batch_mode_cleanly() {
    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_restop"))
            .args(["--demo", "--batch", "--json", "-d", "20ms"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        let mut rest = String::new();
        stdout.read_to_string(&mut rest).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{signal}");
        for line in first.lines().chain(rest.lines()) {
            serde_json::from_str::<serde_json::Value>(line).expect("only whole lines");
        }
    }
}

#[test]
fn record_then_replay_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.rec");
    let file = file.to_str().unwrap();
    let recorded = restop(&[
        "--demo", "--batch", "--json", "-n", "4", "-d", "10ms", "--record", file,
    ]);
    assert_eq!(
        recorded.status.code(),
        Some(0),
        "{}",
        text(&recorded.stderr)
    );

    let replayed = restop(&["--replay", file, "--batch", "--json"]);
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{}",
        text(&replayed.stderr)
    );
    let lines: Vec<serde_json::Value> = text(&replayed.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "the whole recording, then the end");
    let recorded: Vec<serde_json::Value> = text(&recorded.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (r, p) in recorded.iter().zip(&lines) {
        assert_eq!(p["meta"]["source"], "replay");
        assert_eq!(r["meta"]["collected_at_ms"], p["meta"]["collected_at_ms"]);
        assert_eq!(r["processes"], p["processes"]);
        assert_eq!(r["devices"], p["devices"]);
    }

    let once = restop(&["--replay", file, "--once"]);
    assert_eq!(once.status.code(), Some(0));
    assert!(text(&once.stdout).contains("source replay (recorded data)"));
    assert!(text(&once.stdout).contains("recorded from the simulated host"));

    // Recording again continues the same file.
    let more = restop(&[
        "--demo", "--batch", "-n", "2", "-d", "10ms", "--record", file,
    ]);
    assert_eq!(more.status.code(), Some(0), "{}", text(&more.stderr));
    let replayed = restop(&["--replay", file, "--batch", "--json"]);
    assert_eq!(text(&replayed.stdout).lines().count(), 6);
}

#[test]
fn foreign_and_missing_recordings_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("notes.txt");
    std::fs::write(&foreign, "hello\n").unwrap();
    let foreign = foreign.to_str().unwrap();

    let out = restop(&["--replay", foreign, "--once"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!("restop: {foreign} is not a restop recording (bad magic at offset 0)\n")
    );
    assert!(out.stdout.is_empty());

    let out = restop(&["--demo", "--once", "--record", foreign]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!(
            "restop: cannot record: {foreign} is not a restop recording (bad magic at offset 0)\n"
        )
    );
    assert_eq!(std::fs::read_to_string(foreign).unwrap(), "hello\n");

    let missing = dir.path().join("missing.rec");
    let out = restop(&["--replay", missing.to_str().unwrap(), "--batch"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("missing.rec: opening: No such file"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("No such file").count(),
        1,
        "said once: {stderr}"
    );
}

#[test]
fn batch_options_are_checked_as_usage_errors() {
    for args in [
        &["-n", "3"][..],
        &["--batch", "-n", "0"],
        &["--batch", "-n", "many"],
        &["--record", "a.rec", "--replay", "b.rec"],
        &["--replay", "b.rec", "--demo"],
    ] {
        let out = restop(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn help_mentions_batch_and_recordings() {
    let help = text(&restop(&["--help"]).stdout);
    for option in [
        "--batch",
        "--iterations",
        "-n,",
        "--record",
        "--replay",
        "docs/recording.md",
    ] {
        assert!(help.contains(option), "--help does not mention {option}");
    }
}
