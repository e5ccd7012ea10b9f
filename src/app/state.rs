//! The application state: what is shown, how it is sorted, filtered and
//! navigated. Changed only by `App::update` (see `update.rs`).

use super::config::AppConfig;
use super::cursor::Cursor;
use super::devices_view::{DeviceRow, device_rows};
use super::drill::{DetailState, DrillView, scope_covers};
use super::layout::{self, FrameLayout, MainLayout};
use super::object_rows::{ERROR_AGE_COLUMN, error_columns, error_row};
use super::object_table::ObjectTable;
use super::replay::ReplayState;
use super::trends_view::{
    ALERT_AGE_COLUMN, TrendViews, alert_columns, alert_rows, baseline_deltas, error_age,
    sort_by_delta,
};
use crate::model::consumers::{Consumer, SortDirection, SortKey, consumers, sort_consumers};
use crate::model::error_qps::error_qps;
use crate::model::filter::Filter;
use crate::model::history::{BaselineDelta, History};
use crate::model::{DetailScope, OwnerKey, Snapshot, SourceKind};
use ratatui::layout::Rect;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// A screen pushed over the main screen; `Esc` pops it.
#[derive(Clone, Debug, PartialEq)]
pub enum Screen {
    Drill(Box<DrillView>),
    ErrorQps,
    Alerts,
}

/// Which main-screen pane the movement keys act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Devices,
    Consumers,
}

/// The `/` filter being typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterEdit {
    pub text: String,
    /// The filter text before editing began, restored by Esc.
    pub previous: Option<String>,
}

#[derive(Debug)]
pub struct App {
    pub config: AppConfig,
    pub source: SourceKind,
    pub interval: Duration,
    /// Wall clock of the last tick (Unix ms), for ages in the header.
    pub now_ms: u64,
    /// Terminal size, for page sizes and mouse hit-testing.
    pub size: Rect,

    /// The snapshot on screen: the latest one, or the one frozen on.
    pub(super) shown: Option<Snapshot>,
    /// The detail scope `shown` was collected with.
    pub(super) shown_details: DetailScope,
    /// While frozen: the newest snapshot collected since, not shown.
    pub(super) pending: Option<(Snapshot, DetailScope)>,
    /// Snapshots collected since freezing.
    pub newer_while_frozen: usize,
    pub frozen: bool,
    /// The last collection failed with this; the last good snapshot stays shown.
    pub collect_error: Option<String>,
    /// Detail scope last asked of the collector.
    pub(super) requested_details: DetailScope,

    /// Command-line filters plus the `/` text.
    pub filter: Filter,
    pub filter_edit: Option<FilterEdit>,
    pub sort: SortKey,
    pub direction: SortDirection,

    pub devices: Vec<DeviceRow>,
    pub device_cursor: Cursor,
    pub consumers: Vec<Consumer>,
    pub consumer_cursor: Cursor,
    /// The selected consumer, followed across refreshes and re-sorts.
    pub(super) selected_owner: Option<OwnerKey>,
    pub focus: Focus,
    pub errors: ObjectTable,

    /// Every snapshot received, frozen or not: trends, ERROR-QP ages, baseline.
    pub history: History,
    /// What the history says about the shown snapshot.
    pub trend_views: TrendViews,
    /// Sparklines shown (`t`).
    pub sparklines: bool,
    /// Per consumer, the change since the baseline (empty without one).
    pub deltas: BTreeMap<OwnerKey, BaselineDelta>,
    /// The alerts panel: the snapshot's warnings and the history's alerts.
    pub alerts: ObjectTable,

    pub screens: Vec<Screen>,
    /// Help overlay open, scrolled this many lines.
    pub help: Option<u16>,
    pub quitting: bool,
    /// Playing a recording (`--replay`): position, speed, pace.
    pub replay: Option<ReplayState>,
}

impl App {
    pub fn new(config: AppConfig, source: SourceKind) -> App {
        App {
            source,
            interval: config.interval,
            now_ms: 0,
            size: Rect::new(0, 0, 80, 24),
            shown: None,
            shown_details: DetailScope::ErrorsOnly,
            pending: None,
            newer_while_frozen: 0,
            frozen: false,
            collect_error: None,
            requested_details: DetailScope::ErrorsOnly,
            filter: config.filter.clone(),
            filter_edit: None,
            sort: config.sort,
            direction: config.direction,
            devices: Vec::new(),
            device_cursor: Cursor::default(),
            consumers: Vec::new(),
            consumer_cursor: Cursor::default(),
            selected_owner: None,
            focus: Focus::Consumers,
            errors: ObjectTable::new(error_columns(), ERROR_AGE_COLUMN, SortDirection::Descending),
            history: History::new(config.history.clone()),
            trend_views: TrendViews::default(),
            sparklines: false,
            deltas: BTreeMap::new(),
            alerts: ObjectTable::new(alert_columns(), ALERT_AGE_COLUMN, SortDirection::Descending),
            screens: Vec::new(),
            help: None,
            quitting: false,
            replay: None,
            config,
        }
    }

    /// Plays a recording whose snapshots were collected at `times` (Unix ms):
    /// snapshots then come when `ShowRecord` commands ask for them.
    pub fn start_replay(&mut self, times: Vec<u64>) {
        self.replay = Some(ReplayState::new(times));
    }

    /// The snapshot on screen (the frozen one while frozen).
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.shown.as_ref()
    }

    pub fn screen(&self) -> Option<&Screen> {
        self.screens.last()
    }

    pub fn drill(&self) -> Option<&DrillView> {
        match self.screens.last() {
            Some(Screen::Drill(d)) => Some(d),
            _ => None,
        }
    }

    pub(super) fn drill_mut(&mut self) -> Option<&mut DrillView> {
        match self.screens.last_mut() {
            Some(Screen::Drill(d)) => Some(d),
            _ => None,
        }
    }

    pub fn selected_consumer(&self) -> Option<&Consumer> {
        self.consumers.get(self.consumer_cursor.selected)
    }

    pub fn frame_layout(&self) -> FrameLayout {
        layout::frame_layout(self.size)
    }

    pub fn main_layout(&self) -> MainLayout {
        layout::main_layout(self.frame_layout().body, self.devices.len())
    }

    /// A new snapshot: shown at once, or kept aside while frozen.
    pub(super) fn receive(&mut self, snapshot: Snapshot, details: DetailScope) {
        self.collect_error = None;
        self.history.push(&snapshot);
        if self.frozen {
            self.pending = Some((snapshot, details));
            self.newer_while_frozen += 1;
            return;
        }
        self.show(snapshot, details);
    }

    fn show(&mut self, snapshot: Snapshot, details: DetailScope) {
        self.trend_views = TrendViews::of(&self.history, &snapshot);
        self.shown = Some(snapshot);
        self.shown_details = details;
        self.refresh();
    }

    pub(super) fn toggle_freeze(&mut self) {
        if self.frozen {
            self.frozen = false;
            self.newer_while_frozen = 0;
            match self.pending.take() {
                Some((snapshot, details)) => self.show(snapshot, details),
                None => self.refresh(),
            }
        } else {
            self.frozen = true;
        }
    }

    /// Recomputes every view from the shown snapshot: once per snapshot or
    /// filter change, never per frame.
    pub(super) fn refresh(&mut self) {
        let Some(snapshot) = self.shown.as_ref() else {
            return;
        };
        self.devices = device_rows(snapshot, &self.filter);
        self.consumers = consumers(snapshot, &self.filter);
        self.deltas = baseline_deltas(&self.history, snapshot, &self.consumers, &self.filter);
        sort_consumers(&mut self.consumers, self.sort, self.direction);
        sort_by_delta(&mut self.consumers, &self.deltas, self.sort, self.direction);
        let at_ms = self.trend_views.at_ms;
        let errors: Vec<_> = error_qps(snapshot, &self.filter)
            .iter()
            .map(|e| error_row(e, error_age(&self.history, e, at_ms)))
            .collect();
        self.errors.set_rows(errors);
        self.alerts.set_rows(alert_rows(
            &snapshot.meta.warnings,
            &self.trend_views.alerts,
            at_ms,
        ));

        if self.screens.iter().any(|s| matches!(s, Screen::Drill(_))) {
            // The drill-down is about one owner whatever the text filter says.
            let unfiltered = Filter {
                text: None,
                pid: None,
                state: None,
                ..self.filter.clone()
            };
            let all = consumers(snapshot, &unfiltered);
            for screen in &mut self.screens {
                if let Screen::Drill(d) = screen {
                    d.refresh(
                        snapshot,
                        &all,
                        &self.filter,
                        &self.shown_details,
                        self.frozen,
                    );
                    // A recording cannot be asked for more than it kept.
                    if self.replay.is_some() && d.details != DetailState::Loaded {
                        d.details = DetailState::NotRecorded;
                    }
                }
            }
        }
        self.restore_consumer_selection();
        self.settle_cursors();
    }

    pub(super) fn resort_consumers(&mut self) {
        self.sort_consumer_rows();
        self.restore_consumer_selection();
        self.settle_cursors();
    }

    /// Sorts by the chosen column; with a baseline, counts sort by their change.
    fn sort_consumer_rows(&mut self) {
        sort_consumers(&mut self.consumers, self.sort, self.direction);
        sort_by_delta(&mut self.consumers, &self.deltas, self.sort, self.direction);
    }

    /// `b`: marks the snapshot on screen as the baseline, or clears it.
    pub(super) fn toggle_baseline(&mut self) {
        if self.history.baseline().is_some() {
            self.history.clear_baseline();
        } else if let Some(shown) = &self.shown {
            self.history.set_baseline_at(shown);
        }
        self.refresh();
    }

    fn restore_consumer_selection(&mut self) {
        if let Some(owner) = &self.selected_owner
            && let Some(i) = self.consumers.iter().position(|c| &c.owner == owner)
        {
            self.consumer_cursor.selected = i;
        }
        self.remember_consumer();
    }

    pub(super) fn remember_consumer(&mut self) {
        let len = self.consumers.len();
        self.consumer_cursor.selected = self.consumer_cursor.selected.min(len.saturating_sub(1));
        self.selected_owner = self.selected_consumer().map(|c| c.owner.clone());
    }

    /// Keeps every selection inside its list and visible in its viewport.
    pub(super) fn settle_cursors(&mut self) {
        let main = self.main_layout();
        let body = self.frame_layout().body;
        self.device_cursor
            .settle(self.devices.len(), usize::from(main.devices.rows.height));
        self.consumer_cursor.settle(
            self.consumers.len(),
            usize::from(main.consumers.rows.height),
        );
        let errors_h = layout::errors_layout(body).rows.height;
        self.errors
            .cursor
            .settle(self.errors.rows.len(), usize::from(errors_h));
        self.alerts
            .cursor
            .settle(self.alerts.rows.len(), usize::from(errors_h));
        let drill_h = layout::drill_layout(body).table.rows.height;
        for screen in &mut self.screens {
            if let Screen::Drill(d) = screen {
                let len = d.table.rows.len();
                d.table.cursor.settle(len, usize::from(drill_h));
            }
        }
    }

    /// The detail scope the open drill-downs need.
    pub(super) fn wanted_details(&self) -> DetailScope {
        let mut pids = BTreeSet::new();
        for screen in &self.screens {
            if let Screen::Drill(d) = screen {
                match d.owner.pid() {
                    Some(pid) => {
                        pids.insert(pid);
                    }
                    // Kernel and unattributed owners have no pid to ask for.
                    None => return DetailScope::All,
                }
            }
        }
        if pids.is_empty() {
            DetailScope::ErrorsOnly
        } else {
            DetailScope::Processes(pids)
        }
    }

    /// Whether the shown snapshot has the objects of `owner` in full.
    pub fn has_details_for(&self, owner: &OwnerKey) -> bool {
        scope_covers(&self.shown_details, owner)
    }
}
