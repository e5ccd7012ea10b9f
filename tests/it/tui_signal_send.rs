//! The signal executor on real processes: a throwaway `sleep 300` gets the
//! signal only while its (pid, start time) still match; a start time that
//! differs (a reused pid) or a pid that is gone sends nothing; another user's
//! process is "not permitted". Every `sleep` is ended and reaped.

use crate::support::fake_proc::FakeProc;
use restop::collect::procfs::process_start_time;
use restop::interactive::app::signal::{SignalKind, SignalOutcome, SignalRequest};
use restop::interactive::local::send_signal::send;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const PROC: &str = "/proc";

fn sleeper() -> Child {
    Command::new("sleep").arg("300").spawn().unwrap()
}

fn request(child: &Child, signal: SignalKind) -> SignalRequest {
    let pid = child.id();
    let start_time = process_start_time(Path::new(PROC), pid).expect("start time of sleep");
    SignalRequest {
        pid,
        start_time,
        signal,
    }
}

/// Waits (at most 10 s) for `child` to exit; its status, `None` if it did not.
fn exited(child: &mut Child) -> Option<std::process::ExitStatus> {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// Ends `child` and checks it is gone.
fn end(mut child: Child) {
    let _ = child.kill();
    child.wait().unwrap();
    assert!(process_start_time(Path::new(PROC), child.id()).is_none());
}

fn still_running(child: &mut Child) -> bool {
    child.try_wait().unwrap().is_none()
}

#[test]
fn term_reaches_the_process_whose_start_time_matches() {
    let mut child = sleeper();
    let outcome = send(Path::new(PROC), &request(&child, SignalKind::Term));
    assert_eq!(outcome, SignalOutcome::Sent);
    let status = exited(&mut child).expect("sleep ended by SIGTERM");
    assert_eq!(status.signal(), Some(15));
    end(child);
}

#[test]
fn kill_reaches_it_too() {
    let mut child = sleeper();
    let outcome = send(Path::new(PROC), &request(&child, SignalKind::Kill));
    assert_eq!(outcome, SignalOutcome::Sent);
    assert_eq!(exited(&mut child).unwrap().signal(), Some(9));
    end(child);
}

#[test]
fn a_different_start_time_is_a_reused_pid_and_nothing_is_sent() {
    let mut child = sleeper();
    let mut req = request(&child, SignalKind::Kill);
    req.start_time += 1;
    assert_eq!(send(Path::new(PROC), &req), SignalOutcome::Reused);
    // The same check against a fake /proc where the pid has another start time.
    let fake = FakeProc::new();
    fake.process(
        child.id(),
        "sleep",
        req.start_time + 50,
        &["sleep", "300"],
        0,
    );
    assert_eq!(send(fake.root(), &req), SignalOutcome::Reused);
    std::thread::sleep(Duration::from_millis(100));
    assert!(still_running(&mut child), "no signal reached it");
    end(child);
}

#[test]
fn a_pid_that_is_gone_gets_nothing() {
    let mut child = sleeper();
    let req = request(&child, SignalKind::Term);
    let fake = FakeProc::new();
    assert_eq!(send(fake.root(), &req), SignalOutcome::Gone);
    assert!(still_running(&mut child));
    end(child);
    assert_eq!(send(Path::new(PROC), &req), SignalOutcome::Gone);
}

#[test]
fn pid_zero_is_never_a_process_group() {
    let req = SignalRequest {
        pid: 0,
        start_time: 1,
        signal: SignalKind::Term,
    };
    assert!(matches!(
        send(Path::new(PROC), &req),
        SignalOutcome::Failed(_)
    ));
}

const EPERM_CHILD: &str = "RESTOP_TEST_SIGNAL_AS_NOBODY";

/// Run as `nobody` (the test re-executed): signal the pid in the
/// environment, which belongs to another user, and print the outcome.
#[test]
fn another_users_process_is_not_permitted() {
    if let Ok(spec) = std::env::var(EPERM_CHILD) {
        assert_ne!(nix::unistd::geteuid().as_raw(), 0, "must not run as root");
        let (pid, start) = spec.split_once(':').unwrap();
        let req = SignalRequest {
            pid: pid.parse().unwrap(),
            start_time: start.parse().unwrap(),
            signal: SignalKind::Term,
        };
        println!("OUTCOME={:?}", send(Path::new(PROC), &req));
        return;
    }
    if !nix::unistd::geteuid().is_root() {
        // Unprivileged: any root-owned process answers EPERM. pid 1 is one
        // (checked), and the check is read-only there: the start time
        // is its own, so the only effect is the refused kill(2).
        let init = process_start_time(Path::new(PROC), 1);
        let Some(start_time) = init else { return };
        let req = SignalRequest {
            pid: 1,
            start_time,
            signal: SignalKind::Hup,
        };
        let outcome = send(Path::new(PROC), &req);
        if outcome != SignalOutcome::Sent {
            assert_eq!(outcome, SignalOutcome::NotPermitted);
        }
        return;
    }
    let mut child = sleeper();
    let req = request(&child, SignalKind::Term);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "tui_signal_send::another_users_process_is_not_permitted",
            "--nocapture",
        ])
        .env(EPERM_CHILD, format!("{}:{}", req.pid, req.start_time))
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(still_running(&mut child), "the sleep was not signalled");
    end(child);
    assert!(
        stdout.contains("OUTCOME=NotPermitted"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
