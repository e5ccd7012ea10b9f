//! Each host's worst usage over the last window, for the sparklines of the hosts table. Filled
//! two ways into one place: Prometheus' range answer for the rows on screen replaces a host's
//! series (the server kept the history), and every refresh's own reading adds its newest
//! point (between range answers, and always in direct `--hosts` mode, where no server keeps
//! one). Bounded: at most [`MAX_POINTS`] points per host, none older than the window, and
//! only the hosts of the latest reading.

use super::reading::{FleetReading, Reach};
use crate::model::UnixMs;
use std::collections::BTreeMap;
use std::time::Duration;

/// How far back a sparkline reaches.
pub const WINDOW: Duration = Duration::from_secs(30 * 60);

/// The most points kept per host (and asked of Prometheus: the step is never finer than
/// `WINDOW / MAX_POINTS`).
pub const MAX_POINTS: usize = 240;

/// Points of one host, oldest first: (when, worst usage ratio 0 to 1).
pub type Trail = Vec<(UnixMs, f64)>;

/// The hosts' trails.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UsageTrails {
    trails: BTreeMap<String, Trail>,
}

/// The step of the range query at this refresh interval: a point per refresh, never more
/// than [`MAX_POINTS`] over the window.
pub fn trail_step(interval: Duration) -> Duration {
    let finest = WINDOW / u32::try_from(MAX_POINTS).unwrap_or(u32::MAX);
    interval.max(finest).max(Duration::from_secs(1))
}

impl UsageTrails {
    /// A refresh's reading: each answering host's worst usage becomes its newest point; hosts
    /// the reading no longer names are forgotten. A down or missing host gets no point (its
    /// line stops where its data stopped).
    pub fn record(&mut self, reading: &FleetReading) {
        let at = reading.clock();
        self.trails
            .retain(|host, _| reading.hosts.iter().any(|h| &h.host == host));
        for h in &reading.hosts {
            let Some(usage) = h.worst_usage.as_ref().filter(|_| h.reach == Reach::Up) else {
                continue;
            };
            let trail = self.trails.entry(h.host.clone()).or_default();
            if trail.last().is_none_or(|(last, _)| *last < at) {
                trail.push((at, usage.ratio));
            }
            bound(trail, at);
        }
    }

    /// Range answers for some hosts: each replaces that host's trail (the server's history is
    /// longer and evenly stepped). Points that are not a ratio (NaN, infinities) are dropped.
    pub fn replace(&mut self, answer: BTreeMap<String, Trail>) {
        for (host, mut points) in answer {
            points.retain(|(_, v)| v.is_finite());
            points.sort_by_key(|(at, _)| *at);
            if let Some(&(newest, _)) = points.last() {
                bound(&mut points, newest);
            }
            self.trails.insert(host, points);
        }
    }

    /// A host's trail as whole per-mille values for the sparkline widget, oldest first.
    pub fn per_mille(&self, host: &str) -> Vec<u64> {
        self.trails.get(host).map_or_else(Vec::new, |trail| {
            trail
                .iter()
                .map(|(_, ratio)| (ratio.clamp(0.0, 10.0) * 1000.0).round() as u64)
                .collect()
        })
    }

    /// How many hosts have a trail.
    pub fn len(&self) -> usize {
        self.trails.len()
    }

    pub fn is_empty(&self) -> bool {
        self.trails.is_empty()
    }
}

/// Drops what is older than the window before `newest` and what is past [`MAX_POINTS`].
fn bound(trail: &mut Trail, newest: UnixMs) {
    let window = u64::try_from(WINDOW.as_millis()).unwrap_or(u64::MAX);
    let oldest = newest.0.saturating_sub(window);
    trail.retain(|(at, _)| at.0 >= oldest);
    let excess = trail.len().saturating_sub(MAX_POINTS);
    trail.drain(..excess);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::{HostReport, LimitKind, Usage};
    use crate::model::ResourceType;

    fn reading(at: u64, hosts: &[(&str, Option<f64>)]) -> FleetReading {
        FleetReading {
            read_at: UnixMs(at),
            hosts: hosts
                .iter()
                .map(|(name, ratio)| {
                    let mut h = HostReport::named(name);
                    h.worst_usage = ratio.map(|ratio| Usage {
                        device: "mlx5_0".into(),
                        rtype: ResourceType::Qp,
                        ratio,
                        limit: LimitKind::Device,
                    });
                    h
                })
                .collect(),
            ..FleetReading::default()
        }
    }

    #[test]
    fn each_refresh_adds_a_point_and_gone_hosts_are_forgotten() {
        let mut trails = UsageTrails::default();
        trails.record(&reading(1_000, &[("a", Some(0.1)), ("b", Some(0.5))]));
        trails.record(&reading(2_000, &[("a", Some(0.2)), ("b", None)]));
        trails.record(&reading(2_000, &[("a", Some(0.9))]));
        assert_eq!(trails.per_mille("a"), [100, 200], "one point per instant");
        assert!(trails.per_mille("b").is_empty(), "b left the reading");
        assert_eq!(trails.len(), 1);
    }

    #[test]
    fn a_down_host_gets_no_point() {
        let mut trails = UsageTrails::default();
        let mut down = reading(1_000, &[("a", Some(0.3))]);
        down.hosts[0].reach = Reach::Down {
            reason: "refused".into(),
        };
        trails.record(&down);
        assert!(trails.per_mille("a").is_empty());
    }

    #[test]
    fn trails_are_bounded_by_the_window_and_the_points() {
        let mut trails = UsageTrails::default();
        let step = 1_000u64;
        for i in 0..(MAX_POINTS as u64 + 50) {
            trails.record(&reading(i * step, &[("a", Some(0.5))]));
        }
        assert_eq!(trails.per_mille("a").len(), MAX_POINTS);
        let mut answer = BTreeMap::new();
        let minute = 60_000u64;
        answer.insert(
            "a".to_string(),
            (0..=60)
                .map(|m| (UnixMs(m * minute), m as f64 / 100.0))
                .chain([(UnixMs(61 * minute), f64::NAN)])
                .collect(),
        );
        trails.replace(answer);
        let kept = trails.per_mille("a");
        assert_eq!(
            kept.len(),
            31,
            "30 minutes back from the newest, NaN dropped"
        );
        assert_eq!(kept.first(), Some(&300));
        assert_eq!(kept.last(), Some(&600));
    }

    #[test]
    fn the_step_follows_the_interval_within_the_point_bound() {
        assert_eq!(trail_step(Duration::from_secs(15)), Duration::from_secs(15));
        assert_eq!(
            trail_step(Duration::from_secs(1)),
            Duration::from_millis(7_500)
        );
    }
}
