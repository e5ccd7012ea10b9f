//! One reading of the history for one snapshot: everything the history adds
//! to it (trends and leak verdicts per owner, device sparklines, the age of
//! every ERROR QP, the alerts with when each was first seen), under the
//! filters of the view asking. The TUI, the JSON `trends` object and the
//! exporter all format this one value, so an age or a verdict is derived in
//! one place.
//!
//! A new kind of reading (counter rates, their alerts) is a new field here,
//! filled in `History::insights`; alerts of any kind go to `alerts` and pass
//! the same filter.

use super::alerts::{Alert, AlertKind};
use super::error_ages::{ErrorQpAge, QpKey};
use super::{History, OwnerTrend};
use crate::model::consumers::consumers;
use crate::model::error_qps::{ErrorQp, error_qps};
use crate::model::filter::Filter;
use crate::model::problems::Problem;
use crate::model::{Millis, OwnerKey, QpState, ResourceType, Snapshot, UnixMs};
use std::collections::{BTreeMap, BTreeSet};

/// How long an ERROR QP has been in its state, as of the insights' time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorAge {
    pub ms: Millis,
    /// When it was first seen in that state.
    pub first_seen_ms: UnixMs,
    /// Already in that state when restop started watching: `ms` is a lower bound.
    pub lower_bound: bool,
    /// Older than the alert threshold (`--err-linger`).
    pub lingering: bool,
    /// The state it was seen in before, when it was seen.
    pub previous: Option<QpState>,
}

/// An ERROR QP of the snapshot and its age (`None`: no history of it yet).
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorQpInsight {
    pub qp: ErrorQp,
    pub age: Option<ErrorAge>,
}

/// What the history says about one snapshot. See the module documentation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Insights {
    /// The snapshot's collection time: the end of every window.
    pub at_ms: UnixMs,
    pub window_ms: Millis,
    pub retention_ms: Millis,
    /// How much history there is (first to latest snapshot).
    pub covered_ms: Millis,
    /// The shortest history a leak verdict is given on.
    pub min_span_ms: Millis,
    /// Every owner of the snapshot with a history, whatever the filters: a
    /// filter decides which rows a view shows, not what an owner's trend is.
    pub owners: BTreeMap<OwnerKey, OwnerTrend>,
    /// Per device name and type, the count over the window (for sparklines).
    pub devices: BTreeMap<(String, ResourceType), Vec<u64>>,
    /// The snapshot's ERROR QPs the filters admit, in `error_qps` order.
    pub error_qps: Vec<ErrorQpInsight>,
    /// Error episodes the history keeps that the snapshot does not list: the
    /// QP dump of their device failed this time, which does not end them.
    /// Only their age is known (the exporter keeps its series going with it).
    pub unlisted_error_qps: Vec<ErrorQpAge>,
    /// The history's alerts the filters admit (the snapshot's own warnings
    /// are not among them).
    pub alerts: Vec<Alert>,
    /// What is wrong, ranked (`model/problems/`), as far as the filters
    /// admit: the one list every front end shows.
    pub problems: Vec<Problem>,
}

impl Insights {
    pub fn owner(&self, owner: &OwnerKey) -> Option<&OwnerTrend> {
        self.owners.get(owner)
    }

    pub fn device_series(&self, device: &str, t: ResourceType) -> &[u64] {
        self.devices
            .get(&(device.to_string(), t))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Owners suspected of leaking something.
    pub fn leak_suspects(&self) -> usize {
        self.owners.values().filter(|t| t.leak_suspect()).count()
    }

    /// Every owner and type judged a leak suspect.
    pub fn suspected_types(&self) -> impl Iterator<Item = (&OwnerTrend, ResourceType)> {
        self.owners
            .values()
            .flat_map(|o| o.suspects().map(move |(t, _)| (o, t)))
    }
}

impl History {
    /// What the history says about `snapshot` (the latest one pushed, or an
    /// older one a frozen view shows), under `filter`.
    pub fn insights(&self, snapshot: &Snapshot, filter: &Filter) -> Insights {
        let mut insights = self.insights_of(snapshot, filter);
        insights.problems = self.problems_of(snapshot, filter);
        insights
    }

    /// Everything but the problems (which are raised from it).
    pub(super) fn insights_of(&self, snapshot: &Snapshot, filter: &Filter) -> Insights {
        let at_ms = snapshot.meta.collected_at_ms;
        let mut owners = BTreeMap::new();
        for tally in &snapshot.tallies {
            if !owners.contains_key(&tally.owner)
                && let Some(trend) = self.owner_trend_at(&tally.owner, at_ms)
            {
                owners.insert(tally.owner.clone(), trend);
            }
        }
        let mut devices = BTreeMap::new();
        for d in &snapshot.devices {
            for t in d.usage.0.keys() {
                let series = self.device_series(&d.name, *t, at_ms);
                devices.insert((d.name.clone(), *t), series);
            }
        }
        let error_qps: Vec<ErrorQpInsight> = error_qps(snapshot, filter)
            .into_iter()
            .map(|qp| {
                let age = self.error_age(&qp, at_ms);
                ErrorQpInsight { qp, age }
            })
            .collect();
        let listed: BTreeSet<QpKey> = error_qps.iter().map(|e| qp_key(&e.qp)).collect();
        let unlisted_error_qps = self
            .errors
            .ages(at_ms)
            .into_iter()
            .filter(|a| {
                filter.shows_device(&a.device)
                    && filter.pid.is_none_or(|pid| a.owner.pid() == Some(pid))
            })
            .filter(|a| !listed.contains(&age_key(a)))
            .collect();
        let admitted: BTreeSet<OwnerKey> = consumers(snapshot, filter)
            .into_iter()
            .map(|c| c.owner)
            .collect();
        let alerts = self
            .alerts_at(&self.config.alerts, at_ms)
            .into_iter()
            .filter(|a| shows_alert(a, filter, &admitted))
            .collect();
        Insights {
            at_ms,
            window_ms: self.config.window_ms(),
            retention_ms: self.config.retention_ms(),
            covered_ms: self.covered_ms(),
            min_span_ms: self.config.rules().min_span_ms,
            owners,
            devices,
            error_qps,
            unlisted_error_qps,
            alerts,
            problems: Vec::new(),
        }
    }

    /// The age of an ERROR QP as of `at_ms`. `None` when the history has no
    /// episode of it in that state as of then (it left the state and came
    /// back after a frozen snapshot, or the history began later).
    fn error_age(&self, e: &ErrorQp, at_ms: UnixMs) -> Option<ErrorAge> {
        let entry = self.error_entry(&qp_key(e))?;
        if entry.first_seen_ms > at_ms || entry.state != e.qp.state {
            return None;
        }
        let ms = at_ms.since(entry.first_seen_ms);
        let linger = Millis::from(self.config.alerts.error_qp_linger);
        Some(ErrorAge {
            ms,
            first_seen_ms: entry.first_seen_ms,
            lower_bound: entry.since_history_start,
            lingering: ms >= linger,
            previous: entry.previous_state,
        })
    }
}

/// How the history knows a QP: device name, port, number and owner.
fn qp_key(e: &ErrorQp) -> QpKey {
    QpKey {
        device: e.device.clone(),
        port: e.qp.port,
        lqpn: e.qp.lqpn,
        owner: e.qp.owner.clone(),
    }
}

fn age_key(a: &ErrorQpAge) -> QpKey {
    QpKey {
        device: a.device.clone(),
        port: a.port,
        lqpn: a.lqpn,
        owner: a.owner.clone(),
    }
}

/// The filters of the view: a `--pid` keeps only that process's alerts, a
/// device filter drops other devices', and a leak suspect must be a row the
/// filters admit.
fn shows_alert(alert: &Alert, filter: &Filter, admitted: &BTreeSet<OwnerKey>) -> bool {
    if let Some(pid) = filter.pid
        && alert.owner.as_ref().and_then(OwnerKey::pid) != Some(pid)
    {
        return false;
    }
    if let Some(device) = &alert.device
        && !filter.shows_device(device)
    {
        return false;
    }
    match alert.kind {
        AlertKind::LeakSuspect => alert.owner.as_ref().is_some_and(|o| admitted.contains(o)),
        AlertKind::ErrorQpLingering | AlertKind::UnreleasedAfterExit => true,
    }
}
