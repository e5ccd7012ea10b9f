//! A bounded time series of per-type counts.
//!
//! Time is cut into slots of `resolution`; a slot keeps its latest sample, so
//! a series never holds more than `retention / resolution + 1` points whatever
//! the collection interval, and never more than a hard cap either.

use crate::model::{Millis, ResourceType, TypeCounts, UnixMs};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Point {
    pub t_ms: UnixMs,
    pub counts: TypeCounts,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Series {
    points: VecDeque<Point>,
}

impl Series {
    /// Adds a sample taken at `t_ms` (not earlier than the newest point). A
    /// sample in the same `resolution` slot as the newest point replaces it.
    pub(super) fn record(
        &mut self,
        t_ms: UnixMs,
        counts: TypeCounts,
        resolution: Millis,
        cap: usize,
    ) {
        let slot = |t: UnixMs| t.as_u64() / resolution.as_u64().max(1);
        if let Some(last) = self.points.back_mut() {
            if t_ms < last.t_ms {
                return;
            }
            if slot(t_ms) == slot(last.t_ms) {
                *last = Point { t_ms, counts };
                return;
            }
        }
        self.points.push_back(Point { t_ms, counts });
        while self.points.len() > cap.max(2) {
            self.points.pop_front();
        }
    }

    /// Drops the points taken before `oldest_ms`.
    pub(super) fn trim(&mut self, oldest_ms: UnixMs) {
        while self.points.front().is_some_and(|p| p.t_ms < oldest_ms) {
            self.points.pop_front();
        }
    }

    pub(super) fn len(&self) -> usize {
        self.points.len()
    }

    pub(super) fn last(&self) -> Option<&Point> {
        self.points.back()
    }

    #[cfg(test)]
    pub(super) fn first(&self) -> Option<&Point> {
        self.points.front()
    }

    /// How many points lie in `from..=until`, and the time from the first
    /// of them to the last: what a verdict needs, without copying a point.
    pub(super) fn extent(&self, from_ms: UnixMs, until_ms: UnixMs) -> (usize, Millis) {
        let mut inside = self
            .points
            .iter()
            .filter(|p| p.t_ms >= from_ms && p.t_ms <= until_ms);
        let Some(first) = inside.next() else {
            return (0, Millis::ZERO);
        };
        let (n, last) = inside.fold((1, first.t_ms), |(n, _), p| (n + 1, p.t_ms));
        (n, last.since(first.t_ms))
    }

    /// (t, count of `t`) for the points in `from..=until`, the time as the
    /// plain number of Unix ms the trend statistics compute with.
    pub(super) fn values(
        &self,
        t: ResourceType,
        from_ms: UnixMs,
        until_ms: UnixMs,
    ) -> Vec<(u64, u64)> {
        self.points
            .iter()
            .filter(|p| p.t_ms >= from_ms && p.t_ms <= until_ms)
            .map(|p| (p.t_ms.as_u64(), p.counts.get(t)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qps(n: u64) -> TypeCounts {
        let mut c = TypeCounts::default();
        c.add(ResourceType::Qp, n);
        c
    }

    #[test]
    fn fast_samples_merge_into_points_a_resolution_apart() {
        let mut s = Series::default();
        for i in 0..100u64 {
            // Every 100 ms, resolution 1 s.
            s.record(UnixMs(i * 100), qps(i), Millis(1000), 1000);
        }
        assert!(s.len() <= 11, "{}", s.len());
        assert_eq!(s.last().map(|p| p.counts.get(ResourceType::Qp)), Some(99));
        let times: Vec<u64> = s
            .values(ResourceType::Qp, UnixMs(0), UnixMs(u64::MAX))
            .iter()
            .map(|v| v.0)
            .collect();
        let slots: Vec<u64> = times.iter().map(|t| t / 1000).collect();
        assert!(slots.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    }

    #[test]
    fn slow_samples_each_make_a_point_up_to_the_cap() {
        let mut s = Series::default();
        for i in 0..50u64 {
            s.record(UnixMs(i * 2000), qps(i), Millis(1000), 20);
        }
        assert_eq!(s.len(), 20);
        assert_eq!(s.first().map(|p| p.t_ms), Some(UnixMs(30 * 2000)));
    }

    #[test]
    fn trim_and_lookups() {
        let mut s = Series::default();
        for i in 0..10u64 {
            s.record(UnixMs(i * 1000), qps(i), Millis(1000), 100);
        }
        s.trim(UnixMs(5000));
        assert_eq!(s.first().map(|p| p.t_ms), Some(UnixMs(5000)));
        assert_eq!(
            s.values(ResourceType::Qp, UnixMs(6000), UnixMs(8000)).len(),
            3
        );
        assert_eq!(s.extent(UnixMs(5500), UnixMs(8000)), (3, Millis(2000)));
        assert_eq!(s.extent(UnixMs(9500), UnixMs(9900)), (0, Millis::ZERO));
        s.record(UnixMs(3000), qps(1), Millis(1000), 100);
        assert_eq!(
            s.last().map(|p| p.t_ms),
            Some(UnixMs(9000)),
            "older samples are ignored"
        );
    }
}
