//! What the history finds worth an operator's attention: leak suspects, QPs
//! lingering in ERR/SQE, and objects left behind by processes that exited.

use super::error_ages::ErrorQpAge;
use super::trend::{plural, span_text};
use crate::model::{Millis, OwnerKey, ResourceType, TypeCounts, UnixMs};
use std::collections::BTreeMap;
use std::time::Duration;

/// The kinds of alert the history raises (JSON `warnings[].kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AlertKind {
    /// Objects a process held stayed behind after it exited (now unattributed).
    UnreleasedAfterExit,
    /// QPs in ERR/SQE for longer than the linger threshold.
    ErrorQpLingering,
    /// A count that keeps rising over the trend window.
    LeakSuspect,
}

impl AlertKind {
    pub fn name(self) -> &'static str {
        match self {
            AlertKind::UnreleasedAfterExit => "unreleased_after_exit",
            AlertKind::ErrorQpLingering => "error_qp_lingering",
            AlertKind::LeakSuspect => "leak_suspect",
        }
    }
}

/// When a condition becomes an alert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlertThresholds {
    /// A QP in ERR/SQE for at least this long is lingering.
    pub error_qp_linger: Duration,
}

impl Default for AlertThresholds {
    fn default() -> Self {
        AlertThresholds {
            error_qp_linger: Duration::from_secs(60),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alert {
    pub kind: AlertKind,
    /// For people: who, what, since when.
    pub message: String,
    /// The owner it is about (for `unreleased_after_exit`: the process that exited).
    pub owner: Option<OwnerKey>,
    /// The device it is about, when it is about one.
    pub device: Option<String>,
    /// When the alert was first seen: the start the history gave it on the
    /// first of the run of snapshots that raised it, kept while it lasts
    /// (`alert_ages.rs`). `None` when nothing tells.
    pub since_ms: Option<UnixMs>,
}

/// A process (or several) exited in one collection while the unattributed
/// row grew: their objects were not released.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreleased {
    /// The processes that exited, with their names.
    pub owners: Vec<(OwnerKey, String)>,
    pub at_ms: UnixMs,
    /// The unattributed counts just before.
    pub before: TypeCounts,
    /// How much the unattributed row grew (at most what the processes held).
    pub grown: TypeCounts,
}

impl Unreleased {
    /// True while some of the left-behind objects are still there.
    pub fn persists(&self, unattributed_now: &TypeCounts) -> bool {
        ResourceType::ALL
            .into_iter()
            .any(|t| self.grown.get(t) > 0 && unattributed_now.get(t) > self.before.get(t))
    }

    pub fn alert(&self) -> Alert {
        let who = self
            .owners
            .iter()
            .map(|(_, name)| name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let what = counts_text(&self.grown);
        let verb = if self.owners.len() == 1 {
            "exited"
        } else {
            "exited together"
        };
        Alert {
            kind: AlertKind::UnreleasedAfterExit,
            message: format!("{who} {verb} but {what} stayed behind (now unattributed)"),
            owner: self.owners.first().map(|(o, _)| o.clone()),
            device: None,
            since_ms: Some(self.at_ms),
        }
    }
}

/// The alerts' one order: oldest first, then by kind, owner and device, so
/// alerts of the same age never swap places between refreshes (the alerts
/// panel, `trends.warnings`).
pub(super) fn order(alerts: &mut [Alert]) {
    alerts.sort_by(|a, b| {
        a.since_ms
            .cmp(&b.since_ms)
            .then(a.kind.cmp(&b.kind))
            .then_with(|| a.owner.cmp(&b.owner))
            .then_with(|| a.device.cmp(&b.device))
            .then_with(|| a.message.cmp(&b.message))
    });
}

/// "12 QPs, 4 MRs" for the non-zero counts.
pub fn counts_text(counts: &TypeCounts) -> String {
    counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(t, n)| format!("{n} {}", plural(t, n)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One alert per owner and device for the QPs in ERR/SQE at least `linger` old.
pub(super) fn lingering(
    ages: &[ErrorQpAge],
    linger: Duration,
    name_of: impl Fn(&OwnerKey) -> String,
) -> Vec<Alert> {
    let linger_ms = Millis::from(linger);
    let mut groups: BTreeMap<(&OwnerKey, &str), Vec<&ErrorQpAge>> = BTreeMap::new();
    for age in ages.iter().filter(|a| a.age_ms >= linger_ms) {
        groups
            .entry((&age.owner, age.device.as_str()))
            .or_default()
            .push(age);
    }
    let mut out: Vec<Alert> = groups
        .into_iter()
        .filter_map(|((owner, device), qps)| {
            let oldest = qps.iter().max_by_key(|a| a.age_ms)?;
            let at_least = if oldest.age_is_lower_bound {
                "at least "
            } else {
                ""
            };
            let age = span_text(oldest.age_ms);
            let who = name_of(owner);
            let message = if qps.len() == 1 {
                let was = oldest
                    .previous_state
                    .map(|s| format!(" (was {s})"))
                    .unwrap_or_default();
                format!(
                    "QP {} of {who} on {device} in {} for {at_least}{age}{was}",
                    oldest.lqpn, oldest.state
                )
            } else {
                format!(
                    "{} QPs of {who} on {device} in ERR/SQE, the oldest for {at_least}{age}",
                    qps.len()
                )
            };
            Some(Alert {
                kind: AlertKind::ErrorQpLingering,
                message,
                owner: Some(owner.clone()),
                device: Some(device.to_string()),
                since_ms: Some(oldest.first_seen_ms),
            })
        })
        .collect();
    out.sort_by_key(|a| a.since_ms);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ProcessKey, QpState};

    fn age(lqpn: u32, age_ms: u64, pid: u32) -> ErrorQpAge {
        let age_ms = Millis(age_ms);
        ErrorQpAge {
            device: "mlx5_0".into(),
            port: Some(1),
            lqpn,
            owner: OwnerKey::Process(ProcessKey { pid, start_time: 1 }),
            state: QpState::Err,
            first_seen_ms: UnixMs(1_000_000).minus(age_ms),
            age_ms,
            previous_state: Some(QpState::Rts),
            age_is_lower_bound: false,
        }
    }

    #[test]
    fn lingering_groups_per_owner_and_device() {
        let ages = [
            age(17, 90_000, 7),
            age(18, 61_000, 7),
            age(19, 10_000, 7),
            age(30, 65_000, 8),
        ];
        let alerts = lingering(&ages, Duration::from_secs(60), |o| format!("{o}"));
        assert_eq!(alerts.len(), 2);
        assert_eq!(
            alerts[0].message,
            "2 QPs of pid 7 on mlx5_0 in ERR/SQE, the oldest for 1 min 30 s"
        );
        assert_eq!(
            alerts[1].message,
            "QP 30 of pid 8 on mlx5_0 in ERR for 1 min 5 s (was RTS)"
        );
    }

    #[test]
    fn alerts_of_the_same_age_keep_one_order() {
        let ages = [age(17, 90_000, 7), age(30, 90_000, 8), age(31, 90_000, 9)];
        let mut a = lingering(&ages, Duration::from_secs(60), |o| format!("{o}"));
        let mut b = a.clone();
        b.reverse();
        order(&mut a);
        order(&mut b);
        assert_eq!(a, b);
        let pids: Vec<_> = a
            .iter()
            .map(|x| x.owner.as_ref().and_then(OwnerKey::pid))
            .collect();
        assert_eq!(pids, [Some(7), Some(8), Some(9)]);
    }

    #[test]
    fn unreleased_persists_while_the_objects_stay() {
        let mut before = TypeCounts::default();
        before.add(ResourceType::Qp, 2);
        let mut grown = TypeCounts::default();
        grown.add(ResourceType::Qp, 3);
        let u = Unreleased {
            owners: vec![(OwnerKey::Unattributed, "ib_write_bw (pid 9)".into())],
            at_ms: UnixMs(5),
            before,
            grown,
        };
        let mut now = before;
        now.add(ResourceType::Qp, 3);
        assert!(u.persists(&now));
        assert!(!u.persists(&before));
        assert_eq!(
            u.alert().message,
            "ib_write_bw (pid 9) exited but 3 QPs stayed behind (now unattributed)"
        );
    }
}
