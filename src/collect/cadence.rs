//! When to run the expensive object dumps.
//!
//! The summary is an xarray walk in the kernel and runs every collection. Object
//! dumps are not cheap: on mlx5 every QP in a dump costs a firmware query. So
//! object dumps run at most every `min_interval`, and never take more than
//! about 1/`DUTY_FACTOR` of wall time: a dump that took 2 s waits at least 8 s
//! before the next one.

use std::time::{Duration, Instant};

/// Object dumps may occupy at most 1/(1+DUTY_FACTOR) of the time.
pub const DUTY_FACTOR: u32 = 4;

#[derive(Clone, Debug)]
pub struct ObjectCadence {
    min_interval: Duration,
    last_start: Option<Instant>,
    last_duration: Duration,
}

impl ObjectCadence {
    pub fn new(min_interval: Duration) -> ObjectCadence {
        ObjectCadence {
            min_interval,
            last_start: None,
            last_duration: Duration::ZERO,
        }
    }

    /// The wait between dump starts, stretched when dumps are slow.
    pub fn effective_interval(&self) -> Duration {
        self.min_interval
            .max(self.last_duration.saturating_mul(DUTY_FACTOR + 1))
    }

    /// True when dumps run less often than asked because they are slow.
    pub fn is_throttled(&self) -> bool {
        self.effective_interval() > self.min_interval
    }

    pub fn due(&self, now: Instant) -> bool {
        match self.last_start {
            None => true,
            Some(start) => now.saturating_duration_since(start) >= self.effective_interval(),
        }
    }

    /// True when the minimum interval has passed but the duty limit still
    /// holds the next dump back: the objects shown are older than asked.
    pub fn postponed(&self, now: Instant) -> bool {
        match self.last_start {
            None => false,
            Some(start) => {
                let waited = now.saturating_duration_since(start);
                waited >= self.min_interval && waited < self.effective_interval()
            }
        }
    }

    pub fn record(&mut self, started: Instant, duration: Duration) {
        self.last_start = Some(started);
        self.last_duration = duration;
    }

    pub fn last_duration(&self) -> Duration {
        self.last_duration
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_dump_is_always_due() {
        assert!(ObjectCadence::new(Duration::from_secs(5)).due(Instant::now()));
    }

    #[test]
    fn fast_dumps_follow_the_minimum_interval() {
        let mut c = ObjectCadence::new(Duration::from_secs(2));
        let t0 = Instant::now();
        c.record(t0, Duration::from_millis(10));
        assert!(!c.due(t0 + Duration::from_secs(1)));
        assert!(c.due(t0 + Duration::from_secs(2)));
        assert!(!c.is_throttled());
    }

    #[test]
    fn slow_dumps_stretch_the_interval() {
        let mut c = ObjectCadence::new(Duration::from_secs(1));
        let t0 = Instant::now();
        c.record(t0, Duration::from_secs(2));
        assert_eq!(c.effective_interval(), Duration::from_secs(10));
        assert!(!c.due(t0 + Duration::from_secs(9)));
        assert!(c.due(t0 + Duration::from_secs(10)));
        assert!(c.is_throttled());
        assert!(c.postponed(t0 + Duration::from_secs(5)));
        assert!(
            !c.postponed(t0 + Duration::from_millis(500)),
            "not yet due anyway"
        );
    }

    #[test]
    fn zero_interval_dumps_every_time_when_fast() {
        let mut c = ObjectCadence::new(Duration::ZERO);
        let t0 = Instant::now();
        c.record(t0, Duration::ZERO);
        assert!(c.due(t0));
    }
}
