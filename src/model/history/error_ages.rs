//! When each QP entered ERR/SQE, and the state it was seen in before.
//!
//! A QP is identified by device, port, local QP number and owner (pid and
//! start time): a reused QP number or pid is a different QP. Snapshots keep
//! every ERR/SQE QP but other QPs only for the processes a view asked about,
//! so the previous state is known only when the QP was seen before it broke.

use crate::model::{Millis, Object, OwnerKey, QpState, ResourceType, Snapshot, UnixMs};
use std::collections::{BTreeMap, BTreeSet};

/// Which QP.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QpKey {
    pub device: String,
    pub port: Option<u32>,
    pub lqpn: u32,
    pub owner: OwnerKey,
}

/// One error episode of a QP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorEntry {
    pub state: QpState,
    /// When it was first seen in `state`.
    pub first_seen_ms: UnixMs,
    pub last_seen_ms: UnixMs,
    /// The state it was last seen in before, when it was seen.
    pub previous_state: Option<QpState>,
    /// Already in `state` in the first snapshot: the age is a lower bound.
    pub since_history_start: bool,
}

/// The age of a QP in ERR/SQE, as of the latest snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorQpAge {
    pub device: String,
    pub port: Option<u32>,
    pub lqpn: u32,
    pub owner: OwnerKey,
    pub state: QpState,
    pub first_seen_ms: UnixMs,
    pub age_ms: Millis,
    pub previous_state: Option<QpState>,
    /// The QP was already in this state when the history began.
    pub age_is_lower_bound: bool,
}

/// Remembered non-error states are dropped past this many QPs (oldest first).
const MAX_REMEMBERED_STATES: usize = 65_536;

#[derive(Clone, Debug, Default)]
pub(super) struct ErrorTracker {
    entries: BTreeMap<QpKey, ErrorEntry>,
    /// The last non-error state each QP was seen in, and when.
    last_states: BTreeMap<QpKey, (QpState, UnixMs)>,
}

impl ErrorTracker {
    /// Takes in the QPs of a snapshot whose objects are new (collected at
    /// `t_ms`). `first` is true for the history's first snapshot.
    pub(super) fn update(
        &mut self,
        snapshot: &Snapshot,
        t_ms: UnixMs,
        first: bool,
        retention: Millis,
    ) {
        let names: BTreeMap<u32, &str> = snapshot
            .devices
            .iter()
            .map(|d| (d.index, d.name.as_str()))
            .collect();
        // Devices whose QP list is not trustworthy this time: their episodes
        // are kept as they are rather than ended by a missing dump.
        let unsure: BTreeSet<u32> = snapshot
            .devices
            .iter()
            .filter(|d| {
                d.objects.collected_at_ms.is_none()
                    || d.objects.errors.iter().any(|(t, _)| *t == ResourceType::Qp)
            })
            .map(|d| d.index)
            .collect();

        let mut seen_in_error = BTreeSet::new();
        for obj in &snapshot.objects {
            let Object::Qp(qp) = obj else { continue };
            let key = QpKey {
                device: names
                    .get(&qp.device)
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| format!("dev{}", qp.device)),
                port: qp.port,
                lqpn: qp.lqpn,
                owner: qp.owner.clone(),
            };
            if !qp.state.is_error() {
                self.entries.remove(&key);
                self.last_states.insert(key, (qp.state, t_ms));
                continue;
            }
            seen_in_error.insert(key.clone());
            match self.entries.get_mut(&key) {
                Some(e) if e.state == qp.state => e.last_seen_ms = t_ms,
                existing => {
                    // New, or moved between SQE and ERR: a new episode.
                    let previous_state = match existing {
                        Some(e) => Some(e.state),
                        None => self.last_states.get(&key).map(|(s, _)| *s),
                    };
                    self.entries.insert(
                        key,
                        ErrorEntry {
                            state: qp.state,
                            first_seen_ms: t_ms,
                            last_seen_ms: t_ms,
                            previous_state,
                            since_history_start: first,
                        },
                    );
                }
            }
        }
        let unsure_names: BTreeSet<&str> = unsure
            .iter()
            .filter_map(|i| names.get(i).copied())
            .collect();
        let oldest = t_ms.minus(retention);
        self.entries.retain(|key, e| {
            seen_in_error.contains(key)
                || (unsure_names.contains(key.device.as_str()) && e.last_seen_ms >= oldest)
        });
        self.last_states.retain(|_, (_, seen)| *seen >= oldest);
        if self.last_states.len() > MAX_REMEMBERED_STATES {
            let mut times: Vec<UnixMs> = self.last_states.values().map(|(_, t)| *t).collect();
            times.sort_unstable();
            let cut = times
                .get(self.last_states.len() - MAX_REMEMBERED_STATES)
                .copied()
                .unwrap_or_default();
            self.last_states.retain(|_, (_, seen)| *seen > cut);
        }
    }

    /// Current episodes, as of `now_ms`, oldest first.
    pub(super) fn ages(&self, now_ms: UnixMs) -> Vec<ErrorQpAge> {
        let mut out: Vec<ErrorQpAge> = self
            .entries
            .iter()
            .filter(|(_, e)| e.first_seen_ms <= now_ms)
            .map(|(k, e)| ErrorQpAge {
                device: k.device.clone(),
                port: k.port,
                lqpn: k.lqpn,
                owner: k.owner.clone(),
                state: e.state,
                first_seen_ms: e.first_seen_ms,
                age_ms: now_ms.since(e.first_seen_ms),
                previous_state: e.previous_state,
                age_is_lower_bound: e.since_history_start,
            })
            .collect();
        out.sort_by(|a, b| {
            a.first_seen_ms
                .cmp(&b.first_seen_ms)
                .then_with(|| (&a.device, a.port, a.lqpn).cmp(&(&b.device, b.port, b.lqpn)))
        });
        out
    }

    pub(super) fn entry(&self, key: &QpKey) -> Option<&ErrorEntry> {
        self.entries.get(key)
    }

    /// How many QPs' states are remembered (bounded).
    pub(super) fn remembered(&self) -> usize {
        self.entries.len() + self.last_states.len()
    }
}
