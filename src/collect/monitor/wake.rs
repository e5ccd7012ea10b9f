//! The bell device-event listeners ring: one per process, so the session's
//! wait (`session/events.rs`) hears every listener, whichever namespace it
//! listens in, without a channel threaded through every source.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Rung once per datagram of events; read by the session's wait.
#[derive(Debug, Default)]
pub(crate) struct Bell {
    rung: AtomicU64,
    listeners: AtomicUsize,
}

static BELL: Bell = Bell {
    rung: AtomicU64::new(0),
    listeners: AtomicUsize::new(0),
};

/// The one bell of the process.
pub(crate) fn bell() -> &'static Bell {
    &BELL
}

impl Bell {
    pub(crate) fn ring(&self) {
        self.rung.fetch_add(1, Ordering::SeqCst);
    }

    /// How many times it rang so far.
    pub(crate) fn rung(&self) -> u64 {
        self.rung.load(Ordering::SeqCst)
    }

    /// Whether any listener runs.
    pub(crate) fn listening(&self) -> bool {
        self.listeners.load(Ordering::SeqCst) > 0
    }

    /// Counts one more listener (tests of the wait stand in for one).
    #[cfg(test)]
    pub(crate) fn add_listener(&self) {
        self.listeners.fetch_add(1, Ordering::SeqCst);
    }
}

/// Counts a listener while it lives.
#[derive(Debug)]
pub(crate) struct Active(());

impl Active {
    pub(crate) fn new() -> Active {
        BELL.listeners.fetch_add(1, Ordering::SeqCst);
        Active(())
    }
}

impl Default for Active {
    fn default() -> Self {
        Active::new()
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        BELL.listeners.fetch_sub(1, Ordering::SeqCst);
    }
}
