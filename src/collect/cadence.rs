//! When to run the expensive object dumps, type by type.
//!
//! The summary is cheap next to the object dumps, which on mlx5 cost a
//! firmware query per QP and everywhere grow faster than the number of
//! objects (the kernel restarts its table walk for every reply message). So
//! each type is dumped at most every `min_interval`, and all object dumps
//! together take at most 1/(1+[`DUTY_FACTOR`]) of wall time.
//!
//! Each type has its own cadence from its own measured cost, so a cheap QP
//! dump is not held back by a huge MR dump. The duty budget is shared out
//! max-min fairly: every type that needs less than an equal share runs as
//! often as asked (every `min_interval`, or every collection when that is
//! shorter), and the types that would need more split what is left equally,
//! each running as often as its share allows. A type never dumped yet is
//! always due.

use crate::model::ResourceType;
use std::time::{Duration, Instant};

/// Object dumps may occupy at most 1/(1+DUTY_FACTOR) of the time.
pub(crate) const DUTY_FACTOR: u32 = 4;

/// The types in the order they are dumped (parents first).
const TYPES: [ResourceType; 7] = crate::collect::attribution::DUMP_ORDER;

#[derive(Clone, Copy, Debug, Default)]
struct TypeState {
    last_start: Option<Instant>,
    last_duration: Duration,
    interval: Duration,
}

#[derive(Clone, Debug)]
pub(crate) struct ObjectCadence {
    min_interval: Duration,
    types: [TypeState; 7],
    /// Time between the last two collections: how often a type can be
    /// dumped at most, whatever the interval says.
    period: Duration,
    last_collection: Option<Instant>,
}

fn index(t: ResourceType) -> usize {
    TYPES.iter().position(|x| *x == t).unwrap_or(0)
}

impl ObjectCadence {
    pub(crate) fn new(min_interval: Duration) -> ObjectCadence {
        ObjectCadence {
            min_interval,
            types: [TypeState::default(); 7],
            period: Duration::ZERO,
            last_collection: None,
        }
    }

    /// Notes that a collection starts now (it paces how often any type can
    /// be dumped).
    pub(crate) fn collection(&mut self, now: Instant) {
        if let Some(last) = self.last_collection {
            self.period = now.saturating_duration_since(last);
        }
        self.last_collection = Some(now);
    }

    /// The types whose dump is due, in dump order.
    pub(crate) fn due_types(&self, now: Instant) -> Vec<ResourceType> {
        TYPES.into_iter().filter(|t| self.due(*t, now)).collect()
    }

    pub(crate) fn due(&self, t: ResourceType, now: Instant) -> bool {
        let s = self.state(t);
        match s.last_start {
            None => true,
            Some(start) => now.saturating_duration_since(start) >= s.interval,
        }
    }

    /// The wait between starts of this type's dumps.
    pub(crate) fn effective_interval(&self, t: ResourceType) -> Duration {
        self.state(t).interval
    }

    /// True when this type is dumped less often than asked because dumps
    /// are slow.
    #[cfg(test)]
    pub(crate) fn is_throttled(&self, t: ResourceType) -> bool {
        self.effective_interval(t) > self.min_interval
    }

    /// True when the minimum interval has passed but the duty limit still
    /// holds this type's next dump back: its objects are older than asked.
    pub(crate) fn postponed(&self, t: ResourceType, now: Instant) -> bool {
        let s = self.state(t);
        match s.last_start {
            None => false,
            Some(start) => {
                let wanted = self.min_interval.max(self.period);
                let waited = now.saturating_duration_since(start);
                // Nothing was asked of a type before the pace is known.
                !wanted.is_zero() && waited >= wanted && waited < s.interval
            }
        }
    }

    /// Records one dump of `t` (over every device) and shares the budget
    /// out again.
    pub(crate) fn record(&mut self, t: ResourceType, started: Instant, duration: Duration) {
        if let Some(s) = self.types.get_mut(index(t)) {
            s.last_start = Some(started);
            s.last_duration = duration;
        }
        self.share_budget();
    }

    pub(crate) fn last_duration(&self, t: ResourceType) -> Duration {
        self.state(t).last_duration
    }

    fn state(&self, t: ResourceType) -> TypeState {
        self.types.get(index(t)).copied().unwrap_or_default()
    }

    /// Max-min fair shares of the duty budget, cheapest types first.
    fn share_budget(&mut self) {
        let wanted = self.min_interval.max(self.period);
        let mut remaining = 1.0 / f64::from(DUTY_FACTOR + 1);
        let mut order: Vec<usize> = (0..self.types.len()).collect();
        order.sort_by_key(|&i| self.types.get(i).map(|s| s.last_duration));
        let mut left = order.len();
        for i in order {
            let Some(s) = self.types.get_mut(i) else {
                continue;
            };
            let cost = s.last_duration.as_secs_f64();
            let fair = remaining / left as f64;
            left -= 1;
            // Duty this type needs to run every `wanted`.
            let need = if wanted.is_zero() {
                f64::INFINITY
            } else {
                cost / wanted.as_secs_f64()
            };
            if cost == 0.0 || need <= fair {
                s.interval = self.min_interval;
                remaining -= need.min(fair).max(0.0);
            } else {
                s.interval = self.min_interval.max(Duration::from_secs_f64(cost / fair));
                remaining -= fair;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ResourceType::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn first_dump_is_always_due() {
        let c = ObjectCadence::new(Duration::from_secs(5));
        assert_eq!(c.due_types(Instant::now()), TYPES);
    }

    #[test]
    fn fast_dumps_follow_the_minimum_interval() {
        let mut c = ObjectCadence::new(Duration::from_secs(2));
        let t0 = Instant::now();
        for t in TYPES {
            c.record(t, t0, ms(1));
        }
        assert!(c.due_types(t0 + Duration::from_secs(1)).is_empty());
        assert_eq!(c.due_types(t0 + Duration::from_secs(2)), TYPES);
        assert!(!c.is_throttled(Qp));
    }

    #[test]
    fn one_slow_type_alone_gets_the_whole_budget() {
        let mut c = ObjectCadence::new(Duration::from_secs(1));
        let t0 = Instant::now();
        c.record(Mr, t0, Duration::from_secs(2));
        assert_eq!(c.effective_interval(Mr), Duration::from_secs(10));
        assert!(!c.due(Mr, t0 + Duration::from_secs(9)));
        assert!(c.due(Mr, t0 + Duration::from_secs(10)));
        assert!(c.postponed(Mr, t0 + Duration::from_secs(5)));
        assert!(!c.postponed(Mr, t0 + ms(500)), "not yet due anyway");
        assert!(c.due(Qp, t0), "never dumped yet");
    }

    #[test]
    fn a_single_collection_without_an_interval_holds_nothing_back() {
        // `--json`: one collection, no minimum interval, no pace yet.
        let mut c = ObjectCadence::new(Duration::ZERO);
        let t0 = Instant::now();
        c.collection(t0);
        for t in TYPES {
            c.record(t, t0, ms(3));
        }
        for t in TYPES {
            assert!(!c.postponed(t, t0 + ms(4)), "{t:?} reported as held back");
        }
    }

    #[test]
    fn a_cheap_qp_dump_does_not_wait_behind_a_huge_mr_dump() {
        let mut c = ObjectCadence::new(Duration::from_secs(1));
        let t0 = Instant::now();
        c.collection(t0);
        c.collection(t0 + Duration::from_secs(1));
        for t in [Ctx, Pd, Cq, Srq, CmId] {
            c.record(t, t0, ms(5));
        }
        c.record(Qp, t0, ms(300));
        c.record(Mr, t0, Duration::from_secs(10));
        for t in [Ctx, Pd, Cq, Srq, CmId] {
            assert_eq!(c.effective_interval(t), Duration::from_secs(1), "{t:?}");
        }
        let qp = c.effective_interval(Qp).as_secs_f64();
        let mr = c.effective_interval(Mr).as_secs_f64();
        assert!(qp < 5.0, "QP every {qp} s");
        assert!(mr > 50.0, "MR every {mr} s");
        // Together within the duty limit.
        let duty: f64 = TYPES
            .iter()
            .map(|t| c.last_duration(*t).as_secs_f64() / c.effective_interval(*t).as_secs_f64())
            .sum();
        assert!(duty <= 0.2 + 1e-9, "duty {duty}");
    }

    #[test]
    fn zero_interval_dumps_every_time_when_fast() {
        let mut c = ObjectCadence::new(Duration::ZERO);
        let t0 = Instant::now();
        c.record(Qp, t0, Duration::ZERO);
        assert!(c.due(Qp, t0));
    }
}
