//! Entering and leaving full-screen mode. Whatever way the program ends (quit,
//! error, panic, signal) the terminal gets its cooked mode, primary screen,
//! cursor and mouse back.
//!
//! A panic in any thread (the collector, say) restores the terminal from the
//! panic hook and marks the view as over: the event loop then draws no more
//! (a frame on the cooked screen would bury the message) and ends with an
//! error. Drawing and restoring share one lock, so the restore never lands in
//! the middle of a frame.
//!
//! Restoring may happen while restop is in the background (continued there
//! after a stop, then sent SIGTERM): SIGTTOU is blocked around it, since the
//! default action would stop restop for good instead of letting it exit.

use crossterm::cursor::{Hide, Show};
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
    is_raw_mode_enabled,
};
use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{Stdout, stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// Full-screen mode is on (raw mode may be on even if the rest failed).
static ACTIVE: AtomicBool = AtomicBool::new(false);
static MOUSE: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();
/// Some thread panicked: the screen is the message's now.
static PANICKED: AtomicBool = AtomicBool::new(false);
/// Held while a frame is drawn and while the terminal is restored.
static SCREEN: Mutex<()> = Mutex::new(());
/// How long the panic hook waits for a frame being drawn to finish (the
/// panicking thread may be the one drawing, and holds the lock then).
const FRAME_WAIT: Duration = Duration::from_millis(500);

pub(crate) type Tty = Terminal<CrosstermBackend<Stdout>>;

/// Holds the terminal in full-screen mode; dropping it restores the terminal.
pub(crate) struct TerminalGuard {
    terminal: Tty,
}

impl TerminalGuard {
    pub(crate) fn enter(mouse: bool) -> anyhow::Result<TerminalGuard> {
        install_panic_hook();
        // Marked active first so a failure half-way still gets undone.
        ACTIVE.store(true, Ordering::SeqCst);
        let entered = (|| -> anyhow::Result<Tty> {
            // Taking the terminal the first time is taking it again after a stop.
            resume(mouse)?;
            Ok(Terminal::new(CrosstermBackend::new(stdout()))?)
        })();
        match entered {
            Ok(terminal) => Ok(TerminalGuard { terminal }),
            Err(e) => {
                restore();
                Err(e.context("cannot switch the terminal to full-screen mode"))
            }
        }
    }

    pub(crate) fn terminal(&mut self) -> &mut Tty {
        &mut self.terminal
    }

    /// Restores what can be restored of a terminal that went away and leaks
    /// the ratatui handle: its drop would only report on stderr that the dead
    /// terminal cannot show the cursor. The process is about to exit.
    pub(crate) fn release_lost(self) {
        restore();
        std::mem::forget(self);
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back. Safe to call more than once and from a panic hook;
/// errors are ignored because there is nothing better to do with them here.
pub(crate) fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    without_sigttou(|| {
        let mut out = stdout();
        if MOUSE.swap(false, Ordering::SeqCst) {
            let _ = execute!(out, DisableMouseCapture);
        }
        let _ = execute!(out, LeaveAlternateScreen, Show);
        let _ = disable_raw_mode();
    });
}

/// Runs `f` with SIGTTOU blocked on this thread: a process outside the
/// terminal's foreground group may then write to it and set its mode
/// instead of being stopped (the kernel skips the signal when blocked).
fn without_sigttou(f: impl FnOnce()) {
    let mut block = SigSet::empty();
    block.add(Signal::SIGTTOU);
    let mut previous = SigSet::empty();
    let blocked = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&block), Some(&mut previous));
    f();
    if blocked.is_ok() {
        let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&previous), None);
    }
}

/// Draws one frame with `draw` unless a panic has given the screen to its
/// message; `None` then.
pub(crate) fn draw_frame<T>(draw: impl FnOnce() -> T) -> Option<T> {
    let _frame = SCREEN.lock().unwrap_or_else(|e| e.into_inner());
    if panicked() {
        return None;
    }
    IN_FRAME.set(true);
    let drawn = draw();
    IN_FRAME.set(false);
    Some(drawn)
}

thread_local! {
    /// This thread holds [`SCREEN`] for a frame (a panic there must not wait for it).
    static IN_FRAME: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A thread panicked since the view started.
pub(crate) fn panicked() -> bool {
    PANICKED.load(Ordering::SeqCst)
}

/// Gives the terminal back for a stop (Ctrl-Z); returns whether mouse
/// capture was on, for [`resume`].
pub(crate) fn suspend() -> bool {
    let mouse = MOUSE.load(Ordering::SeqCst);
    restore();
    mouse
}

/// Takes the terminal again after a stop: raw mode, alternate screen, no
/// cursor, mouse capture as before. The caller redraws everything.
/// The caller checked that restop is in the foreground; SIGTTOU is blocked
/// anyway, so being sent to the background just then cannot stop it for good.
pub(crate) fn resume(mouse: bool) -> anyhow::Result<()> {
    ACTIVE.store(true, Ordering::SeqCst);
    let mut result = Ok(());
    without_sigttou(|| {
        result = (|| -> anyhow::Result<()> {
            // After a stop restop did not ask for (SIGSTOP) the terminal
            // library still thinks raw mode is on while the shell has put
            // its own mode back; enabling would then do nothing.
            if is_raw_mode_enabled()? {
                disable_raw_mode()?;
            }
            enable_raw_mode()?;
            let mut out = stdout();
            execute!(out, EnterAlternateScreen, Hide)?;
            if mouse {
                MOUSE.store(true, Ordering::SeqCst);
                execute!(out, EnableMouseCapture)?;
            }
            Ok(())
        })();
    });
    result
}

/// Restores the terminal before the previous hook prints the panic message,
/// so the message lands on a usable screen.
fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICKED.store(true, Ordering::SeqCst);
            // Not `lock`: the panicking thread may hold it (mid-frame).
            let started = Instant::now();
            let frame = loop {
                if IN_FRAME.get() {
                    break None;
                }
                match SCREEN.try_lock() {
                    Ok(guard) => break Some(guard),
                    Err(std::sync::TryLockError::Poisoned(e)) => break Some(e.into_inner()),
                    Err(std::sync::TryLockError::WouldBlock) if started.elapsed() < FRAME_WAIT => {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(std::sync::TryLockError::WouldBlock) => break None,
                }
            };
            restore();
            drop(frame);
            previous(info);
        }));
    });
}
