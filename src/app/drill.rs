//! The drill-down into one owner: its objects by type.

use super::object_rows::{columns_for, default_sort, object_row};
use super::object_table::ObjectTable;
use crate::model::consumers::Consumer;
use crate::model::filter::Filter;
use crate::model::{DetailScope, OwnerKey, ResourceType, Snapshot, TypeCounts};

/// Whether the shown snapshot holds this owner's objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DetailState {
    Loaded,
    /// Asked for; the next collection brings them.
    Loading,
    /// The view is frozen on a snapshot collected without them.
    NotInFrozen,
    /// A replay: the recording kept only this owner's ERROR QPs.
    NotRecorded,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DrillView {
    pub owner: OwnerKey,
    /// The owner's row in the consumers table (totals, name, process details);
    /// `None` once the owner holds nothing any more.
    pub consumer: Option<Consumer>,
    pub tabs: Vec<ResourceType>,
    pub tab: ResourceType,
    pub table: ObjectTable,
    /// Objects of each type present in the snapshot (may be fewer than the
    /// counts while loading: only ERROR QPs are always kept).
    pub listed: TypeCounts,
    pub details: DetailState,
}

impl DrillView {
    pub fn new(owner: OwnerKey, filter: &Filter) -> DrillView {
        let tabs = filter.visible_types();
        let tab = tabs.first().copied().unwrap_or(ResourceType::Qp);
        let (columns, sort) = columns_for(tab);
        DrillView {
            owner,
            consumer: None,
            tabs,
            tab,
            table: ObjectTable::new(columns, sort, default_sort(tab)),
            listed: TypeCounts::default(),
            details: DetailState::Loading,
        }
    }

    /// Switches to tab `t`, fresh sort and selection.
    pub fn select_tab(&mut self, t: ResourceType, snapshot: Option<&Snapshot>, filter: &Filter) {
        if t == self.tab {
            return;
        }
        self.tab = t;
        let (columns, sort) = columns_for(t);
        self.table.direction = default_sort(t);
        self.table.reset(columns, sort, Vec::new());
        if let Some(s) = snapshot {
            self.refresh_rows(s, filter);
        }
    }

    pub fn step_tab(&mut self, step: isize, snapshot: Option<&Snapshot>, filter: &Filter) {
        let n = self.tabs.len();
        if n == 0 {
            return;
        }
        let current = self.tabs.iter().position(|t| *t == self.tab).unwrap_or(0);
        let next = (current as isize + step).rem_euclid(n as isize) as usize;
        if let Some(t) = self.tabs.get(next).copied() {
            self.select_tab(t, snapshot, filter);
        }
    }

    /// Rebuilds from a snapshot collected with detail scope `details`.
    pub fn refresh(
        &mut self,
        snapshot: &Snapshot,
        consumers: &[Consumer],
        filter: &Filter,
        details: &DetailScope,
        frozen: bool,
    ) {
        self.consumer = consumers.iter().find(|c| c.owner == self.owner).cloned();
        self.details = if scope_covers(details, &self.owner) {
            DetailState::Loaded
        } else if frozen {
            DetailState::NotInFrozen
        } else {
            DetailState::Loading
        };
        self.refresh_rows(snapshot, filter);
    }

    fn refresh_rows(&mut self, snapshot: &Snapshot, filter: &Filter) {
        let mut listed = TypeCounts::default();
        let mut rows = Vec::new();
        for obj in snapshot.objects.iter().filter(|o| o.owner() == &self.owner) {
            if !filter.shows_device(&snapshot.device_name(obj.device())) {
                continue;
            }
            let t = obj.resource_type();
            listed.add(t, 1);
            if t == self.tab {
                rows.push(object_row(snapshot, obj));
            }
        }
        self.listed = listed;
        self.table.set_rows(rows);
    }
}

/// True when a snapshot collected with `scope` holds every object of `owner`.
pub fn scope_covers(scope: &DetailScope, owner: &OwnerKey) -> bool {
    match scope {
        DetailScope::All => true,
        DetailScope::Processes(pids) => owner.pid().is_some_and(|p| pids.contains(&p)),
        DetailScope::ErrorsOnly => false,
    }
}
