//! The drill-down into one owner (Enter): its objects by type, a tab each.

pub(crate) mod bound_counters;
pub(crate) mod draw;

use crate::interactive::keys::{Action, Command, table};
use crate::interactive::layout::{DrillLayout, contains, contains_y, drill_layout, tab_spans};
use crate::interactive::rows::object_ages::ObjectAges;
use crate::interactive::rows::object_rows::{columns_for, default_sort, object_row, row_id};
use crate::interactive::screens::table::{
    click_table, move_table, settle_table, sort_step, wheel_table,
};
use crate::interactive::screens::{
    Ctx, Gesture, Outcome, Screen, gesture, page_of, selection_step,
};
use crate::interactive::widgets::table::{Cell, Column, ObjectTable, RowId};
use crate::interactive::widgets::theme::Theme;
use crate::model::consumers::{Consumer, consumers};
use crate::model::filter::Filter;
use crate::model::{
    DetailScope, Millis, Object, OwnerKey, ResourceType, Snapshot, TypeCounts, UnixMs,
};
use crossterm::event::MouseEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::any::Any;

use std::collections::BTreeMap;

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
pub struct DrillScreen {
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
    /// The row to select once the objects are listed (an ERROR QP opened from the ERROR-QP screen).
    pending_select: Option<RowId>,
    /// How long each listed object has been seen (the AGE column, "oldest").
    pub ages: ObjectAges,
    /// When the shown snapshot was taken: what the ages are as of.
    pub at: UnixMs,
    /// Per type, how long the owner's count has never fallen (from the
    /// history): the objects there when watching began are at least that old.
    vouched: BTreeMap<ResourceType, Millis>,
    /// Where the last draw put everything, in which body: what paging,
    /// scrolling and clicks read (as bottom's tables read the rectangle of
    /// their last draw), so they act on the lines as drawn.
    drawn: std::cell::Cell<Option<(Rect, DrillLayout)>>,
}

/// The tab's columns, with the AGE every object row ends with.
fn drill_columns(t: ResourceType) -> (Vec<Column>, usize) {
    let (mut columns, sort) = columns_for(t);
    columns.push(Column::right("AGE", 8).keep(60));
    (columns, sort)
}

impl DrillScreen {
    pub fn new(owner: OwnerKey, filter: &Filter) -> DrillScreen {
        let tabs = filter.visible_types();
        let tab = tabs.first().copied().unwrap_or(ResourceType::Qp);
        let (columns, sort) = drill_columns(tab);
        DrillScreen {
            owner,
            consumer: None,
            tabs,
            tab,
            table: ObjectTable::new(columns, sort, default_sort(tab)),
            listed: TypeCounts::default(),
            details: DetailState::Loading,
            pending_select: None,
            ages: ObjectAges::default(),
            at: UnixMs(0),
            vouched: BTreeMap::new(),
            drawn: std::cell::Cell::new(None),
        }
    }

    /// Where everything is: as last drawn in `body`; before the first draw
    /// at this size, one line per text part (the next draw records the
    /// wrapped lines).
    pub fn layout(&self, body: Rect) -> DrillLayout {
        match self.drawn.get() {
            Some((drawn_in, layout)) if drawn_in == body => layout,
            _ => drill_layout(body),
        }
    }

    /// Opens on the object `id` (on its tab's first refresh).
    pub(crate) fn selecting(mut self, id: RowId) -> DrillScreen {
        self.pending_select = Some(id);
        self
    }

    /// Switches to tab `t`, fresh sort and selection.
    pub(crate) fn show_tab(
        &mut self,
        t: ResourceType,
        snapshot: Option<&Snapshot>,
        filter: &Filter,
    ) {
        if t == self.tab {
            return;
        }
        self.tab = t;
        let (columns, sort) = drill_columns(t);
        self.table.direction = default_sort(t);
        self.table.reset(columns, sort, Vec::new());
        if let Some(s) = snapshot {
            self.refresh_rows(s, filter);
        }
    }

    pub(crate) fn step_tab(&mut self, step: isize, snapshot: Option<&Snapshot>, filter: &Filter) {
        let n = self.tabs.len();
        if n == 0 {
            return;
        }
        let current = self.tabs.iter().position(|t| *t == self.tab).unwrap_or(0);
        let next = (current as isize + step).rem_euclid(n as isize) as usize;
        if let Some(t) = self.tabs.get(next).copied() {
            self.show_tab(t, snapshot, filter);
        }
    }

    /// Rebuilds from a snapshot collected with detail scope `details`.
    fn refresh_from(
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
        let mine: Vec<&Object> = snapshot
            .objects
            .iter()
            .filter(|o| o.owner() == &self.owner)
            .filter(|o| filter.shows_device(&snapshot.device_name(o.device())))
            .collect();
        let at = snapshot.meta.collected_at_ms;
        // Ages only from snapshots that list every object of the owner.
        if self.details == DetailState::Loaded && at != self.at {
            let vouched = |t| self.vouched.get(&t).copied().unwrap_or_default();
            let objects = mine.iter().map(|o| (o.resource_type(), row_id(o)));
            self.ages.observe_since(at, objects, vouched);
        }
        self.at = at;
        for obj in mine {
            let t = obj.resource_type();
            listed.add(t, 1);
            if t == self.tab {
                let mut row = object_row(snapshot, obj);
                let age = self.ages.age(t, row.id, at);
                row.cells.push(Cell::Age {
                    ms: age.map(|a| a.ms),
                    lower_bound: age.is_some_and(|a| a.lower_bound),
                    lingering: false,
                });
                rows.push(row);
            }
        }
        self.listed = listed;
        self.table.set_rows(rows);
        if !self.table.rows.is_empty()
            && let Some(id) = self.pending_select.take()
        {
            self.table.select_id(id);
        }
    }

    fn tab_step(&mut self, step: isize, ctx: &Ctx) -> Outcome {
        self.step_tab(step, ctx.snapshot, ctx.filter);
        Outcome::Handled
    }

    /// `1`..`7`: the tab by number.
    fn select_tab(&mut self, index: usize, ctx: &Ctx) {
        if let Some(t) = self.tabs.get(index).copied() {
            self.show_tab(t, ctx.snapshot, ctx.filter);
        }
    }

    /// A click on a tab shows it; on the table sorts or selects.
    fn click(&mut self, x: u16, y: u16, ctx: &Ctx) {
        if !contains(ctx.body, x, y) {
            return;
        }
        let l = self.layout(ctx.body);
        if contains_y(l.tabs, y) {
            let hit = tab_spans(&self.tab_labels(), l.tabs)
                .iter()
                .position(|(tx, w)| x >= *tx && x < tx.saturating_add(*w));
            if let Some(i) = hit {
                self.select_tab(i, ctx);
            }
        } else {
            click_table(&mut self.table, &l.table, x, y);
        }
    }

    fn tab_labels(&self) -> Vec<String> {
        self.tabs
            .iter()
            .map(|t| tab_label(*t, self.consumer.as_ref().map(|c| c.counts.get(*t))))
            .collect()
    }
}

/// Label of a drill-down tab: type and how many objects the owner holds.
pub(crate) fn tab_label(t: ResourceType, count: Option<u64>) -> String {
    format!(" {} {} ", t.label(), count.unwrap_or(0))
}

impl Screen for DrillScreen {
    fn selected_process(&self) -> Option<&Consumer> {
        self.consumer.as_ref()
    }

    fn id(&self) -> &'static str {
        "drill"
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let Some(snapshot) = ctx.snapshot else {
            return;
        };
        // The drill-down is about one owner whatever the text filter says.
        let unfiltered = Filter {
            text: None,
            pid: None,
            state: None,
            ..ctx.filter.clone()
        };
        let all = consumers(snapshot, &unfiltered);
        self.vouched = ctx
            .insights
            .owner(&self.owner)
            .map(|trend| {
                trend
                    .types
                    .iter()
                    .filter(|(_, tt)| {
                        tt.monotonicity >= 1.0 || tt.series.iter().all(|v| *v == tt.current)
                    })
                    .filter(|(_, tt)| tt.series.first().is_some_and(|v| *v > 0))
                    .map(|(t, tt)| (*t, tt.span_ms))
                    .collect()
            })
            .unwrap_or_default();
        self.refresh_from(snapshot, &all, ctx.filter, ctx.details, ctx.frozen);
        // A recording cannot be asked for more than it kept.
        if ctx.replaying && self.details != DetailState::Loaded {
            self.details = DetailState::NotRecorded;
        }
    }

    fn settle(&mut self, ctx: &Ctx) {
        let area = self.layout(ctx.body).table;
        settle_table(&mut self.table, &area);
    }

    fn on_action(&mut self, action: Action, ctx: &Ctx) -> Outcome {
        let page = page_of(self.layout(ctx.body).table.rows.height);
        if let Some(delta) = selection_step(action, page) {
            move_table(&mut self.table, delta);
            return Outcome::Handled;
        }
        match action {
            Action::SortNext => sort_step(&mut self.table, 1),
            Action::SortPrev => sort_step(&mut self.table, -1),
            Action::Reverse => {
                self.table.reverse();
                Outcome::Handled
            }
            // Tab, BackTab, ← →: the next or previous type.
            Action::NextPart | Action::Right => self.tab_step(1, ctx),
            Action::PrevPart | Action::Left => self.tab_step(-1, ctx),
            Action::Tab(index) => {
                self.select_tab(index, ctx);
                Outcome::Handled
            }
            _ => Outcome::Pass,
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent, ctx: &Ctx) -> Outcome {
        match gesture(mouse) {
            Some(Gesture::Wheel { rows, .. }) => {
                let area = self.layout(ctx.body).table;
                wheel_table(&mut self.table, &area, rows);
            }
            Some(Gesture::Click { x, y }) => self.click(x, y, ctx),
            None => return Outcome::Pass,
        }
        Outcome::Handled
    }

    fn render(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, theme: &Theme) {
        draw::draw(frame, ctx, self, theme);
    }

    fn hints(&self) -> &'static [&'static Command] {
        &[
            &table::BACK,
            &table::NEXT_TYPE,
            &table::SORT_NEXT,
            &table::REVERSE,
            &table::ERRORS,
        ]
    }

    fn wants_objects_of(&self) -> Option<&OwnerKey> {
        Some(&self.owner)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// True when a snapshot collected with `scope` holds every object of `owner`.
pub(crate) fn scope_covers(scope: &DetailScope, owner: &OwnerKey) -> bool {
    match scope {
        DetailScope::All => true,
        DetailScope::Processes(pids) => owner.pid().is_some_and(|p| pids.contains(&p)),
        DetailScope::ErrorsOnly => false,
    }
}
