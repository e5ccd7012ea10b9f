//! Termination signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) as a request to
//! stop: the handler only sets a flag (all a signal handler may safely do);
//! sessions poll [`stop_requested`] and end through their normal path (the
//! interactive view restores the terminal, `--batch` ends with status 0).
//! A run that cannot get there, blocked in a write or a read, is ended by the
//! [`watchdog`] soon after the signal, with status 128 + the signal's number.
//! The interactive view also takes SIGTSTP and SIGCONT ([`install_job_control`])
//! so it can give the terminal back before stopping and take it again after.

use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
use std::sync::atomic::{AtomicBool, Ordering};

mod terminal;
pub(crate) mod watchdog;

pub use watchdog::{ExitHook, on_forced_exit};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static SUSPEND: AtomicBool = AtomicBool::new(false);
static CONTINUED: AtomicBool = AtomicBool::new(false);

const SIGNALS: [Signal; 4] = [
    Signal::SIGTERM,
    Signal::SIGHUP,
    Signal::SIGINT,
    Signal::SIGQUIT,
];

extern "C" fn on_signal(signal: nix::libc::c_int) {
    REQUESTED.store(true, Ordering::SeqCst);
    watchdog::notify(signal);
}

extern "C" fn on_tstp(_: nix::libc::c_int) {
    SUSPEND.store(true, Ordering::SeqCst);
}

extern "C" fn on_cont(_: nix::libc::c_int) {
    CONTINUED.store(true, Ordering::SeqCst);
}

/// The handlers that were in place before; put back by `Drop`.
pub struct SignalGuard {
    previous: Vec<(Signal, SigAction)>,
    /// Whether this guard keeps the watchdog armed (the termination guard does).
    armed: bool,
}

/// Catches the termination signals until the guard is dropped; while it
/// lives, a run still going [`watchdog::GRACE`] after one is ended.
pub fn install() -> anyhow::Result<SignalGuard> {
    // A guard inside another (the exporter's, installed before its source
    // opens) keeps a signal that came in between.
    if !watchdog::is_armed() {
        REQUESTED.store(false, Ordering::SeqCst);
    }
    watchdog::arm()?;
    let mut guard = SignalGuard {
        previous: Vec::new(),
        armed: true,
    };
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for signal in SIGNALS {
        // SAFETY: the handler only stores to an atomic and writes to a pipe,
        // both async-signal-safe.
        let old = unsafe { sigaction(signal, &action) }?;
        guard.previous.push((signal, old));
    }
    Ok(guard)
}

/// Catches SIGTSTP (as a suspend request) and SIGCONT (as "redraw") until
/// the guard is dropped. Only for the interactive view: everything else keeps
/// the default stop.
pub(crate) fn install_job_control() -> anyhow::Result<SignalGuard> {
    SUSPEND.store(false, Ordering::SeqCst);
    CONTINUED.store(false, Ordering::SeqCst);
    let mut previous = Vec::new();
    for (signal, handler) in [
        (Signal::SIGTSTP, on_tstp as extern "C" fn(nix::libc::c_int)),
        (Signal::SIGCONT, on_cont),
    ] {
        let action = SigAction::new(
            SigHandler::Handler(handler),
            SaFlags::SA_RESTART,
            SigSet::empty(),
        );
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        let old = unsafe { sigaction(signal, &action) }?;
        previous.push((signal, old));
    }
    Ok(SignalGuard {
        previous,
        armed: false,
    })
}

/// A SIGTSTP arrived since the last call (clears the request).
pub(crate) fn take_suspend_request() -> bool {
    SUSPEND.swap(false, Ordering::SeqCst)
}

/// A SIGCONT arrived since the last call (clears it).
pub(crate) fn take_continued() -> bool {
    CONTINUED.swap(false, Ordering::SeqCst)
}

/// A termination signal arrived since `install`.
pub(crate) fn stop_requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        for (signal, old) in self.previous.drain(..) {
            // SAFETY: restoring the handler that was installed before ours.
            let _ = unsafe { sigaction(signal, &old) };
        }
        if self.armed {
            watchdog::disarm();
        }
    }
}
