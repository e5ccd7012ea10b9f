//! The last resort behind the termination signals: a run that cannot reach
//! its normal end (blocked in a write to a full pipe or a stopped reader, on
//! a slow disk, in a netlink read) still ends soon after the signal.
//!
//! The signal handler can only set a flag, and a thread blocked in
//! `write(2)` never looks at it: `SA_RESTART` resumes the write, and
//! `write_all` retries on `EINTR` even without it. So a thread of its own
//! waits on a pipe the handler writes the signal's number to. When the run
//! has not ended [`GRACE`] after the signal, it runs the exit hooks (the
//! recording finishes its frame and is synced; a terminal left in raw mode
//! is put back) for at most [`HOOK_TIME`], then ends the process with
//! `_exit(128 + signal)`, the status a shell gives a process killed by that
//! signal. `_exit` because nothing else is safe: the normal exit would flush
//! stdout, and stdout is what the run is blocked on.

use nix::libc;
use std::os::fd::{OwnedFd, RawFd};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// How long the normal path has to end the run after a termination signal.
pub(crate) const GRACE: Duration = Duration::from_millis(400);

/// How long the exit hooks may take before the process ends anyway (a disk
/// that does not answer must not hold the exit back).
pub(crate) const HOOK_TIME: Duration = Duration::from_millis(300);

/// The write end of the watchdog's pipe, for the signal handler; -1 before
/// the watchdog runs.
static PIPE_WRITE: AtomicI32 = AtomicI32::new(-1);

/// Signal guards alive: the watchdog acts only while there is one.
static ARMED: AtomicUsize = AtomicUsize::new(0);

static STARTED: OnceLock<()> = OnceLock::new();

type Hook = Box<dyn Fn() + Send>;

/// What must happen before a forced exit, by registration number.
static HOOKS: Mutex<Vec<(u64, Hook)>> = Mutex::new(Vec::new());
static NEXT_HOOK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Removes its hook when dropped.
#[derive(Debug)]
pub struct ExitHook {
    id: u64,
}

/// Runs `hook` before a forced exit, until the returned guard is dropped.
/// The hook runs on another thread than the one blocked, so it must only
/// take locks that thread lets go of (or none).
pub fn on_forced_exit(hook: impl Fn() + Send + 'static) -> ExitHook {
    let id = NEXT_HOOK.fetch_add(1, Ordering::SeqCst);
    if let Ok(mut hooks) = HOOKS.lock() {
        hooks.push((id, Box::new(hook)));
    }
    ExitHook { id }
}

impl Drop for ExitHook {
    fn drop(&mut self) {
        if let Ok(mut hooks) = HOOKS.lock() {
            hooks.retain(|(id, _)| *id != self.id);
        }
    }
}

/// Called from the signal handler: only async-signal-safe work (an atomic
/// load and a non-blocking `write(2)`).
pub(crate) fn notify(signal: libc::c_int) {
    let fd = PIPE_WRITE.load(Ordering::SeqCst);
    if fd >= 0 {
        let byte = u8::try_from(signal).unwrap_or(0);
        // SAFETY: writing one byte from a live buffer to a pipe we own; the
        // write end is non-blocking, so a full pipe only drops the byte.
        let _ = unsafe { libc::write(fd, std::ptr::from_ref(&byte).cast(), 1) };
    }
}

/// A signal guard now exists: starts the watchdog on first use.
pub(crate) fn arm() -> std::io::Result<()> {
    if STARTED.get().is_none() {
        start()?;
        let _ = STARTED.set(());
    }
    ARMED.fetch_add(1, Ordering::SeqCst);
    Ok(())
}

/// A signal guard was dropped.
/// True while a signal guard is alive.
pub(crate) fn is_armed() -> bool {
    ARMED.load(Ordering::SeqCst) > 0
}

pub(crate) fn disarm() {
    let _ = ARMED.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
}

fn start() -> std::io::Result<()> {
    let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
    nix::fcntl::fcntl(
        &write,
        nix::fcntl::FcntlArg::F_SETFL(nix::fcntl::OFlag::O_NONBLOCK),
    )?;
    let terminal = super::terminal::Saved::capture();
    std::thread::Builder::new()
        .name("restop-watchdog".into())
        .spawn(move || watch(&read, &terminal))?;
    // The write end lives as long as the process: the handler may use it at any time.
    let write: RawFd = std::os::fd::IntoRawFd::into_raw_fd(write);
    PIPE_WRITE.store(write, Ordering::SeqCst);
    Ok(())
}

fn watch(read: &OwnedFd, terminal: &super::terminal::Saved) {
    loop {
        let mut byte = [0u8; 1];
        match nix::unistd::read(read, &mut byte) {
            Ok(1) => {}
            Ok(_) => return,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return,
        }
        if ARMED.load(Ordering::SeqCst) == 0 {
            continue;
        }
        std::thread::sleep(GRACE);
        if ARMED.load(Ordering::SeqCst) == 0 {
            continue;
        }
        run_hooks();
        terminal.restore();
        // SAFETY: `_exit` ends the process at once; nothing runs after it.
        unsafe { libc::_exit(128 + i32::from(byte[0])) }
    }
}

/// Runs every hook on a thread of its own, waiting at most `HOOK_TIME`.
fn run_hooks() {
    let (done, finished) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("restop-exit".into())
        .spawn(move || {
            if let Ok(hooks) = HOOKS.lock() {
                for (_, hook) in hooks.iter() {
                    hook();
                }
            }
            let _ = done.send(());
        });
    if spawned.is_ok() {
        let _ = finished.recv_timeout(HOOK_TIME);
    }
}
