//! Noticing a lost terminal without the terminal library. When the terminal
//! goes away (a closed tab, a killed tmux server) crossterm's input reader may
//! spin on the dead tty and never report it, and SIGHUP may not reach restop
//! (ignored by a wrapper, sent only to the shell). So the event loop asks the
//! kernel directly on every tick: a hung-up tty shows as POLLHUP/POLLERR on
//! stdin, and a shell that died leaves restop re-parented.

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::unistd::{Pid, getppid};
use std::os::fd::AsFd;

/// What "still attached" meant when the view started.
pub(crate) struct HangupWatch {
    parent: Pid,
}

impl HangupWatch {
    pub(crate) fn new() -> HangupWatch {
        HangupWatch { parent: getppid() }
    }

    /// True when the terminal hung up or the process that started restop is gone.
    pub(crate) fn terminal_lost(&self) -> bool {
        tty_hung_up() || getppid() != self.parent
    }
}

impl Default for HangupWatch {
    fn default() -> Self {
        HangupWatch::new()
    }
}

/// A zero-timeout poll(2) of stdin (the terminal the view reads): the kernel
/// reports POLLHUP once the terminal's other end has closed.
pub(crate) fn tty_hung_up() -> bool {
    let stdin = std::io::stdin();
    let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::empty())];
    match poll(&mut fds, PollTimeout::ZERO) {
        Ok(0) | Err(_) => false,
        Ok(_) => fds[0].revents().is_some_and(|r| {
            r.intersects(PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_process_keeps_its_parent() {
        assert!(getppid() == HangupWatch::new().parent);
        assert!(HangupWatch::new().parent.as_raw() > 0);
    }
}
