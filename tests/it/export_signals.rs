//! `restop export` ends cleanly (status 0, within a second) on SIGTERM and SIGINT, in
//! both modes: as a container's PID 1 no signal has a default action, so without its own
//! handler the exporter would ignore `podman stop` / a pod's termination until SIGKILL.

use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn ends_on(signal: nix::sys::signal::Signal, args: &[String]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, signal).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{args:?} after {signal}: {status}");
            return;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{args:?} still running 5 s after {signal}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_http_exporter_stops_on_sigterm_and_sigint() {
    use nix::sys::signal::Signal;
    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        let listen = format!("127.0.0.1:{}", free_port());
        let args = ["export", "--demo", "--listen", &listen];
        ends_on(signal, &args.map(String::from));
    }
}

#[test]
fn the_textfile_loop_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("restop.prom");
    let args = [
        "export".to_string(),
        "--demo".to_string(),
        "--textfile".to_string(),
        path.display().to_string(),
    ];
    ends_on(nix::sys::signal::Signal::SIGTERM, &args);
    assert!(path.exists());
}

/// The process `parent` started (its only child), once it runs restop.
fn restop_child_of(parent: u32) -> Option<u32> {
    let children =
        std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children")).ok()?;
    let child: u32 = children.split_whitespace().next()?.parse().ok()?;
    let exe = std::fs::read_link(format!("/proc/{child}/exe")).ok()?;
    (exe == std::path::Path::new(env!("CARGO_BIN_EXE_restop"))).then_some(child)
}

/// As PID 1 of its own PID namespace, as in a container, a signal without a
/// handler is ignored: the exporter handles SIGTERM from before its source
/// opens, so a stop during its start-up ends it too (status 0 by the normal
/// path, or 143 when the watchdog ends a first collection that is still going).
#[test]
fn as_pid_1_the_exporter_ends_on_sigterm_from_its_start_up_on() {
    let unshare = std::path::Path::new("/usr/bin/unshare");
    let works = unshare.exists()
        && Command::new(unshare)
            .args(["--pid", "--fork", "--kill-child", "true"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if !works {
        eprintln!("skipped: no unshare or no PID namespaces here");
        return;
    }
    for delay_ms in [30u64, 80, 200, 1_000] {
        let listen = format!("127.0.0.1:{}", free_port());
        let mut child = Command::new(unshare)
            .args(["--pid", "--fork", "--kill-child"])
            .arg(env!("CARGO_BIN_EXE_restop"))
            .args(["export", "--demo", "--listen", &listen])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let found = Instant::now();
        let restop = loop {
            if let Some(pid) = restop_child_of(child.id()) {
                break pid;
            }
            assert!(
                found.elapsed() < Duration::from_secs(20),
                "restop never started"
            );
            std::thread::sleep(Duration::from_millis(2));
        };
        std::thread::sleep(Duration::from_millis(delay_ms));
        let sent = Instant::now();
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(restop as i32),
            nix::sys::signal::Signal::SIGTERM,
        )
        .unwrap();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if sent.elapsed() > Duration::from_secs(3) {
                let _ = child.kill();
                panic!("PID 1 exporter still running 3 s after SIGTERM ({delay_ms} ms in)");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(
            sent.elapsed() < Duration::from_millis(1_500),
            "{delay_ms} ms in: {:?}",
            sent.elapsed()
        );
        assert!(
            matches!(status.code(), Some(0) | Some(143)),
            "{delay_ms} ms in: {status}"
        );
    }
}
