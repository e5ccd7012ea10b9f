//! `restop export` on the command line: its options, how it sits next to the
//! other modes, and the binary serving HTTP.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn restop(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn export_help_mentions_its_options_and_examples() {
    let out = restop(&["export", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "--listen",
        "--textfile",
        "--once",
        "--top",
        "--demo",
        "--delay",
        "--objects-every",
        "127.0.0.1:9879",
        "docs/exporter.md",
    ] {
        assert!(help.contains(needle), "export --help lacks {needle}");
    }
    let top = String::from_utf8_lossy(&restop(&["--help"]).stdout).into_owned();
    assert!(
        top.contains("export"),
        "restop --help does not mention export"
    );
}

#[test]
fn the_other_modes_parse_as_before() {
    let out = restop(&["--demo", "--once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = restop(&["--demo", "--json", "--top", "3", "-d", "1s"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["meta"]["source"], "demo");
}

#[test]
fn source_options_go_before_or_after_export() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.prom");
    let path = path.to_str().unwrap();
    for args in [
        &[
            "--demo",
            "--seed",
            "2",
            "export",
            "--textfile",
            path,
            "--once",
        ][..],
        &[
            "export",
            "--demo",
            "--seed",
            "2",
            "--textfile",
            path,
            "--once",
        ],
        &["-d", "1s", "export", "--demo", "--textfile", path, "--once"],
    ] {
        let out = restop(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn usage_errors() {
    for (args, says) in [
        (
            &["--once", "export"][..],
            "--once cannot be used with export",
        ),
        (
            &["--dev", "mlx5_0", "export"],
            "--dev cannot be used with export",
        ),
        (&["export", "--once"], "--textfile"),
        (&["export", "--listen", ":9879"], "0.0.0.0:9879"),
        (&["export", "--listen", "nonsense"], "HOST:PORT"),
        (
            &["export", "--listen", "127.0.0.1:1", "--textfile", "x.prom"],
            "cannot be used with",
        ),
        (&["export", "--top", "5000"], "--top"),
        (&["export", "--seed", "2"], "--demo"),
    ] {
        let out = restop(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn scrape(port: u16) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    Some(text)
}

#[test]
fn the_binary_serves_the_demo_on_loopback() {
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let _child = Killed(
        Command::new(env!("CARGO_BIN_EXE_restop"))
            .args(["export", "--demo", "-d", "200ms", "--listen", &listen])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let reply = loop {
        if let Some(reply) = scrape(port) {
            break reply;
        }
        assert!(
            Instant::now() < deadline,
            "restop never answered on {listen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(reply.starts_with("HTTP/1.1 200 OK\r\n"), "{reply}");
    assert!(reply.contains("\nrestop_up{source=\"demo\"} 1\n"));
}

#[test]
fn a_taken_port_is_a_clear_error() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let out = restop(&["export", "--demo", "--listen", &addr.to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("address {addr} is in use")),
        "{}",
        stderr(&out)
    );
}
