//! The signal matrix's last column: every mode blocked in a netlink read
//! (`RESTOP_TEST_STALLED_NETLINK=1`, a debug build's kernel that never
//! answers, as one stuck in a long dump) × SIGTERM, SIGINT, SIGHUP: gone
//! within a second of the signal, with 128 + the signal's number when the
//! watchdog ended the blocked run, or 0 when the normal path ended it (the
//! interactive view and the exporter's serving thread are not blocked).

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SIGNALS: [Signal; 3] = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];
const GONE_WITHIN: Duration = Duration::from_secs(1);

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn restop(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_restop"));
    command
        .args(args)
        .env("RESTOP_TEST_STALLED_NETLINK", "1")
        .env_remove("RESTOP_CONFIG")
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

fn check(case: &str, mut child: Child, signal: Signal) {
    // Started (a debug build on a busy machine) and well into the stalled read.
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        child.try_wait().unwrap().is_none(),
        "{case}: ended by itself"
    );
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            panic!("{case}: still running 5 s after {signal}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    assert!(took < GONE_WITHIN, "{case}: gone after {took:?}");
    let forced = 128 + signal as i32;
    assert!(
        matches!(status.code(), Some(0)) || status.code() == Some(forced),
        "{case}: {status}"
    );
}

#[test]
fn every_mode_ends_within_a_second_while_blocked_in_a_netlink_read() {
    let dir = tempfile::tempdir().unwrap();
    let prom = dir.path().join("restop.prom");
    let rec = dir.path().join("stalled.rec");
    for signal in SIGNALS {
        let listen = format!("127.0.0.1:{}", free_port());
        let cases: Vec<(&str, Vec<&str>)> = vec![
            ("once", vec!["--once"]),
            ("json", vec!["--json"]),
            ("batch", vec!["--batch", "-d", "1s"]),
            ("batch json", vec!["--batch", "--json", "-d", "1s"]),
            (
                "record",
                vec!["--batch", "-d", "1s", "--record", rec.to_str().unwrap()],
            ),
            ("export http", vec!["export", "--listen", &listen]),
            (
                "export textfile",
                vec!["export", "--textfile", prom.to_str().unwrap()],
            ),
        ];
        // Side by side: each is asleep in its stalled read.
        std::thread::scope(|scope| {
            for (case, args) in &cases {
                let child = restop(args).spawn().unwrap();
                scope.spawn(move || check(&format!("{case} / {signal}"), child, signal));
            }
        });
        // The interactive view on a terminal: its collector thread is the
        // one blocked; the view ends by its normal path.
        let pty = nix::pty::openpty(None, None).unwrap();
        let slave = pty.slave.as_raw_fd();
        let child = {
            let mut command = restop(&["--no-mouse"]);
            let dup = |fd| {
                // SAFETY: `fd` is a live descriptor of this test; the copy is owned by the Stdio.
                unsafe { <Stdio as std::os::fd::FromRawFd>::from_raw_fd(nix::libc::dup(fd)) }
            };
            command
                .env("TERM", "xterm-256color")
                .stdin(dup(slave))
                .stdout(dup(slave))
                .stderr(dup(slave));
            command.spawn().unwrap()
        };
        // Read what the view draws, so that it is never blocked on the terminal.
        let master = std::fs::File::from(pty.master);
        let drain = std::thread::spawn(move || {
            let mut master = master;
            let mut buf = [0u8; 4096];
            while std::io::Read::read(&mut master, &mut buf).is_ok_and(|n| n > 0) {}
        });
        check(&format!("interactive / {signal}"), child, signal);
        drop(pty.slave);
        drop(drain);
    }
}
