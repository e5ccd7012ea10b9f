//! Job control like htop's: Ctrl-Z (a key in raw mode) or SIGTSTP gives the
//! terminal back (cooked mode, primary screen, cursor, no mouse) and stops
//! restop; on continue it takes the terminal again and redraws all of it.
//!
//! Continued in the background (`kill -CONT`, `bg`), restop must not touch
//! the terminal: setting its mode or reading from it would stop restop again
//! with SIGTTOU/SIGTTIN, where a SIGTERM could not end it. So the view stays
//! away (the input thread parked, nothing drawn) until restop is in the
//! terminal's foreground process group again (`fg`); termination signals end
//! it meanwhile as usual.

use crate::interactive::event::Event;
use crate::interactive::terminal::input;
use crate::interactive::terminal::tty::{self, Tty};
use crate::signals;
use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};
use nix::sys::signal::{Signal, raise};
use nix::unistd::{getpgrp, tcgetpgrp};

/// Ctrl-Z, which raw mode delivers as a key instead of a signal.
pub(crate) fn is_suspend_key(event: &Event) -> bool {
    matches!(event, Event::Key(k)
        if k.code == KeyCode::Char('z')
            && k.modifiers.contains(KeyModifiers::CONTROL)
            && k.kind != KeyEventKind::Release)
}

/// Where the view is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Presence {
    /// Full-screen on the terminal, drawn every turn.
    Shown,
    /// The terminal is the shell's: restop runs in the background.
    Away,
}

/// True when restop may use the terminal: it is in the terminal's foreground
/// process group, or the terminal is not its controlling one (no job control
/// then, and no SIGTTOU either).
pub(crate) fn in_foreground() -> bool {
    match tcgetpgrp(std::io::stdin()) {
        Ok(group) => group == getpgrp(),
        Err(_) => true,
    }
}

/// Restores the terminal, stops until SIGCONT, then takes the terminal back
/// if restop was continued in the foreground.
pub(crate) fn suspend(tty: &mut Tty, mouse: bool) -> anyhow::Result<Presence> {
    input::park();
    tty::suspend();
    // SIGSTOP cannot be caught: the shell sees restop stopped, as after Ctrl-Z.
    raise(Signal::SIGSTOP)?;
    continued(tty, mouse)
}

/// After a SIGCONT (or a stop restop did not ask for: the shell may have
/// reset raw mode): in the foreground take the terminal again and clear it
/// for a full redraw; in the background let go of it without waiting on it.
pub(crate) fn continued(tty: &mut Tty, mouse: bool) -> anyhow::Result<Presence> {
    let _ = signals::take_continued();
    if !in_foreground() {
        input::park();
        // Only does something when the stop came from outside (SIGSTOP).
        tty::restore();
        return Ok(Presence::Away);
    }
    tty::resume(mouse)?;
    tty.clear()?;
    input::unpark();
    Ok(Presence::Shown)
}
