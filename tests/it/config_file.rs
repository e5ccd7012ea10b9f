//! The config file through the built binary: where it is found, that the
//! command line wins over it, and that a bad one stops restop with its line.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs restop with `XDG_CONFIG_HOME` at `config_home` and no `RESTOP_CONFIG`.
fn restop(config_home: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_restop"));
    cmd.args(args)
        .env("XDG_CONFIG_HOME", config_home)
        .env_remove("RESTOP_CONFIG")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A config home holding `restop/config.toml` with `body`.
fn home_with(body: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("restop")).unwrap();
    std::fs::write(home.path().join("restop/config.toml"), body).unwrap();
    home
}

#[test]
fn the_default_file_sets_defaults_and_the_command_line_wins() {
    let home = home_with("[report]\ntop = 2\nsort = \"mr_bytes\"\n");
    let out = restop(home.path(), &[], &["--demo", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("TOP CONSUMERS by MR-BYTES"), "{report}");
    assert!(report.contains("more"), "top = 2 cuts the table: {report}");

    let out = restop(
        home.path(),
        &[],
        &["--demo", "--once", "--sort", "qp", "--top", "0"],
    );
    let report = text(&out.stdout);
    assert!(report.contains("TOP CONSUMERS by QP"), "{report}");
    assert!(!report.contains(" more"), "{report}");
}

#[test]
fn no_default_file_is_no_config() {
    let home = tempfile::tempdir().unwrap();
    let out = restop(home.path(), &[], &["--demo", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_named_file_replaces_the_default_one_and_must_exist() {
    let home = home_with("[report]\nsort = \"colour\"\n");
    let dir = tempfile::tempdir().unwrap();
    let named = dir.path().join("mine.toml");
    std::fs::write(&named, "[report]\nsort = \"pd\"\n").unwrap();
    let named = named.to_str().unwrap();
    for (env, args) in [
        (vec![], vec!["--config", named, "--demo", "--once"]),
        (vec![("RESTOP_CONFIG", named)], vec!["--demo", "--once"]),
    ] {
        let out = restop(home.path(), &env, &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(text(&out.stdout).contains("TOP CONSUMERS by PD"));
    }
    let out = restop(
        home.path(),
        &[],
        &["--config", "/nonexistent/restop.toml", "--once"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/restop.toml"));
}

#[test]
fn a_bad_file_is_an_error_naming_the_file_and_line() {
    for (body, says) in [
        (
            "[report]\nsort = \"colour\"\n",
            "line 2, column 8: sort: unknown sort key",
        ),
        (
            "[source]\n\nintervall = \"2s\"\n",
            "line 3, column 1: unknown field `intervall`",
        ),
        (
            "[trends]\nwindow = \"5 minutes\"\n",
            "line 2, column 10: trends.window",
        ),
        ("[report\n", "line 1"),
    ] {
        let home = home_with(body);
        let out = restop(home.path(), &[], &["--demo", "--once"]);
        assert_eq!(out.status.code(), Some(2), "{body}");
        let err = text(&out.stderr);
        assert!(err.contains("restop/config.toml"), "{body}: {err}");
        assert!(err.contains(says), "{body}: {err}");
        assert!(out.stdout.is_empty(), "nothing runs on a bad file");
    }
}

#[test]
fn the_example_file_is_valid_and_matches_the_defaults() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/config.example.toml");
    let home = tempfile::tempdir().unwrap();
    let with = restop(home.path(), &[], &["--config", example, "--demo", "--json"]);
    let without = restop(home.path(), &[], &["--demo", "--json"]);
    assert_eq!(with.status.code(), Some(0), "{}", text(&with.stderr));
    assert_eq!(with.stdout, without.stdout);
}

#[test]
fn export_help_shows_the_exporters_own_interval() {
    let home = tempfile::tempdir().unwrap();
    let help = text(&restop(home.path(), &[], &["export", "--help"]).stdout);
    assert!(help.contains("[default: 15s"), "{help}");
    assert!(!help.contains("[default: 2s"), "{help}");
    let short = text(&restop(home.path(), &[], &["export", "-h"]).stdout);
    let delay = short.lines().find(|l| l.contains("--delay")).unwrap();
    assert!(delay.contains("[default: 15s]"), "{delay}");
}
