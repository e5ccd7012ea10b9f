//! What the history adds to the views of the shown snapshot: trends and
//! sparklines, ERROR-QP ages, deltas since the baseline, and the alerts panel.
//! Computed once per shown snapshot (or filter change), read when drawing.

use super::object_rows::ErrorAge;
use super::object_table::{Cell, Column, Row};
use crate::model::consumers::{Consumer, SortDirection, SortKey};
use crate::model::error_qps::{ErrorQp, error_qps};
use crate::model::filter::Filter;
use crate::model::history::{
    Alert, AlertKind, BaselineDelta, History, OwnerHoldings, OwnerTrend, QpKey,
};
use crate::model::{OwnerKey, ResourceType, Snapshot, Warning};
use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The history as of the shown snapshot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrendViews {
    /// Collection time of the shown snapshot: the end of every window.
    pub at_ms: u64,
    /// Every owner of the shown snapshot with a history.
    pub owners: BTreeMap<OwnerKey, OwnerTrend>,
    /// Per device name and type, the count over the window (for sparklines).
    pub devices: BTreeMap<(String, ResourceType), Vec<u64>>,
    /// The history's alerts (the snapshot's own warnings are added in the panel).
    pub alerts: Vec<Alert>,
    /// The shown snapshot's ERROR QPs the filters admit, with their ages.
    pub error_qps: Vec<(ErrorQp, Option<ErrorAge>)>,
}

impl TrendViews {
    pub fn of(history: &History, snapshot: &Snapshot) -> TrendViews {
        let at_ms = snapshot.meta.collected_at_ms;
        let mut owners = BTreeMap::new();
        for tally in &snapshot.tallies {
            if owners.contains_key(&tally.owner) {
                continue;
            }
            if let Some(trend) = history.owner_trend_at(&tally.owner, at_ms) {
                owners.insert(tally.owner.clone(), trend);
            }
        }
        let mut devices = BTreeMap::new();
        for d in &snapshot.devices {
            for t in d.usage.0.keys() {
                devices.insert(
                    (d.name.clone(), *t),
                    history.device_series(&d.name, *t, at_ms),
                );
            }
        }
        TrendViews {
            at_ms,
            owners,
            devices,
            alerts: history.alerts_at(&history.config().alerts, at_ms),
            error_qps: Vec::new(),
        }
    }

    /// The ERROR QPs under the current filters.
    pub fn refresh_errors(&mut self, history: &History, snapshot: &Snapshot, filter: &Filter) {
        self.error_qps = error_qps(snapshot, filter)
            .into_iter()
            .map(|e| {
                let age = error_age(history, &e, self.at_ms);
                (e, age)
            })
            .collect();
    }

    pub fn owner(&self, owner: &OwnerKey) -> Option<&OwnerTrend> {
        self.owners.get(owner)
    }

    pub fn device_series(&self, device: &str, t: ResourceType) -> &[u64] {
        self.devices
            .get(&(device.to_string(), t))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    pub fn leak_suspects(&self) -> usize {
        self.owners.values().filter(|t| t.leak_suspect()).count()
    }
}

/// The age of an ERROR QP as of `at_ms`, from the history.
pub fn error_age(history: &History, e: &ErrorQp, at_ms: u64) -> Option<ErrorAge> {
    let key = QpKey {
        device: e.device.clone(),
        port: e.qp.port,
        lqpn: e.qp.lqpn,
        owner: e.qp.owner.clone(),
    };
    let entry = history.error_entry(&key)?;
    if entry.first_seen_ms > at_ms || entry.state != e.qp.state {
        // It left that state and came back after the frozen snapshot.
        return None;
    }
    let ms = at_ms - entry.first_seen_ms;
    let linger = history.config().alerts.error_qp_linger.as_millis();
    Some(ErrorAge {
        ms,
        lower_bound: entry.since_history_start,
        lingering: u128::from(ms) >= linger,
        previous: entry.previous_state,
    })
}

/// Change since the baseline of every consumer, over the devices the filter shows.
pub fn baseline_deltas(
    history: &History,
    snapshot: &Snapshot,
    consumers: &[Consumer],
    filter: &Filter,
) -> BTreeMap<OwnerKey, BaselineDelta> {
    let Some(baseline) = history.baseline() else {
        return BTreeMap::new();
    };
    let now = OwnerHoldings::of(snapshot);
    consumers
        .iter()
        .map(|c| (c.owner.clone(), baseline.delta(&c.owner, &now, filter)))
        .collect()
}

/// Re-sorts rows by their change since the baseline when the sort column is
/// a count: leak hunting wants who grew most on top. Stable, so ties keep
/// the order `sort_consumers` gave them.
pub fn sort_by_delta(
    rows: &mut [Consumer],
    deltas: &BTreeMap<OwnerKey, BaselineDelta>,
    key: SortKey,
    direction: SortDirection,
) {
    let value = |c: &Consumer| -> Option<i64> {
        let d = deltas.get(&c.owner).copied().unwrap_or_default();
        match key {
            SortKey::Count(t) => Some(d.counts.get(t)),
            SortKey::MrBytes => Some(d.mr_bytes),
            SortKey::ErrQps => Some(d.err_qps),
            _ => None,
        }
    };
    if deltas.is_empty() || rows.first().and_then(value).is_none() {
        return;
    }
    rows.sort_by(|a, b| {
        let order = value(a).cmp(&value(b));
        match direction {
            SortDirection::Ascending => order,
            SortDirection::Descending => order.reverse(),
        }
    });
}

/// Columns of the alerts panel; newest condition last, oldest first.
pub fn alert_columns() -> Vec<Column> {
    vec![
        Column::left("KIND", 21),
        Column::right("FOR", 8),
        // As wide as the screen allows: messages are sentences.
        Column::left("WHAT", 400),
    ]
}

/// The alerts panel's default sort: FOR, longest first.
pub const ALERT_AGE_COLUMN: usize = 1;

/// The snapshot's warnings (collection problems, and `limit` for usage past
/// the thresholds), then the history's alerts.
pub fn alert_rows(warnings: &[Warning], alerts: &[Alert], at_ms: u64) -> Vec<Row> {
    let mut rows: Vec<Row> = warnings
        .iter()
        .map(|w| Row {
            id: row_id(0, &w.message),
            cells: vec![
                Cell::Text(warning_kind(w)),
                Cell::Age {
                    ms: None,
                    lower_bound: false,
                    lingering: false,
                },
                Cell::Text(w.message.clone()),
            ],
            alert: false,
            owner: None,
        })
        .collect();
    rows.extend(alerts.iter().map(|a| {
        let ms = a.since_ms.map(|since| at_ms.saturating_sub(since));
        Row {
            id: row_id(1 + a.kind as u32, &(&a.owner, &a.device)),
            cells: vec![
                Cell::Text(a.kind.name().to_string()),
                Cell::Age {
                    ms,
                    lower_bound: false,
                    lingering: a.kind == AlertKind::ErrorQpLingering,
                },
                Cell::Text(a.message.clone()),
            ],
            alert: a.kind == AlertKind::ErrorQpLingering,
            // Enter leads to the objects: those left behind are unattributed now.
            owner: match a.kind {
                AlertKind::UnreleasedAfterExit => Some(OwnerKey::Unattributed),
                _ => a.owner.clone(),
            },
        }
    }));
    rows
}

/// A warning's kind as JSON spells it (`permission`, `dump_failed`, ...).
fn warning_kind(w: &Warning) -> String {
    serde_json::to_value(w.kind)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_else(|| "other".to_string())
}

/// A row id that stays the same across refreshes for the same condition.
fn row_id(group: u32, what: &impl Hash) -> (u32, u64) {
    let mut h = DefaultHasher::new();
    what.hash(&mut h);
    (group, h.finish())
}
