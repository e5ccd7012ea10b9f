//! When each alert was first seen: the one `since` of an alert, which the
//! TUI's FOR column, `trends.warnings[].since` and any other reader share.
//!
//! What the history computes on one snapshot is only as old as the points
//! it still holds: a leak suspect older than the trend window would say
//! "since the window start", sliding with every tick. So the history
//! remembers every alert (its kind and subject, `AlertKey`) from the first
//! snapshot that raised it to the latest one: an episode, whose start is the
//! earliest start known while it lasts (a leak suspect watched for 35
//! minutes is 35 minutes old, not the window's 5). A snapshot without the
//! alert ends the episode; when the alert comes back it is a new episode
//! with a new start. Ended episodes are kept for the history's retention, so
//! that a frozen view of an older snapshot still tells how old its alerts
//! were then.
//!
//! Time is the snapshots' collection time, never the wall clock.
//!
//! The problems list (`model/problems/`) keeps its first-seen times the
//! same way, in an `AlertAges` keyed by `ProblemKey`.

use super::alerts::{Alert, AlertKind};
use crate::model::{Millis, OwnerKey, UnixMs};
use std::collections::BTreeMap;

/// What identifies one alert across snapshots: its kind and its subject.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct AlertKey {
    pub kind: AlertKind,
    /// The owner it is about (for objects left behind: the first process
    /// that exited).
    pub owner: Option<OwnerKey>,
    /// The device it is about (lingering ERROR QPs: one alert per owner and
    /// device).
    pub device: Option<String>,
}

impl AlertKey {
    pub(super) fn of(alert: &Alert) -> AlertKey {
        AlertKey {
            kind: alert.kind,
            owner: alert.owner.clone(),
            device: alert.device.clone(),
        }
    }
}

/// One stretch of snapshots that all raised the same alert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Episode {
    /// Collection time of the first snapshot that raised it.
    first_raised_ms: UnixMs,
    /// Collection time of the latest snapshot that raised it.
    last_raised_ms: UnixMs,
    /// When the condition began: the earliest start the history gave while
    /// the episode lasted, never after its first snapshot.
    since_ms: UnixMs,
}

/// Ended episodes kept per alert at most: an alert that comes and goes
/// every tick must not grow the history.
const EPISODES_PER_ALERT: usize = 8;

/// Alerts remembered at most: past it, those that ended longest ago are
/// forgotten first (a host where processes exit with objects left behind
/// on every collection raises a new alert each time).
const MAX_ALERTS: usize = 4096;

/// Every alert's (or problem's) episodes, by key. See the module documentation.
#[derive(Clone, Debug)]
pub(super) struct AlertAges<K = AlertKey> {
    episodes: BTreeMap<K, Vec<Episode>>,
    /// Collection time of the latest snapshot taken in.
    latest_ms: Option<UnixMs>,
}

impl<K> Default for AlertAges<K> {
    fn default() -> Self {
        AlertAges {
            episodes: BTreeMap::new(),
            latest_ms: None,
        }
    }
}

impl AlertAges<AlertKey> {
    /// Takes in the alerts raised by the snapshot collected at `at_ms`:
    /// alerts raised by the snapshot before go on, the others start anew.
    /// Episodes that ended more than `keep_ms` before are forgotten.
    pub(super) fn observe(&mut self, alerts: &[Alert], at_ms: UnixMs, keep_ms: Millis) {
        self.observe_keys(
            alerts.iter().map(|a| (AlertKey::of(a), a.since_ms)),
            at_ms,
            keep_ms,
        );
    }

    /// `alerts`, raised as of `at_ms`, each with the start of its episode;
    /// an alert no episode holds keeps the history's own reading.
    pub(super) fn apply(&self, mut alerts: Vec<Alert>, at_ms: UnixMs) -> Vec<Alert> {
        for alert in &mut alerts {
            if let Some(since) = self.since(&AlertKey::of(alert), at_ms) {
                alert.since_ms = Some(since);
            }
        }
        super::alerts::order(&mut alerts);
        alerts
    }
}

impl<K: Ord + Clone> AlertAges<K> {
    /// Takes in the keys raised by the snapshot collected at `at_ms`, each
    /// with the start its rule gives (`None`: that snapshot).
    pub(super) fn observe_keys(
        &mut self,
        raised: impl IntoIterator<Item = (K, Option<UnixMs>)>,
        at_ms: UnixMs,
        keep_ms: Millis,
    ) {
        let previous = self.latest_ms.replace(at_ms);
        for (key, since) in raised {
            let start = since.map_or(at_ms, |s| s.min(at_ms));
            let episodes = self.episodes.entry(key).or_default();
            match episodes.last_mut() {
                Some(e) if Some(e.last_raised_ms) == previous || e.last_raised_ms == at_ms => {
                    e.last_raised_ms = at_ms;
                    e.since_ms = e.since_ms.min(start);
                }
                _ => episodes.push(Episode {
                    first_raised_ms: at_ms,
                    last_raised_ms: at_ms,
                    since_ms: start,
                }),
            }
            let excess = episodes.len().saturating_sub(EPISODES_PER_ALERT);
            episodes.drain(..excess);
        }
        let oldest = at_ms.minus(keep_ms);
        self.episodes.retain(|_, episodes| {
            episodes.retain(|e| e.last_raised_ms >= oldest);
            !episodes.is_empty()
        });
        self.cap();
    }

    /// Keeps at most `MAX_ALERTS` alerts, those raised most recently.
    fn cap(&mut self) {
        let excess = self.episodes.len().saturating_sub(MAX_ALERTS);
        if excess == 0 {
            return;
        }
        let mut by_last: Vec<(UnixMs, K)> = self
            .episodes
            .iter()
            .map(|(k, eps)| {
                (
                    eps.last().map_or(UnixMs(0), |e| e.last_raised_ms),
                    k.clone(),
                )
            })
            .collect();
        by_last.sort();
        for (_, key) in by_last.into_iter().take(excess) {
            self.episodes.remove(&key);
        }
    }

    /// When the alert raised as of `at_ms` began, from the episode that
    /// holds `at_ms`. `None` when no snapshot taken in raised it then.
    pub(super) fn since(&self, key: &K, at_ms: UnixMs) -> Option<UnixMs> {
        self.episodes
            .get(key)?
            .iter()
            .rev()
            .find(|e| e.first_raised_ms <= at_ms && at_ms <= e.last_raised_ms)
            .map(|e| e.since_ms)
    }

    /// Episodes remembered: at most `MAX_ALERTS` alerts of at most
    /// `EPISODES_PER_ALERT` each.
    #[cfg(test)]
    fn remembered(&self) -> usize {
        self.episodes.values().map(Vec::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ProcessKey;

    const KEEP: Millis = Millis(600_000);

    fn owner(pid: u32) -> OwnerKey {
        OwnerKey::Process(ProcessKey { pid, start_time: 1 })
    }

    fn leak(pid: u32, since: u64) -> Alert {
        Alert {
            kind: AlertKind::LeakSuspect,
            message: format!("leaky_svc (pid {pid}): +35 QPs"),
            owner: Some(owner(pid)),
            device: None,
            since_ms: Some(UnixMs(since)),
        }
    }

    fn lingering(pid: u32, device: &str, since: u64) -> Alert {
        Alert {
            kind: AlertKind::ErrorQpLingering,
            message: format!("QP 17 of pid {pid} on {device} in ERR for 1 min"),
            owner: Some(owner(pid)),
            device: Some(device.into()),
            since_ms: Some(UnixMs(since)),
        }
    }

    fn since_of(ages: &AlertAges, alert: &Alert, at: u64) -> Option<UnixMs> {
        ages.since(&AlertKey::of(alert), UnixMs(at))
    }

    #[test]
    fn an_alert_keeps_its_first_start_while_it_lasts() {
        let mut ages = AlertAges::default();
        ages.observe(&[leak(7, 0)], UnixMs(60_000), KEEP);
        // The window has slid: the history alone would say since 30 min.
        ages.observe(&[leak(7, 1_800_000)], UnixMs(2_100_000), KEEP);
        let shown = ages.apply(vec![leak(7, 1_800_000)], UnixMs(2_100_000));
        assert_eq!(shown[0].since_ms, Some(UnixMs(0)));
    }

    #[test]
    fn an_alert_that_ended_starts_again_when_it_returns() {
        let mut ages = AlertAges::default();
        ages.observe(&[leak(7, 0)], UnixMs(60_000), KEEP);
        ages.observe(&[], UnixMs(62_000), KEEP);
        ages.observe(&[leak(7, 500_000)], UnixMs(560_000), KEEP);
        assert_eq!(since_of(&ages, &leak(7, 0), 560_000), Some(UnixMs(500_000)));
        // A view frozen on the first episode still reads its start.
        assert_eq!(since_of(&ages, &leak(7, 0), 60_000), Some(UnixMs(0)));
        assert_eq!(since_of(&ages, &leak(7, 0), 62_000), None);
    }

    #[test]
    fn alerts_about_different_subjects_are_apart() {
        let mut ages = AlertAges::default();
        ages.observe(
            &[lingering(7, "mlx5_0", 1_000), leak(7, 2_000)],
            UnixMs(70_000),
            KEEP,
        );
        ages.observe(
            &[
                lingering(7, "mlx5_0", 1_000),
                lingering(7, "mlx5_1", 40_000),
                leak(8, 30_000),
            ],
            UnixMs(100_000),
            KEEP,
        );
        let at = 100_000;
        assert_eq!(
            since_of(&ages, &lingering(7, "mlx5_0", 0), at),
            Some(UnixMs(1_000))
        );
        assert_eq!(
            since_of(&ages, &lingering(7, "mlx5_1", 0), at),
            Some(UnixMs(40_000))
        );
        assert_eq!(since_of(&ages, &leak(8, 0), at), Some(UnixMs(30_000)));
        // pid 7's leak ended with the second snapshot.
        assert_eq!(since_of(&ages, &leak(7, 0), at), None);
    }

    #[test]
    fn a_start_is_never_after_the_first_snapshot_that_raised_it() {
        let mut ages = AlertAges::default();
        let mut unknown = leak(7, 0);
        unknown.since_ms = None;
        ages.observe(&[unknown.clone()], UnixMs(5_000), KEEP);
        ages.observe(&[leak(7, 9_000)], UnixMs(10_000), KEEP);
        assert_eq!(since_of(&ages, &unknown, 10_000), Some(UnixMs(5_000)));
    }

    #[test]
    fn ended_episodes_are_forgotten_after_the_retention_and_bounded() {
        let mut ages = AlertAges::default();
        for i in 0..20u64 {
            // Raised every other snapshot: twenty short episodes.
            ages.observe(&[leak(7, i * 4_000)], UnixMs(i * 4_000), KEEP);
            ages.observe(&[], UnixMs(i * 4_000 + 2_000), KEEP);
        }
        assert_eq!(ages.remembered(), EPISODES_PER_ALERT);
        ages.observe(&[], UnixMs(80_000 + KEEP.as_u64()), KEEP);
        assert_eq!(ages.remembered(), 0);
    }

    #[test]
    fn at_most_so_many_alerts_are_remembered_the_latest_kept() {
        let mut ages = AlertAges::default();
        let old: Vec<Alert> = (0..MAX_ALERTS as u32).map(|pid| leak(pid, 0)).collect();
        ages.observe(&old, UnixMs(1_000), KEEP);
        let new = [leak(u32::MAX, 1_500)];
        ages.observe(&new, UnixMs(2_000), KEEP);
        assert_eq!(ages.remembered(), MAX_ALERTS);
        assert_eq!(since_of(&ages, &new[0], 2_000), Some(UnixMs(1_500)));
    }
}
