//! Job control like htop's: Ctrl-Z (a key in raw mode) or SIGTSTP gives the
//! terminal back (cooked mode, primary screen, cursor, no mouse) and stops
//! restop; on continue it takes the terminal again and redraws all of it.

use super::terminal::{self, Tty};
use crate::app::Event;
use crate::signals;
use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};
use nix::sys::signal::{Signal, raise};

/// Ctrl-Z, which raw mode delivers as a key instead of a signal.
pub fn is_suspend_key(event: &Event) -> bool {
    matches!(event, Event::Key(k)
        if k.code == KeyCode::Char('z')
            && k.modifiers.contains(KeyModifiers::CONTROL)
            && k.kind != KeyEventKind::Release)
}

/// Restores the terminal, stops until SIGCONT, then takes the terminal back.
pub fn suspend(tty: &mut Tty) -> anyhow::Result<()> {
    let mouse = terminal::suspend();
    // SIGSTOP cannot be caught: the shell sees restop stopped, as after Ctrl-Z.
    raise(Signal::SIGSTOP)?;
    resume(tty, mouse)
}

/// After a stop restop did not ask for (SIGSTOP from outside) or a SIGCONT:
/// raw mode may have been reset by the shell, so take the terminal again.
pub fn resume(tty: &mut Tty, mouse: bool) -> anyhow::Result<()> {
    let _ = signals::take_continued();
    terminal::resume(mouse)?;
    tty.clear()?;
    Ok(())
}
