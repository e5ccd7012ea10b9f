//! How the TUI shows what the history says (`model::history::Insights`):
//! deltas since the baseline in the consumers table, and the alerts panel's rows.

use crate::interactive::widgets::table::{Cell, Column, Row, RowId};
use crate::model::consumers::{Consumer, SortDirection, SortFields, SortKey};
use crate::model::filter::Filter;
use crate::model::history::{Alert, AlertKind, BaselineDelta, History, OwnerHoldings};
use crate::model::owner_group::OwnerGroupRow;
use crate::model::{OwnerKey, ResourceType, Snapshot, UnixMs, Warning};
use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

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

/// The change since the baseline of every row of a grouped table: a group's is the
/// sum of its members', under the owner that stands for the row.
pub fn group_deltas(
    rows: &[OwnerGroupRow],
    members: &BTreeMap<OwnerKey, BaselineDelta>,
) -> BTreeMap<OwnerKey, BaselineDelta> {
    if members.is_empty() {
        return BTreeMap::new();
    }
    rows.iter()
        .map(|row| {
            let mut sum = BaselineDelta::default();
            for d in row.members.iter().filter_map(|m| members.get(&m.owner)) {
                for t in ResourceType::ALL {
                    sum.counts
                        .set(t, sum.counts.get(t).saturating_add(d.counts.get(t)));
                }
                sum.mr_bytes = sum.mr_bytes.saturating_add(d.mr_bytes);
                sum.err_qps = sum.err_qps.saturating_add(d.err_qps);
            }
            (row.total.owner.clone(), sum)
        })
        .collect()
}

/// Re-sorts rows by their change since the baseline when the sort column is
/// a count: leak hunting wants who grew most on top. Stable, so ties keep
/// the order `sort_consumers` gave them.
pub fn sort_by_delta<R: SortFields>(
    rows: &mut [R],
    deltas: &BTreeMap<OwnerKey, BaselineDelta>,
    key: SortKey,
    direction: SortDirection,
) {
    let value = |c: &R| -> Option<i64> {
        let d = deltas.get(c.row_owner()).copied().unwrap_or_default();
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
        Column::left("KIND", 21).keep(50),
        Column::right("FOR", 8).keep(80),
        // As wide as the screen allows: messages are sentences.
        Column::left("WHAT", 400).keep(200),
    ]
}

/// The alerts panel's default sort: FOR, longest first.
pub const ALERT_AGE_COLUMN: usize = 1;

/// The snapshot's warnings (collection problems, and `limit` for usage past
/// the thresholds), then the history's alerts.
pub fn alert_rows(warnings: &[Warning], alerts: &[Alert], at_ms: UnixMs) -> Vec<Row> {
    let mut rows: Vec<Row> = warnings
        .iter()
        .map(|w| Row {
            id: warning_row_id(w),
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
        let ms = a.since_ms.map(|since| at_ms.since(since));
        Row {
            id: alert_row_id(a),
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

/// The id of an alert's row: its kind, owner and device, stable across refreshes.
pub fn alert_row_id(a: &Alert) -> RowId {
    row_id(1 + a.kind as u32, &(&a.owner, &a.device))
}

/// The id of a warning's row: its text.
pub fn warning_row_id(w: &Warning) -> RowId {
    row_id(WARNING_GROUP, &w.message)
}

/// Whether a row of the alerts panel is one of the snapshot's warnings.
pub fn is_warning_row(id: RowId) -> bool {
    id.0 == WARNING_GROUP
}

/// The id group of the warnings' rows; alerts are `1 + kind`.
const WARNING_GROUP: u32 = 0;

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
