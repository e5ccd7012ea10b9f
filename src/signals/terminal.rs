//! The terminal's settings as they were when the first signal guard was
//! installed, put back by a forced exit (watchdog.rs) when something (the
//! interactive view) has changed them since: a shell left in raw mode,
//! without echo, is what a forced exit must never leave behind.
//!
//! Only the settings are put back with certainty (`tcsetattr` does not wait
//! for the terminal to read). The escape sequences that leave the alternate
//! screen and show the cursor are written without blocking, so a terminal
//! that has stopped reading cannot hold the exit back; they are lost then.

use nix::fcntl::OFlag;
use nix::sys::stat::Mode;
use nix::sys::termios::{self, LocalFlags, SetArg, Termios};
use std::fs::File;
use std::io::Write;

/// Leaves mouse reporting and the alternate screen, shows the cursor.
const LEAVE_VIEW: &[u8] = b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?25h\x1b[?1049l";

/// The controlling terminal's settings, when there is one.
pub(super) struct Saved(Option<Termios>);

fn open_tty() -> Option<File> {
    let fd = nix::fcntl::open(
        "/dev/tty",
        OFlag::O_RDWR | OFlag::O_NONBLOCK | OFlag::O_NOCTTY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    Some(File::from(fd))
}

impl Saved {
    pub(super) fn capture() -> Saved {
        Saved(open_tty().and_then(|tty| termios::tcgetattr(&tty).ok()))
    }

    /// Puts the settings back if the canonical mode or echo changed.
    pub(super) fn restore(&self) {
        let Some(saved) = &self.0 else { return };
        let Some(mut tty) = open_tty() else { return };
        let Ok(now) = termios::tcgetattr(&tty) else {
            return;
        };
        let watched = LocalFlags::ICANON | LocalFlags::ECHO;
        if now.local_flags & watched == saved.local_flags & watched {
            return;
        }
        let _ = termios::tcsetattr(&tty, SetArg::TCSANOW, saved);
        let _ = tty.write(LEAVE_VIEW);
    }
}
