//! The application state: what is shown, how it is filtered, and the stack
//! of screens over the main one. Changed only by `App::update` (see `update.rs`).
//!
//! What every screen reads (the shown snapshot, filters, history) lives here;
//! what one screen shows (its rows, cursor, sort) lives in that screen
//! (`screens/`).

use crate::interactive::app::replay::ReplayState;
use crate::interactive::config::AppConfig;
use crate::interactive::layout::{self, FrameLayout, MainLayout};
use crate::interactive::screens::drill::DrillScreen;
use crate::interactive::screens::help::HelpScreen;
use crate::interactive::screens::main::MainScreen;
use crate::interactive::screens::{Ctx, Screen};
use crate::model::consumers::Consumer;
use crate::model::device::grouped_order;
use crate::model::filter::Filter;
use crate::model::history::{History, Insights};
use crate::model::limits::{cgroup_warnings, device_warnings};
use crate::model::{DetailScope, Device, OwnerKey, Snapshot, SourceKind, UnixMs, Warning};
use ratatui::layout::Rect;
use std::collections::BTreeSet;
use std::time::Duration;

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
    /// Wall clock of the last tick, for ages in the header.
    pub now_ms: UnixMs,
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
    /// `filter` as it applies to the shown snapshot (a text that names a
    /// device scopes the counts to it): what every screen reads.
    pub scoped_filter: Filter,
    pub filter_edit: Option<FilterEdit>,

    /// Every snapshot received, frozen or not: trends, ERROR-QP ages, baseline.
    pub history: History,
    /// What the history says about the shown snapshot, under the filters.
    pub insights: Insights,
    /// Usage past `--warn`/`--crit` on the devices and in the cgroup quotas
    /// of what is shown: the `limit` warnings `--once` prints.
    pub limit_warnings: Vec<Warning>,
    /// Sparklines shown (`t`).
    pub sparklines: bool,

    /// The main screen, always under the others.
    pub main: MainScreen,
    /// Screens opened over the main one, the top one shown; `Esc` pops it.
    pub screens: Vec<Box<dyn Screen>>,
    pub quitting: bool,
    /// A one-line answer to the last key (a signal sent or refused), shown
    /// in the footer until the next key.
    pub status: Option<String>,
    /// Playing a recording (`--replay`): position, speed, pace.
    pub replay: Option<ReplayState>,
    /// `--record`: the recording's size on disk as of the last tick
    /// (`None` before the file exists or when it cannot be read).
    pub record_bytes: Option<u64>,
}

/// The context every screen reads, borrowed field by field so that a screen
/// of the same `App` can be borrowed mutably beside it.
macro_rules! ctx {
    ($app:expr) => {
        $crate::interactive::screens::Ctx {
            snapshot: $app.shown.as_ref(),
            details: &$app.shown_details,
            frozen: $app.frozen,
            replaying: $app.replay.is_some(),
            filter: &$app.scoped_filter,
            history: &$app.history,
            insights: &$app.insights,
            limit_warnings: &$app.limit_warnings,
            config: &$app.config,
            body: $crate::interactive::layout::frame_layout($app.size).body,
            sparklines: $app.sparklines,
        }
    };
}
pub(super) use ctx;

impl App {
    pub fn new(config: AppConfig, source: SourceKind) -> App {
        App {
            source,
            interval: config.interval,
            now_ms: UnixMs(0),
            size: Rect::new(0, 0, 80, 24),
            shown: None,
            shown_details: DetailScope::ErrorsOnly,
            pending: None,
            newer_while_frozen: 0,
            frozen: false,
            collect_error: None,
            requested_details: DetailScope::ErrorsOnly,
            filter: config.filter.clone(),
            scoped_filter: config.filter.clone(),
            filter_edit: None,
            history: History::new(config.history.clone()),
            insights: Insights::default(),
            limit_warnings: Vec::new(),
            sparklines: false,
            main: MainScreen::new(config.sort, config.direction, config.group),
            screens: Vec::new(),
            quitting: false,
            status: None,
            replay: None,
            record_bytes: None,
            config,
        }
    }

    /// Plays a recording whose snapshots were collected at `times`:
    /// snapshots then come when `ShowRecord` commands ask for them.
    pub fn start_replay(&mut self, times: Vec<UnixMs>) {
        self.replay = Some(ReplayState::new(times));
    }

    /// The snapshot on screen (the frozen one while frozen).
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.shown.as_ref()
    }

    /// What the screens read, for drawing.
    pub fn ctx(&self) -> Ctx<'_> {
        ctx!(self)
    }

    /// The screen on top (the main screen when none is open).
    pub fn top(&self) -> &dyn Screen {
        match self.screens.last() {
            Some(p) => p.as_ref(),
            None => &self.main,
        }
    }

    /// The ids of the screens opened over the main one, bottom first.
    pub fn screen_ids(&self) -> Vec<&'static str> {
        self.screens.iter().map(|s| s.id()).collect()
    }

    /// The screen drawn in the body: the top one that is not an overlay.
    pub fn page(&self) -> &dyn Screen {
        match self.screens.iter().rev().find(|s| !s.overlay()) {
            Some(p) => p.as_ref(),
            None => &self.main,
        }
    }

    /// The top screen, if it is of type `T`.
    pub fn top_as<T: Screen>(&self) -> Option<&T> {
        self.screens.last()?.as_any().downcast_ref::<T>()
    }

    /// Whether the main screen is the one drawn (overlays aside).
    pub fn on_main(&self) -> bool {
        self.screens.iter().all(|s| s.overlay())
    }

    /// The topmost open screen of type `T`.
    pub fn find_screen<T: Screen>(&self) -> Option<&T> {
        self.screens
            .iter()
            .rev()
            .find_map(|s| s.as_any().downcast_ref::<T>())
    }

    pub fn drill(&self) -> Option<&DrillScreen> {
        self.top_as::<DrillScreen>()
    }

    /// The help overlay's scroll, while it is open.
    pub fn help_scroll(&self) -> Option<u16> {
        self.top_as::<HelpScreen>().map(|h| h.scroll)
    }

    pub fn selected_consumer(&self) -> Option<&Consumer> {
        self.main.selected_consumer()
    }

    pub fn frame_layout(&self) -> FrameLayout {
        layout::frame_layout(self.size)
    }

    pub fn main_layout(&self) -> MainLayout {
        self.main.layout(self.frame_layout().body)
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

    /// Recomputes every screen from the shown snapshot: once per snapshot or
    /// filter change, never per frame.
    pub(super) fn refresh(&mut self) {
        let Some(snapshot) = self.shown.as_ref() else {
            return;
        };
        self.scoped_filter = self
            .filter
            .scoped_to_devices(snapshot.devices.iter().map(|d| d.name.as_str()));
        self.insights = self.history.insights(snapshot, &self.scoped_filter);
        let ctx = ctx!(self);
        self.main.refresh(&ctx);
        self.limit_warnings = self.limits_of_shown();
        let ctx = ctx!(self);
        for screen in &mut self.screens {
            screen.refresh(&ctx);
        }
        self.settle_cursors();
    }

    /// The `limit` warnings of the shown devices and consumers, read the
    /// way `--once` reads them (`mlx5_3 mr at 96% of max (…, critical)`).
    fn limits_of_shown(&self) -> Vec<Warning> {
        let Some(snapshot) = self.shown.as_ref() else {
            return Vec::new();
        };
        let devices: Vec<&Device> = grouped_order(&snapshot.devices)
            .into_iter()
            .filter(|d| self.scoped_filter.shows_device(&d.name))
            .collect();
        let thresholds = &self.config.thresholds;
        let mut out = device_warnings(snapshot, &devices, thresholds);
        out.extend(cgroup_warnings(
            self.main
                .consumers
                .iter()
                .filter_map(|c| c.process.as_ref()),
            thresholds,
        ));
        out
    }

    /// Every warning the header and the alerts panel show: usage past the
    /// thresholds first (the most urgent), then the snapshot's own.
    pub fn shown_warnings(&self) -> Vec<&Warning> {
        let snapshot = self.shown.as_ref().map(|s| s.meta.warnings.as_slice());
        self.limit_warnings
            .iter()
            .chain(snapshot.unwrap_or_default())
            .collect()
    }

    /// A collection failed: said in the header, and a problem of its own
    /// at the head of the list (the model raises it for no snapshot), from
    /// the first failure in a row until a snapshot comes again.
    pub(super) fn collection_failed(&mut self, message: String) {
        let failed = crate::model::problems::ProblemKind::CollectionFailed;
        let since = self
            .insights
            .problems
            .iter()
            .find(|p| p.kind == failed)
            .map_or(self.now_ms, |p| p.since_ms);
        self.insights.problems.retain(|p| p.kind != failed);
        let first_line = message.lines().next().unwrap_or_default().to_string();
        self.insights
            .problems
            .push(crate::model::problems::Problem::collection_failed(
                &first_line,
                since,
            ));
        crate::model::problems::rank(&mut self.insights.problems);
        self.collect_error = Some(message);
        self.settle_cursors();
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

    /// Keeps every selection inside its list and visible in its viewport.
    pub(super) fn settle_cursors(&mut self) {
        let ctx = ctx!(self);
        self.main.settle(&ctx);
        for screen in &mut self.screens {
            screen.settle(&ctx);
        }
    }

    /// Opens `screen` over the others, filled from the shown snapshot.
    pub(super) fn open(&mut self, mut screen: Box<dyn Screen>) {
        let ctx = ctx!(self);
        screen.refresh(&ctx);
        screen.settle(&ctx);
        self.screens.push(screen);
    }

    /// The detail scope the open screens need.
    pub(super) fn wanted_details(&self) -> DetailScope {
        let mut pids = BTreeSet::new();
        for owner in self.screens.iter().filter_map(|s| s.wants_objects_of()) {
            match owner.pid() {
                Some(pid) => {
                    pids.insert(pid);
                }
                // Kernel and unattributed owners have no pid to ask for.
                None => return DetailScope::All,
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
        crate::interactive::screens::drill::scope_covers(&self.shown_details, owner)
    }
}
