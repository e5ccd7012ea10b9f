//! How the TUI shows what the history says (`model::history::Insights`):
//! deltas since the baseline in the consumers table.

use crate::model::consumers::{Consumer, SortDirection, SortFields, SortKey};
use crate::model::filter::Filter;
use crate::model::history::{BaselineDelta, History, OwnerHoldings};
use crate::model::owner_group::OwnerGroupRow;
use crate::model::{OwnerKey, ResourceType, Snapshot};
use std::collections::BTreeMap;

/// Change since the baseline of every consumer, over the devices the filter shows.
pub(crate) fn baseline_deltas(
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
pub(crate) fn group_deltas(
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
pub(crate) fn sort_by_delta<R: SortFields>(
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
