//! How long each alert's condition has held, as the alerts panel's FOR
//! column says it: from the first snapshot this view saw it in, not from
//! the start of the trend window (a leak suspect watched for 35 minutes
//! says 35 minutes, not the window's 5). A condition that ends and comes
//! back starts again.

use crate::model::history::Alert;
use crate::model::{OwnerKey, UnixMs};
use std::collections::BTreeMap;

/// What identifies one condition across snapshots.
type AlertKey = (&'static str, Option<OwnerKey>, Option<String>);

fn key(alert: &Alert) -> AlertKey {
    (alert.kind.name(), alert.owner.clone(), alert.device.clone())
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AlertAges {
    first_seen: BTreeMap<AlertKey, UnixMs>,
}

impl AlertAges {
    /// Takes in the alerts of a new snapshot taken at `at_ms`: each keeps
    /// the earliest start known (the history's, or when it was first
    /// seen); conditions that are gone are forgotten.
    pub fn observe(&mut self, alerts: &[Alert], at_ms: UnixMs) {
        let mut next = BTreeMap::new();
        for alert in alerts {
            let k = key(alert);
            let start = alert.since_ms.unwrap_or(at_ms);
            let earliest = self.first_seen.get(&k).map_or(start, |s| (*s).min(start));
            next.insert(k, earliest);
        }
        self.first_seen = next;
    }

    /// The same alerts with `since_ms` the earliest start seen; alerts not
    /// observed yet (a filter change) keep theirs.
    pub fn apply(&self, alerts: &[Alert]) -> Vec<Alert> {
        alerts
            .iter()
            .map(|a| {
                let mut a = a.clone();
                if let Some(first) = self.first_seen.get(&key(&a)) {
                    a.since_ms = Some(a.since_ms.map_or(*first, |s| s.min(*first)));
                }
                a
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::history::AlertKind;

    fn leak(since: u64) -> Alert {
        Alert {
            kind: AlertKind::LeakSuspect,
            message: "leaky_svc (pid 3377): +35 QPs".into(),
            owner: Some(OwnerKey::Unattributed),
            device: None,
            since_ms: Some(UnixMs(since)),
        }
    }

    #[test]
    fn a_condition_is_as_old_as_its_first_sighting() {
        let mut ages = AlertAges::default();
        ages.observe(&[leak(0)], UnixMs(60_000));
        // Later, the trend window has slid: the history says since 30 min.
        ages.observe(&[leak(1_800_000)], UnixMs(2_100_000));
        let shown = ages.apply(&[leak(1_800_000)]);
        assert_eq!(shown[0].since_ms, Some(UnixMs(0)));
    }

    #[test]
    fn a_condition_that_ended_starts_again() {
        let mut ages = AlertAges::default();
        ages.observe(&[leak(0)], UnixMs(60_000));
        ages.observe(&[], UnixMs(62_000));
        ages.observe(&[leak(500_000)], UnixMs(560_000));
        assert_eq!(
            ages.apply(&[leak(500_000)])[0].since_ms,
            Some(UnixMs(500_000))
        );
    }
}
