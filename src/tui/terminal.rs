//! Entering and leaving full-screen mode. Whatever way the program ends (quit,
//! error, panic, signal) the terminal gets its cooked mode, primary screen,
//! cursor and mouse back.

use crossterm::cursor::{Hide, Show};
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{Stdout, stdout};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

/// Full-screen mode is on (raw mode may be on even if the rest failed).
static ACTIVE: AtomicBool = AtomicBool::new(false);
static MOUSE: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();

pub type Tty = Terminal<CrosstermBackend<Stdout>>;

/// Holds the terminal in full-screen mode; dropping it restores the terminal.
pub struct TerminalGuard {
    terminal: Tty,
}

impl TerminalGuard {
    pub fn enter(mouse: bool) -> anyhow::Result<TerminalGuard> {
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

    pub fn terminal(&mut self) -> &mut Tty {
        &mut self.terminal
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back. Safe to call more than once and from a panic hook;
/// errors are ignored because there is nothing better to do with them here.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = stdout();
    if MOUSE.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, DisableMouseCapture);
    }
    let _ = execute!(out, LeaveAlternateScreen, Show);
    let _ = disable_raw_mode();
}

/// Gives the terminal back for a stop (Ctrl-Z); returns whether mouse
/// capture was on, for [`resume`].
pub fn suspend() -> bool {
    let mouse = MOUSE.load(Ordering::SeqCst);
    restore();
    mouse
}

/// Takes the terminal again after a stop: raw mode, alternate screen, no
/// cursor, mouse capture as before. The caller redraws everything.
pub fn resume(mouse: bool) -> anyhow::Result<()> {
    ACTIVE.store(true, Ordering::SeqCst);
    enable_raw_mode()?;
    let mut out = stdout();
    execute!(out, EnterAlternateScreen, Hide)?;
    if mouse {
        MOUSE.store(true, Ordering::SeqCst);
        execute!(out, EnableMouseCapture)?;
    }
    Ok(())
}

/// Restores the terminal before the previous hook prints the panic message,
/// so the message lands on a usable screen.
fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}
