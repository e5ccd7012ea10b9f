//! The full-screen fleet view (`restop fleet` without `--once`/`--json`): its state and its one
//! update function, driven by the same events as the single-host view (keys, mouse, resize,
//! ticks) plus the feed's readings (`Event::Fleet`), and answering with commands for the feed.
//! The hosts table is `hosts.rs` (with each row's sparkline of its worst usage, from the
//! model's `UsageTrails`: the feed's range answer for the rows on screen, which the view names
//! to the feed as they change, and each refresh's own point), the frame around it `draw.rs`,
//! the view on the terminal runtime `run.rs`; the cluster lists and a host's
//! detail are screens of their own (`screens/fleet_cluster/`, `screens/fleet_host/`). Keys come
//! from the fleet's rows of the key table (`keys/fleet.rs`).

pub mod draw;
pub mod hosts;

use crate::fleet::feed::{FeedRequest, FeedUpdate};
use crate::fleet::model::{FleetFilter, FleetState, RowRules, UsageTrails};
use crate::interactive::config::{longer_interval, shorter_interval};
use crate::interactive::event::Event;
use crate::interactive::keys::fleet::FLEET_COMMANDS;
use crate::interactive::keys::{Action, resolve_in};
use crate::interactive::layout::contains_y;
use crate::interactive::screens::fleet_cluster::{ClusterList, ClusterScreen};
use crate::interactive::screens::fleet_host::HostScreen;
use crate::interactive::screens::page_of;
use crate::interactive::widgets::cursor::visible_offset;
use crate::model::{Millis, UnixMs};
use crate::settings::ThemeKind;
use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use hosts::HostsScreen;
use ratatui::layout::Rect;
use std::time::Duration;

/// What the fleet view is set up with.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetConfig {
    /// Where the fleet is read from, for the header (`Prometheus http://…`).
    pub source: String,
    pub rules: RowRules,
    /// Consumers per cluster list.
    pub top: usize,
    pub interval: Duration,
    pub color: bool,
    pub theme: ThemeKind,
    pub mouse: bool,
    /// ASCII only (a locale that is set and not UTF-8, as the single-host view).
    pub ascii: bool,
}

/// Which list has the cursor: the hosts table or one of the cluster lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Hosts,
    Cluster(ClusterList),
}

const FOCUS_ORDER: [Focus; 4] = [
    Focus::Hosts,
    Focus::Cluster(ClusterList::Consumers),
    Focus::Cluster(ClusterList::ErrorQps),
    Focus::Cluster(ClusterList::Leaks),
];

/// A box over the view: the help or a text shown whole (`w`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Message {
        title: String,
        lines: Vec<String>,
        scroll: usize,
    },
}

/// The last refresh: when it ended and how long it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refreshed {
    pub at: UnixMs,
    pub took: Millis,
}

/// What the view asks of the event loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FleetCommand {
    Quit,
    Feed(FeedRequest),
}

/// The fleet view's state.
#[derive(Debug)]
pub struct FleetView {
    pub config: FleetConfig,
    pub interval: Duration,
    pub state: FleetState,
    pub refreshed: Option<Refreshed>,
    pub now_ms: UnixMs,
    pub size: Rect,
    pub filter: FleetFilter,
    pub filter_text: String,
    /// The `/` text being typed, and the text before it (Esc restores it).
    pub filter_edit: Option<(String, String)>,
    pub focus: Focus,
    pub hosts: HostsScreen,
    pub cluster: ClusterScreen,
    pub host: Option<HostScreen>,
    pub overlay: Option<Overlay>,
    /// A one-line answer to the last key, until the next one.
    pub status: Option<String>,
    pub quitting: bool,
    /// Each host's worst usage over the last half hour, for the rows' sparklines.
    pub trails: UsageTrails,
    /// Why the last range query for the sparklines failed (`w` shows it); the trails then go
    /// on from the view's own refreshes.
    pub trails_error: Option<String>,
    /// The hosts on screen as last named to the feed.
    visible: Vec<String>,
}

/// Rows the mouse wheel scrolls per notch.
const WHEEL_ROWS: isize = 3;

impl FleetView {
    pub fn new(config: FleetConfig) -> FleetView {
        FleetView {
            interval: config.interval,
            config,
            state: FleetState::default(),
            refreshed: None,
            now_ms: UnixMs(0),
            size: Rect::new(0, 0, 80, 24),
            filter: FleetFilter::default(),
            filter_text: String::new(),
            filter_edit: None,
            focus: Focus::Hosts,
            hosts: HostsScreen::default(),
            cluster: ClusterScreen::default(),
            host: None,
            overlay: None,
            status: None,
            quitting: false,
            trails: UsageTrails::default(),
            trails_error: None,
            visible: Vec::new(),
        }
    }

    /// Applies one event; returns what the event loop must do.
    pub fn update(&mut self, event: Event) -> Vec<FleetCommand> {
        let mut commands = Vec::new();
        match event {
            Event::Key(key) => self.on_key(key, &mut commands),
            Event::Mouse(mouse) => self.on_mouse(mouse),
            Event::Resize(w, h) => self.size = Rect::new(0, 0, w, h),
            Event::Tick(now) => self.now_ms = now,
            Event::Quit => {
                self.quitting = true;
                commands.push(FleetCommand::Quit);
            }
            Event::Fleet(update) => self.receive(*update),
            Event::Snapshot { .. } | Event::SignalResult { .. } => {}
        }
        self.settle();
        let visible = self.visible_hosts();
        if visible != self.visible {
            self.visible = visible.clone();
            commands.push(FleetCommand::Feed(FeedRequest::Visible(visible)));
        }
        commands
    }

    /// The hosts whose rows the hosts table shows at its size and scroll position (also while
    /// a list or a host's detail is over it: what is shown on the way back).
    pub fn visible_hosts(&self) -> Vec<String> {
        let pane = crate::interactive::layout::TableArea::new(self.body());
        let height = usize::from(pane.rows.height);
        let offset = visible_offset(self.hosts.cursor, self.hosts.rows.len(), height);
        self.hosts
            .rows
            .iter()
            .skip(offset)
            .take(height)
            .map(|r| r.host.clone())
            .collect()
    }

    fn receive(&mut self, update: FeedUpdate) {
        match update {
            FeedUpdate::Fleet { outcome, at, took } => {
                if let Ok(reading) = &outcome {
                    self.trails.record(reading);
                }
                self.state.apply(outcome, at);
                self.refreshed = Some(Refreshed { at, took });
                self.refresh();
            }
            FeedUpdate::Detail {
                host,
                outcome,
                live,
                at,
            } => {
                if let Some(screen) = self.host.as_mut().filter(|s| s.target.host == host) {
                    screen.receive(outcome, live, at);
                }
            }
            FeedUpdate::Trails { outcome } => match outcome {
                Ok(history) => {
                    self.trails.replace(history);
                    self.trails_error = None;
                }
                Err(error) => self.trails_error = Some(error),
            },
        }
    }

    /// Rebuilds every list from the shown reading: once per reading or filter change.
    fn refresh(&mut self) {
        let Some(reading) = &self.state.reading else {
            return;
        };
        let stale = self.state.is_stale();
        self.hosts
            .refresh(reading, &self.config.rules, stale, &self.filter);
        self.cluster.refresh(reading, &self.filter, self.config.top);
        if let Some(screen) = self.host.as_mut() {
            let name = &screen.target.host;
            if let Some(row) = crate::fleet::model::host_rows(reading, &self.config.rules, stale)
                .into_iter()
                .find(|r| &r.host == name)
            {
                screen.row = Some(row);
            }
        }
    }

    /// The body's area (between header and footer).
    pub fn body(&self) -> Rect {
        crate::interactive::layout::frame_layout(self.size).body
    }

    /// Keeps every cursor inside its list and in view.
    fn settle(&mut self) {
        let body = self.body();
        let pane = crate::interactive::layout::TableArea::new(body);
        let len = self.hosts.rows.len();
        self.hosts.cursor.settle(len, usize::from(pane.rows.height));
        let panes = crate::interactive::screens::fleet_cluster::draw::layout(body, &self.cluster);
        for (list, pane) in [
            ClusterList::Consumers,
            ClusterList::ErrorQps,
            ClusterList::Leaks,
        ]
        .into_iter()
        .zip(panes)
        {
            let table = self.cluster.table_mut(list);
            let len = table.rows.len();
            table.cursor.settle(len, usize::from(pane.rows.height));
        }
    }

    fn on_key(&mut self, key: KeyEvent, commands: &mut Vec<FleetCommand>) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        self.status = None;
        let ctrl_c =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl_c {
            self.quitting = true;
            commands.push(FleetCommand::Quit);
            return;
        }
        if self.filter_edit.is_some() {
            self.edit_filter(key);
            return;
        }
        let Some((_, action)) = resolve_in(FLEET_COMMANDS, key) else {
            return;
        };
        if self.overlay.is_some() {
            self.on_overlay(action);
            return;
        }
        self.on_action(action, commands);
    }

    fn edit_filter(&mut self, key: KeyEvent) {
        let Some((text, previous)) = self.filter_edit.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Enter => {
                self.filter_edit = None;
            }
            KeyCode::Esc => {
                let previous = previous.clone();
                self.filter_edit = None;
                self.set_filter(&previous);
            }
            KeyCode::Backspace => {
                text.pop();
                let text = text.clone();
                self.set_filter(&text);
            }
            KeyCode::Char(c) if !c.is_control() && text.chars().count() < 64 => {
                text.push(c);
                let text = text.clone();
                self.set_filter(&text);
            }
            _ => {}
        }
    }

    fn set_filter(&mut self, text: &str) {
        self.filter_text = text.to_string();
        self.filter = FleetFilter::new(text);
        self.hosts.cursor.home();
        self.refresh();
    }

    fn on_overlay(&mut self, action: Action) {
        let Some(overlay) = self.overlay.as_mut() else {
            return;
        };
        let scroll = match overlay {
            Overlay::Help { scroll } | Overlay::Message { scroll, .. } => scroll,
        };
        match action {
            Action::Up => *scroll = scroll.saturating_sub(1),
            Action::Down => *scroll += 1,
            Action::PageUp => *scroll = scroll.saturating_sub(10),
            Action::PageDown => *scroll += 10,
            Action::Home => *scroll = 0,
            Action::Quit | Action::Back | Action::Help | Action::Enter | Action::FullText => {
                self.overlay = None;
            }
            _ => {}
        }
    }

    fn on_action(&mut self, action: Action, commands: &mut Vec<FleetCommand>) {
        match action {
            Action::Quit => {
                self.quitting = true;
                commands.push(FleetCommand::Quit);
            }
            Action::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Action::Back => {
                if self.host.take().is_some() {
                    commands.push(FleetCommand::Feed(FeedRequest::Detail(None)));
                } else if !self.filter_text.is_empty() {
                    self.set_filter("");
                }
            }
            Action::Up => self.move_selection(-1),
            Action::Down => self.move_selection(1),
            Action::PageUp => self.move_selection(-(self.page() as isize)),
            Action::PageDown => self.move_selection(self.page() as isize),
            Action::Home => self.move_selection(isize::MIN / 2),
            Action::End => self.move_selection(isize::MAX / 2),
            Action::Enter => self.open_host(commands),
            Action::NextPart | Action::Right => self.step_focus(1),
            Action::PrevPart | Action::Left => self.step_focus(-1),
            Action::Tab(0) => self.focus_on(Focus::Hosts),
            Action::Tab(1) => self.focus_on(Focus::Cluster(ClusterList::Consumers)),
            Action::ErrorQps => self.focus_on(Focus::Cluster(ClusterList::ErrorQps)),
            Action::Alerts => self.focus_on(Focus::Cluster(ClusterList::Leaks)),
            Action::Group => {
                self.cluster.next_kind();
                self.focus_on(Focus::Cluster(ClusterList::Consumers));
                self.refresh();
            }
            Action::Filter => {
                self.filter_edit = Some((self.filter_text.clone(), self.filter_text.clone()));
            }
            Action::SortNext => self.step_sort(1),
            Action::SortPrev => self.step_sort(-1),
            Action::Reverse => match self.focus {
                _ if self.host.is_some() => {}
                Focus::Hosts => self.hosts.reverse(),
                Focus::Cluster(list) => self.cluster.table_mut(list).reverse(),
            },
            Action::IntervalLonger => self.set_interval(longer_interval(self.interval), commands),
            Action::IntervalShorter => self.set_interval(shorter_interval(self.interval), commands),
            Action::FullText => self.show_full_text(),
            _ => {}
        }
    }

    fn page(&self) -> usize {
        usize::from(page_of(self.body().height.saturating_sub(2)))
    }

    fn move_selection(&mut self, delta: isize) {
        let height = usize::from(self.body().height.saturating_sub(1));
        if let Some(screen) = self.host.as_mut() {
            let theme = draw::theme_of(&self.config);
            let lines =
                crate::interactive::screens::fleet_host::draw::lines(screen, self.now_ms, &theme)
                    .len();
            screen.scroll_by(delta, lines, height);
            return;
        }
        match self.focus {
            Focus::Hosts => {
                let len = self.hosts.rows.len();
                self.hosts.cursor.move_by(delta, len);
                self.hosts.remember();
            }
            Focus::Cluster(list) => {
                let table = self.cluster.table_mut(list);
                let len = table.rows.len();
                table.cursor.move_by(delta, len);
                table.remember_selection();
            }
        }
    }

    fn step_focus(&mut self, step: isize) {
        if self.host.is_some() {
            return;
        }
        let i = FOCUS_ORDER
            .iter()
            .position(|f| *f == self.focus)
            .unwrap_or(0) as isize;
        let n = FOCUS_ORDER.len() as isize;
        self.focus = FOCUS_ORDER[(i + step).rem_euclid(n) as usize];
    }

    fn focus_on(&mut self, focus: Focus) {
        if self.host.is_none() {
            self.focus = focus;
        }
    }

    fn step_sort(&mut self, step: isize) {
        if self.host.is_some() {
            return;
        }
        match self.focus {
            Focus::Hosts => self.hosts.step_sort(step),
            Focus::Cluster(ClusterList::Consumers) => {
                self.cluster.step_metric(step);
                self.refresh();
            }
            Focus::Cluster(list) => self.cluster.table_mut(list).next_sort_column(step),
        }
    }

    fn set_interval(&mut self, interval: Duration, commands: &mut Vec<FleetCommand>) {
        if interval != self.interval {
            self.interval = interval;
            commands.push(FleetCommand::Feed(FeedRequest::SetInterval(interval)));
        }
    }

    /// Enter: the selected host's detail (from the hosts table or a cluster list's row).
    fn open_host(&mut self, commands: &mut Vec<FleetCommand>) {
        if self.host.is_some() {
            return;
        }
        let name = match self.focus {
            Focus::Hosts => self.hosts.selected_row().map(|r| r.host.clone()),
            Focus::Cluster(list) => self.cluster.selected_host(list).map(str::to_string),
        };
        let Some(name) = name else {
            self.status = Some("no host selected".into());
            return;
        };
        let row = self
            .state
            .reading
            .as_ref()
            .and_then(|reading| {
                crate::fleet::model::host_rows(reading, &self.config.rules, self.state.is_stale())
                    .into_iter()
                    .find(|r| r.host == name)
            })
            .unwrap_or_else(|| {
                crate::fleet::model::host_rows(
                    &crate::fleet::model::FleetReading {
                        hosts: vec![crate::fleet::model::HostReport::named(&name)],
                        ..Default::default()
                    },
                    &self.config.rules,
                    true,
                )
                .remove(0)
            });
        let screen = HostScreen::new(&row);
        commands.push(FleetCommand::Feed(FeedRequest::Detail(Some(
            screen.target.clone(),
        ))));
        self.host = Some(screen);
    }

    /// `w`: the selected host's reasons, the refresh's error and notes, whole.
    fn show_full_text(&mut self) {
        let mut lines = Vec::new();
        let selected = match (&self.host, self.focus) {
            (Some(screen), _) => screen.row.clone(),
            (None, Focus::Hosts) => self.hosts.selected_row().cloned(),
            _ => None,
        };
        if let Some(row) = selected {
            lines.push(format!("{} — {}", row.host, row.status.label()));
            lines.extend(row.why.iter().map(|w| format!("  {w}")));
            if !row.exporters.is_empty() {
                lines.push(format!("  exporters: {}", row.exporters.join(", ")));
            }
            lines.push(String::new());
        }
        if let Some(error) = &self.state.error {
            lines.push(format!("refresh failed: {error}"));
        }
        if let Some(error) = &self.trails_error {
            lines.push(format!(
                "sparklines' history not read (kept from refreshes): {error}"
            ));
        }
        if let Some(reading) = &self.state.reading {
            lines.extend(reading.notes.iter().map(|n| format!("note: {n}")));
        }
        if lines.iter().all(String::is_empty) {
            lines = vec!["no reason, error or note to show".into()];
        }
        let lines = lines.into_iter().map(|l| crate::units::clean(&l)).collect();
        self.overlay = Some(Overlay::Message {
            title: "Full text".into(),
            lines,
            scroll: 0,
        });
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        if self.overlay.is_some() {
            if matches!(mouse.kind, MouseEventKind::Down(_)) {
                self.overlay = None;
            }
            return;
        }
        match mouse.kind {
            MouseEventKind::ScrollDown => self.move_selection(WHEEL_ROWS),
            MouseEventKind::ScrollUp => self.move_selection(-WHEEL_ROWS),
            MouseEventKind::Down(MouseButton::Left) => self.click(mouse.column, mouse.row),
            _ => {}
        }
    }

    /// A click on the hosts table: a header sorts, a row is selected.
    fn click(&mut self, x: u16, y: u16) {
        if self.host.is_some() || self.focus != Focus::Hosts {
            return;
        }
        let pane = crate::interactive::layout::TableArea::new(self.body());
        if contains_y(pane.header, y) {
            let table = self.hosts.placement();
            let rel = x.saturating_sub(pane.header.x);
            let hit = crate::interactive::widgets::table::table_columns(&table, pane.header.width)
                .iter()
                .find(|p| rel >= p.x && rel < p.x.saturating_add(p.width))
                .map(|p| p.index);
            if let Some(column) = hit {
                self.hosts.sort_by_column(column);
            }
        } else if let Some(i) = pane.row_at(y) {
            let len = self.hosts.rows.len();
            if self
                .hosts
                .cursor
                .select_visible(i, len, usize::from(pane.rows.height))
            {
                self.hosts.remember();
            }
        }
    }
}
