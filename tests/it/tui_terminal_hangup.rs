//! The hang-up check on its own: restop on a pseudo-terminal whose master
//! side the test closes, with SIGHUP blocked in restop (the kernel's hang-up
//! signal stays pending) and no input thread (`RESTOP_TEST_NO_INPUT_THREAD`,
//! debug builds only), so nothing but the event loop's poll(2) of the tty
//! (POLLHUP) can notice. restop must be gone within 2 s without burning CPU,
//! and end as after `q` (status 0, nothing on stderr): a write to the dead
//! tty fails too, but that is the hang-up, not an error.
//! No tmux: the test holds the pty itself.

use crate::tui_terminal::assert_gone_without_spinning;
use nix::pty::{Winsize, openpty};
use nix::sys::signal::{SigSet, SigmaskHow, Signal, sigprocmask};
use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The view must come up within this (a debug build on a busy machine).
const WAIT: Duration = Duration::from_secs(30);

/// Reads the master side until the view shows, then closes it: the hang-up.
fn hang_up_once_drawn(master: OwnedFd) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut master = File::from(master);
        let mut seen = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = master.read(&mut chunk) {
            seen.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&seen);
            if text.contains("simulated data") && text.contains("train.py") {
                break;
            }
        }
        // Dropping the only master descriptor hangs the terminal up.
        drop(master);
        let _ = tx.send(String::from_utf8_lossy(&seen).into_owned());
    });
    rx
}

fn sighup_blocked(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigBlk:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (Signal::SIGHUP as u64 - 1)) != 0)
}

#[test]
fn a_hung_up_pty_alone_ends_restop_with_sighup_blocked() {
    let size = Winsize {
        ws_row: 30,
        ws_col: 100,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = openpty(Some(&size), None).unwrap();
    // The child must not inherit the master, or closing ours hangs nothing up.
    nix::fcntl::fcntl(
        &pty.master,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_restop"));
    command
        .args(["--demo", "-d", "200ms"])
        .env("TERM", "xterm-256color")
        .env("RESTOP_TEST_NO_INPUT_THREAD", "1")
        .stdin(Stdio::from(pty.slave.try_clone().unwrap()))
        .stdout(Stdio::from(pty.slave.try_clone().unwrap()))
        .stderr(Stdio::piped());
    // SAFETY: between fork and exec only async-signal-safe calls: setsid,
    // ioctl and sigprocmask, on the child's own descriptors and mask.
    unsafe {
        command.pre_exec(|| {
            // Its own session with the pty as controlling terminal, as a
            // shell's job would have: the hang-up then sends SIGHUP...
            nix::unistd::setsid()?;
            if nix::libc::ioctl(0, nix::libc::TIOCSCTTY, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // ...which stays pending: only the poll of the tty can notice.
            let mut hup = SigSet::empty();
            hup.add(Signal::SIGHUP);
            sigprocmask(SigmaskHow::SIG_BLOCK, Some(&hup), None)?;
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    drop(pty.slave);
    let pid = child.id();
    let drawn = hang_up_once_drawn(pty.master);
    let Ok(screen) = drawn.recv_timeout(WAIT) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the view never came up");
    };
    assert!(screen.contains("simulated data"), "{screen}");
    assert!(sighup_blocked(pid), "SIGHUP blocked in restop");
    let pid = i32::try_from(pid).unwrap();
    assert_gone_without_spinning(pid);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    // Ended as by `q`: a failed write to the dead tty (EIO) would be an error.
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(stderr, "");
}
