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
