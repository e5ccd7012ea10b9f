//! Waiters that stop on a request: a polled flag (termination signals,
//! tests' closures) and the exporter's condition variable.

use super::pace::{Waiter, Wake};
use crate::export::Stop;
use std::thread;
use std::time::{Duration, Instant};

/// How long a polled wait sleeps before it looks at the flag again.
const POLL: Duration = Duration::from_millis(50);

/// Waits by sleeping in short steps, stopping once `stop()` says so.
pub struct PollStop<'a> {
    stop: &'a dyn Fn() -> bool,
}

impl<'a> PollStop<'a> {
    pub fn new(stop: &'a dyn Fn() -> bool) -> PollStop<'a> {
        PollStop { stop }
    }
}

/// Stops on SIGINT, SIGTERM or SIGHUP (see `crate::signals`).
pub fn on_signals() -> PollStop<'static> {
    PollStop::new(&crate::signals::stop_requested)
}

impl Waiter for PollStop<'_> {
    fn wait(&mut self, deadline: Option<Instant>) -> Wake {
        loop {
            if (self.stop)() {
                return Wake::Stop;
            }
            let now = Instant::now();
            let step = match deadline {
                Some(due) if now >= due => return Wake::Due,
                Some(due) => (due - now).min(POLL),
                None => POLL,
            };
            thread::sleep(step);
        }
    }
}

/// The exporter's stop: woken at once by `Stop::stop`, no polling.
impl Waiter for &Stop {
    fn wait(&mut self, deadline: Option<Instant>) -> Wake {
        let stopped = match deadline {
            Some(due) => self.wait_until(due),
            // Nothing is due: only a stop can end the wait.
            None => loop {
                if self.wait_until(Instant::now() + Duration::from_secs(3600)) {
                    break true;
                }
            },
        };
        if stopped { Wake::Stop } else { Wake::Due }
    }
}
