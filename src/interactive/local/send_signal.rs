//! Carries out the signal dialog's `Command::Signal`: the only place restop
//! acts on the host. The process is named by (pid, start time); the start
//! time is read again from `/proc/<pid>/stat` right before `kill(2)`, so a
//! pid that a new process took since the snapshot is never signalled.

use crate::collect::procfs::process_start_time;
use crate::interactive::signal::{SignalKind, SignalOutcome, SignalRequest};
use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::path::Path;

fn nix_signal(kind: SignalKind) -> Signal {
    match kind {
        SignalKind::Term => Signal::SIGTERM,
        SignalKind::Int => Signal::SIGINT,
        SignalKind::Hup => Signal::SIGHUP,
        SignalKind::Kill => Signal::SIGKILL,
    }
}

/// Sends `request` if the process with its pid under `proc_root` (`/proc`)
/// still has its start time; says what happened.
pub fn send(proc_root: &Path, request: &SignalRequest) -> SignalOutcome {
    // kill(0) and kill(-n) signal process groups: only a real pid is taken.
    let Some(pid) = i32::try_from(request.pid).ok().filter(|p| *p > 0) else {
        return SignalOutcome::Failed(format!("{} is not a process id", request.pid));
    };
    match process_start_time(proc_root, request.pid) {
        None => return SignalOutcome::Gone,
        Some(now) if now != request.start_time => return SignalOutcome::Reused,
        Some(_) => {}
    }
    match kill(Pid::from_raw(pid), nix_signal(request.signal)) {
        Ok(()) => SignalOutcome::Sent,
        Err(Errno::EPERM) => SignalOutcome::NotPermitted,
        Err(Errno::ESRCH) => SignalOutcome::Gone,
        Err(e) => SignalOutcome::Failed(e.desc().to_string()),
    }
}
