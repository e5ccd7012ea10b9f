//! The hang-up checks on their own: restop on a pseudo-terminal the test
//! holds (no tmux), with SIGHUP blocked in restop (the kernel's hang-up signal
//! stays pending) and no input thread (`RESTOP_TEST_NO_INPUT_THREAD`, debug
//! builds only), so nothing but the event loop's own checks can notice:
//! - the pty's master closed: only the poll(2) of the tty (POLLHUP);
//! - the shell that started restop killed, the pty still open: only the
//!   parent-changed check.
//!
//! restop must be gone within 2 s without burning CPU, and end as after `q`
//! (nothing on stderr, status 0 where the test can see it): a write to a dead
//! tty fails too, but that is the hang-up, not an error.

use crate::tui_terminal::{assert_gone_without_spinning, restop_under};
use nix::pty::{Winsize, openpty};
use nix::sys::signal::{SigSet, SigmaskHow, Signal, sigprocmask};
use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The view must come up within this (a debug build on a busy machine).
const WAIT: Duration = Duration::from_secs(30);

/// Starts `command` on a new pty, in its own session with the pty as its
/// controlling terminal (as a shell's job has) and SIGHUP blocked; returns it
/// and the master side.
fn spawn_on_a_pty(mut command: Command) -> (Child, OwnedFd) {
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
    command
        .env("TERM", "xterm-256color")
        .env("RESTOP_TEST_NO_INPUT_THREAD", "1")
        .stdin(Stdio::from(pty.slave.try_clone().unwrap()))
        .stdout(Stdio::from(pty.slave.try_clone().unwrap()))
        .stderr(Stdio::piped());
    // SAFETY: between fork and exec only async-signal-safe calls: setsid,
    // ioctl and sigprocmask, on the child's own descriptors and mask.
    unsafe {
        command.pre_exec(|| {
            // A hang-up of the controlling terminal sends SIGHUP...
            nix::unistd::setsid()?;
            if nix::libc::ioctl(0, nix::libc::TIOCSCTTY, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // ...which stays pending (the mask is inherited across exec).
            let mut hup = SigSet::empty();
            hup.add(Signal::SIGHUP);
            sigprocmask(SigmaskHow::SIG_BLOCK, Some(&hup), None)?;
            Ok(())
        });
    }
    let child = command.spawn().unwrap();
    drop(pty.slave);
    (child, pty.master)
}

/// Reads the master side until the view shows, reports it, then goes on
/// reading (so restop's writes never block) unless `close` is set, in which
/// case it closes the master at once: the hang-up.
fn read_until_drawn(master: OwnedFd, close: bool) -> mpsc::Receiver<String> {
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
        let _ = tx.send(String::from_utf8_lossy(&seen).into_owned());
        if close {
            // Dropping the only master descriptor hangs the terminal up.
            return;
        }
        while let Ok(1..) = master.read(&mut chunk) {}
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

/// Waits for the view; kills `child` and fails if it never comes.
fn wait_drawn(drawn: &mpsc::Receiver<String>, child: &mut Child) {
    let Ok(screen) = drawn.recv_timeout(WAIT) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the view never came up");
    };
    assert!(screen.contains("simulated data"), "{screen}");
}

fn stderr_of(child: &mut Child) -> String {
    let mut stderr = String::new();
    let mut pipe = child.stderr.take().unwrap();
    pipe.read_to_string(&mut stderr).unwrap();
    stderr
}

#[test]
fn a_hung_up_pty_alone_ends_restop_with_sighup_blocked() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_restop"));
    command.args(["--demo", "-d", "200ms"]);
    let (mut child, master) = spawn_on_a_pty(command);
    wait_drawn(&read_until_drawn(master, true), &mut child);
    assert!(sighup_blocked(child.id()), "SIGHUP blocked in restop");
    assert_gone_without_spinning(i32::try_from(child.id()).unwrap());
    let stderr = stderr_of(&mut child);
    let status = child.wait().unwrap();
    // Ended as by `q`: a failed write to the dead tty (EIO) would be an error.
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn a_killed_parent_alone_ends_restop_on_a_live_pty() {
    // restop as a shell's background job; the shell keeps the tty on fd 3
    // because a background job's stdin is /dev/null before redirections.
    let mut shell = Command::new("/bin/sh");
    shell.args([
        "-c",
        r#"exec 3<&0; "$0" --demo -d 200ms <&3 3<&- & wait"#,
        env!("CARGO_BIN_EXE_restop"),
    ]);
    let (mut sh, master) = spawn_on_a_pty(shell);
    // The master stays open (and read) throughout: no hang-up to see.
    wait_drawn(&read_until_drawn(master, false), &mut sh);
    let sh_pid = i32::try_from(sh.id()).unwrap();
    let restop = restop_under(sh_pid).expect("restop under the shell");
    assert!(sighup_blocked(restop as u32), "SIGHUP blocked in restop");
    sh.kill().unwrap();
    sh.wait().unwrap();
    assert_gone_without_spinning(restop);
    // Not restop's parent any more: no status to read, but an error would
    // have said so on stderr (which restop shares with the shell).
    assert_eq!(stderr_of(&mut sh), "");
}
