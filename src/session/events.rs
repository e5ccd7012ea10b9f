//! Waiting for the next tick, or for a device event.
//!
//! A session waits for its next tick on whatever its front end waits on (a
//! `Stop`, the signals, the interactive view's control channel). While a
//! device-event listener runs (`collect/monitor/`), [`EventsOrWaiter`] cuts that
//! wait into short slices and ends it as soon as the listeners' bell rang, so
//! the collection that re-enumerates the devices runs within a slice of the
//! event, not at the next tick. With no listener the wait is the front end's
//! own, unchanged.

use super::pace::{Waiter, Wake};
use crate::collect::monitor::wake::Bell;
use std::time::{Duration, Instant};

/// How long one slice of a wait lasts while a listener runs.
pub(crate) const SLICE: Duration = Duration::from_millis(50);

/// A front end's waiter that also ends its wait when the bell rings.
pub(crate) struct EventsOrWaiter<'a> {
    inner: &'a mut dyn Waiter,
    bell: &'a Bell,
    heard: u64,
}

impl<'a> EventsOrWaiter<'a> {
    pub(crate) fn new(inner: &'a mut dyn Waiter, bell: &'a Bell) -> EventsOrWaiter<'a> {
        EventsOrWaiter {
            inner,
            heard: bell.rung(),
            bell,
        }
    }
}

impl Waiter for EventsOrWaiter<'_> {
    fn wait(&mut self, deadline: Option<Instant>) -> Wake {
        loop {
            if !self.bell.listening() {
                return self.inner.wait(deadline);
            }
            let rung = self.bell.rung();
            if rung != self.heard {
                self.heard = rung;
                return Wake::Due;
            }
            let slice = Instant::now() + SLICE;
            let until = deadline.map_or(slice, |d| d.min(slice));
            match self.inner.wait(Some(until)) {
                Wake::Due if deadline.is_none_or(|d| until < d) => continue,
                other => return other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sleeps until the deadline; counts its waits.
    struct Sleeper(u32);

    impl Waiter for Sleeper {
        fn wait(&mut self, deadline: Option<Instant>) -> Wake {
            self.0 += 1;
            if let Some(d) = deadline {
                std::thread::sleep(d.saturating_duration_since(Instant::now()));
            }
            Wake::Due
        }
    }

    #[test]
    fn without_a_listener_the_wait_is_the_front_ends_own() {
        let bell = Bell::default();
        let mut inner = Sleeper(0);
        let mut w = EventsOrWaiter::new(&mut inner, &bell);
        let far = Instant::now() + Duration::from_millis(120);
        assert_eq!(w.wait(Some(far)), Wake::Due);
        assert!(Instant::now() >= far);
        assert_eq!(inner.0, 1);
    }

    #[test]
    fn a_ring_ends_a_long_wait_within_a_slice() {
        let bell: &'static Bell = Box::leak(Box::new(Bell::default()));
        bell.add_listener();
        let ringer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            bell.ring();
        });
        let mut inner = Sleeper(0);
        let mut w = EventsOrWaiter::new(&mut inner, bell);
        let started = Instant::now();
        assert_eq!(w.wait(Some(started + Duration::from_secs(60))), Wake::Due);
        assert!(started.elapsed() < Duration::from_secs(5));
        ringer.join().unwrap();
    }
}
