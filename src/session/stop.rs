//! How a session is told to stop: a polled flag (termination signals,
//! tests' closures), or a [`Stop`] shared with other threads (the exporter's
//! HTTP server waits on the same one), woken at once by a condition variable;
//! [`stop_on_signals`] turns the termination signals into that stop.

use super::pace::{Waiter, Wake};
use crate::signals::SignalGuard;
use anyhow::{Context, Result};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// How long a polled wait sleeps before it looks at the flag again.
const POLL: Duration = Duration::from_millis(50);

/// How often the signal thread of [`stop_on_signals`] looks for a request.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// Waits by sleeping in short steps, stopping once `stop()` says so.
pub struct PollStop<'a> {
    stop: &'a dyn Fn() -> bool,
}

impl<'a> PollStop<'a> {
    /// Polls `stop` every 50 ms while waiting; true ends the wait with `Wake::Stop`.
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

/// Asks a session (and whatever else waits on it) to stop, waking it from
/// its sleep.
#[derive(Debug, Default)]
pub struct Stop {
    stopped: Mutex<bool>,
    wake: Condvar,
}

impl Stop {
    /// A stop not yet requested, shared by who stops and who waits.
    pub fn new() -> Arc<Stop> {
        Arc::new(Stop::default())
    }

    /// Requests the stop and wakes every waiter.
    pub fn stop(&self) {
        *self.stopped.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.wake.notify_all();
    }

    /// Whether the stop was requested.
    pub fn is_stopped(&self) -> bool {
        *self.stopped.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sleeps until `deadline` or a stop; true when stopped.
    pub fn wait_until(&self, deadline: Instant) -> bool {
        let mut stopped = self.stopped.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if *stopped {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            stopped = self
                .wake
                .wait_timeout(stopped, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// Woken at once by `Stop::stop`, no polling.
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

/// SIGTERM, SIGINT, SIGHUP and SIGQUIT stop `stop`, then `also` runs (the
/// exporter wakes its listener there). A clean stop, also as PID 1 of a
/// container, where signals have no default action and would be ignored.
/// The handlers stay installed while the guard lives.
pub fn stop_on_signals(
    stop: Arc<Stop>,
    also: impl FnOnce() + Send + 'static,
) -> Result<SignalGuard> {
    let guard = crate::signals::install()?;
    thread::Builder::new()
        .name("restop-signals".into())
        .spawn(move || {
            while !stop.is_stopped() {
                if crate::signals::stop_requested() {
                    stop.stop();
                    also();
                    return;
                }
                thread::sleep(SIGNAL_POLL);
            }
        })
        .context("starting the signal thread")?;
    Ok(guard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_wakes_a_sleeping_wait() {
        let stop = Stop::new();
        let far = Instant::now() + Duration::from_secs(60);
        let s = Arc::clone(&stop);
        let t = thread::spawn(move || s.wait_until(far));
        thread::sleep(Duration::from_millis(20));
        stop.stop();
        assert!(t.join().unwrap());
    }

    #[test]
    fn a_stop_ends_a_wait_without_a_deadline() {
        let stop = Stop::new();
        let s = Arc::clone(&stop);
        let t = thread::spawn(move || (&*s).wait(None));
        thread::sleep(Duration::from_millis(20));
        stop.stop();
        assert_eq!(t.join().unwrap(), Wake::Stop);
        assert_eq!((&*stop).wait(Some(Instant::now())), Wake::Stop);
    }
}
