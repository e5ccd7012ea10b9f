//! Pacing: one collection per interval (measured from the start of each, so
//! a slow one is followed by the next at once), until a waiter says stop.
//! What a front end waits on — signals, a control channel, a condition
//! variable — is a [`Waiter`]; the rhythm is the same for all of them.

use crate::model::DetailScope;
use crate::source::CollectRequest;
use std::time::{Duration, Instant};

/// What woke a wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wake {
    /// The deadline passed: collect.
    Due,
    /// Stop the session.
    Stop,
    /// From now on collect at this interval (the wait goes on, to the new deadline).
    SetInterval(Duration),
    /// Collect now, keeping these objects in detail (and dumping objects).
    Collect(DetailScope),
}

/// Waits until a deadline (`None`: until told) or an event, whichever is first.
pub trait Waiter {
    /// Blocks until `deadline` passes (`Wake::Due`), or earlier for a stop or a request.
    fn wait(&mut self, deadline: Option<Instant>) -> Wake;
}

/// What the front end wants after a collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Collect again when the next one is due.
    Continue,
    /// Nothing more will come (a replay ran out): wait until told.
    Idle,
    /// End the session now.
    Stop,
}

/// The rhythm of collections and what each one asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct Pacer {
    interval: Duration,
    /// A replay is read as fast as it is asked for; everything else is paced.
    paced: bool,
    /// When the first collection is due; `None`: at once.
    first_at: Option<Instant>,
    details: DetailScope,
    force_next: bool,
}

impl Pacer {
    /// A collection every `interval`, the first at once.
    pub fn every(interval: Duration) -> Pacer {
        Pacer {
            interval,
            paced: true,
            first_at: None,
            details: DetailScope::ErrorsOnly,
            force_next: false,
        }
    }

    /// Collections one after the other, as fast as they are handled.
    pub fn unpaced() -> Pacer {
        Pacer {
            paced: false,
            ..Pacer::every(Duration::ZERO)
        }
    }

    /// The first collection at `at` instead of at once (one was made already).
    pub fn first_at(mut self, at: Instant) -> Pacer {
        self.set_first_at(at);
        self
    }

    /// The next [`Pacer::run`] waits until `at` before its first collection.
    pub fn set_first_at(&mut self, at: Instant) {
        self.first_at = Some(at);
    }

    /// The next collection dumps objects whatever their own cadence says.
    pub fn force_objects(&mut self) {
        self.force_next = true;
    }

    /// The time between paced collections (`-d`); zero for an unpaced replay.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// The request of the next collection (and forgets a forced dump).
    pub fn next_request(&mut self) -> CollectRequest {
        let request = CollectRequest {
            details: self.details.clone(),
            force_objects: self.force_next,
        };
        self.force_next = false;
        request
    }

    /// Calls `tick` at every due collection until it or `waiter` says stop.
    pub fn run(&mut self, waiter: &mut dyn Waiter, tick: &mut dyn FnMut(&CollectRequest) -> Flow) {
        if let Some(at) = self.first_at.take()
            && !self.wait_until(waiter, Some(at), at)
        {
            return;
        }
        loop {
            let started = Instant::now();
            let request = self.next_request();
            let deadline = match tick(&request) {
                Flow::Stop => return,
                Flow::Idle => None,
                Flow::Continue if self.paced => Some(started + self.interval),
                // Due at once, but a stop request still wins.
                Flow::Continue => Some(started),
            };
            if !self.wait_until(waiter, deadline, started) {
                return;
            }
        }
    }

    /// Waits for the next collection; false when told to stop.
    fn wait_until(
        &mut self,
        waiter: &mut dyn Waiter,
        mut deadline: Option<Instant>,
        started: Instant,
    ) -> bool {
        loop {
            match waiter.wait(deadline) {
                Wake::Due => return true,
                Wake::Stop => return false,
                Wake::SetInterval(interval) => {
                    self.interval = interval;
                    if self.paced && deadline.is_some() {
                        deadline = Some(started + interval);
                    }
                }
                Wake::Collect(details) => {
                    self.details = details;
                    self.force_next = true;
                    return true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers each wait from a script, then stops.
    struct Scripted(Vec<Wake>, Vec<Option<Instant>>);

    impl Waiter for Scripted {
        fn wait(&mut self, deadline: Option<Instant>) -> Wake {
            self.1.push(deadline);
            if self.0.is_empty() {
                Wake::Stop
            } else {
                self.0.remove(0)
            }
        }
    }

    #[test]
    fn ticks_until_the_waiter_stops() {
        let mut pacer = Pacer::every(Duration::from_secs(3600));
        let mut waiter = Scripted(vec![Wake::Due, Wake::Due], Vec::new());
        let mut ticks = 0;
        pacer.run(&mut waiter, &mut |_| {
            ticks += 1;
            Flow::Continue
        });
        assert_eq!(ticks, 3);
        assert!(waiter.1.iter().all(Option::is_some));
    }

    #[test]
    fn a_detail_change_collects_at_once_with_a_forced_dump() {
        let scope = DetailScope::Processes([7].into_iter().collect());
        let mut pacer = Pacer::every(Duration::from_secs(3600));
        let mut waiter = Scripted(
            vec![
                Wake::SetInterval(Duration::from_secs(1)),
                Wake::Collect(scope.clone()),
            ],
            Vec::new(),
        );
        let mut requests = Vec::new();
        pacer.run(&mut waiter, &mut |r| {
            requests.push(r.clone());
            Flow::Continue
        });
        assert_eq!(requests.len(), 2);
        assert!(!requests[0].force_objects);
        assert_eq!(requests[1].details, scope);
        assert!(requests[1].force_objects);
        assert_eq!(pacer.interval(), Duration::from_secs(1));
        // The new interval moved the deadline closer.
        let (a, b) = (waiter.1[0].unwrap(), waiter.1[1].unwrap());
        assert!(b < a);
    }

    #[test]
    fn idle_waits_without_a_deadline_and_stop_ends() {
        let mut pacer = Pacer::unpaced();
        let mut waiter = Scripted(Vec::new(), Vec::new());
        pacer.run(&mut waiter, &mut |_| Flow::Idle);
        assert_eq!(waiter.1, [None]);
        let mut ticks = 0;
        pacer.run(&mut waiter, &mut |_| {
            ticks += 1;
            Flow::Stop
        });
        assert_eq!(ticks, 1);
    }

    #[test]
    fn a_first_deadline_is_waited_for() {
        let at = Instant::now() + Duration::from_secs(60);
        let mut pacer = Pacer::every(Duration::from_secs(1)).first_at(at);
        let mut waiter = Scripted(Vec::new(), Vec::new());
        let mut ticks = 0;
        pacer.run(&mut waiter, &mut |_| {
            ticks += 1;
            Flow::Continue
        });
        assert_eq!(ticks, 0, "stopped before the first deadline");
        assert_eq!(waiter.1, [Some(at)]);
    }
}
