//! The screens of the interactive view. Each screen is one type in one file
//! that owns its state (rows, cursor, sort) and serves every action through
//! the [`Pane`] interface, so `App` dispatches without knowing which screen
//! is open and a new screen is a new file (plus the key or row that opens it).
//!
//! A screen's `render` composes its page from the widgets in `crate::interactive::widgets`
//! (tables, gauges, paint helpers); it stays a pure function of the state
//! and the area.

pub mod alerts;
pub mod device;
pub mod drill;
pub mod error_qps;
pub mod fleet;
pub mod fleet_cluster;
pub mod fleet_host;
pub mod group;
pub(crate) mod help;
pub(crate) mod main;
pub mod message;
pub mod port_counters;
pub mod signal;
pub mod sort_menu;
pub(crate) mod table;

use crate::interactive::app::config::AppConfig;
use crate::interactive::keys::{Action, Command};
use crate::interactive::widgets::theme::Theme;
use crate::model::consumers::{Consumer, SortKey};
use crate::model::filter::Filter;
use crate::model::history::{History, Insights};
use crate::model::{DetailScope, OwnerKey, Snapshot, Warning};
use crossterm::event::MouseEventKind;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::any::Any;
use std::fmt::Debug;

/// What every screen may read of the application: the shown snapshot and
/// what the history says about it, the filters, the settings, and where the
/// screen's body is.
#[derive(Clone, Copy, Debug)]
pub struct Ctx<'a> {
    pub snapshot: Option<&'a Snapshot>,
    /// The detail scope `snapshot` was collected with.
    pub details: &'a DetailScope,
    pub frozen: bool,
    /// Playing a recording: it cannot be asked for more than it kept.
    pub replaying: bool,
    pub filter: &'a Filter,
    pub history: &'a History,
    /// What the history says about `snapshot`, under `filter`.
    pub insights: &'a Insights,
    /// Usage past the thresholds on what is shown (`limit` warnings).
    pub limit_warnings: &'a [Warning],
    pub config: &'a AppConfig,
    /// The area between header and footer.
    pub body: Rect,
    /// Sparklines shown (`t`).
    pub sparklines: bool,
}

/// What a screen did with an action or a mouse event it was offered first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not for this screen: the application handles it.
    Pass,
    /// Taken; nothing else happens.
    Handled,
    /// Taken, and the screen is done: close it.
    Close,
    /// The screen is done: close it and sort the consumers by this key.
    CloseAndSort(SortKey),
    /// The signal dialog is confirmed: close it and send this.
    Signal(signal::SignalRequest),
}

/// What `c` finds on a screen: the port (device name, port index) whose
/// counters to show, or why the selected row leads to none (the footer says it).
pub type CountersPick = Result<(String, u32), String>;

/// One screen: its state and how it answers every action.
pub trait Pane: Debug + Any {
    /// A name for the screen, unique per kind: `e` and `a` find their pane by it.
    fn id(&self) -> &'static str;

    /// Rebuilds the screen's rows from the shown snapshot (once per snapshot
    /// or filter change, never per frame).
    fn refresh(&mut self, _ctx: &Ctx) {}

    /// Keeps every selection inside its rows and visible in its viewport.
    fn settle(&mut self, _ctx: &Ctx) {}

    /// Rows a page key moves: a page of the body unless the screen knows better.
    fn page_rows(&self, ctx: &Ctx) -> u16 {
        page_of(ctx.body.height)
    }

    fn move_selection(&mut self, _delta: isize, _ctx: &Ctx) {}

    /// Enter: the screen to open over this one, if the selection leads anywhere.
    fn enter(&mut self, _ctx: &Ctx) -> Option<Box<dyn Pane>> {
        None
    }

    /// `c`: the port whose counters to show, or why there is none; `None`
    /// when `c` means nothing on this screen.
    fn counters_port(&self, _ctx: &Ctx) -> Option<CountersPick> {
        None
    }

    /// `s`, `>`, `<`: sort by the next (or previous) column.
    fn step_sort(&mut self, _step: isize, _ctx: &Ctx) {}

    /// `r`.
    fn reverse_sort(&mut self, _ctx: &Ctx) {}

    /// Tab (`tab_key`), BackTab, ← →: the next part of the screen.
    fn next_pane(&mut self, _step: isize, _tab_key: bool, _ctx: &Ctx) {}

    /// `w`: the title and full text of what is selected (an alert, a
    /// warning) when a line may have cut it; `None` shows the header's.
    fn full_text(&self, _ctx: &Ctx) -> Option<(String, Vec<String>)> {
        None
    }

    /// `1`..`7`: a part of the screen by number.
    fn select_tab(&mut self, _index: usize, _ctx: &Ctx) {}

    /// The mouse wheel at (`x`, `y`), `delta` rows.
    fn wheel(&mut self, _x: u16, _y: u16, _delta: isize, _ctx: &Ctx) {}

    /// A left click at (`x`, `y`): select a row, sort by a column.
    fn click(&mut self, _x: u16, _y: u16, _ctx: &Ctx) {}

    /// Draws the screen in `ctx.body` (an overlay: over `area`, the whole
    /// screen above the footer).
    fn render(&self, frame: &mut Frame, area: Rect, ctx: &Ctx, theme: &Theme);

    /// The keys the footer names on this screen. An overlay's are the only
    /// ones named while it is open: it takes every key.
    fn hints(&self) -> &'static [&'static Command];

    /// The process this screen has selected, which `F9`/`K` offers to signal.
    fn selected_process(&self) -> Option<&Consumer> {
        None
    }

    /// Offered every action before the application: a modal screen (help)
    /// takes them all; a screen closes itself on its own key.
    fn on_action(&mut self, _action: Action) -> Outcome {
        Outcome::Pass
    }

    /// Offered every mouse event before the application. An overlay is
    /// modal: it takes them all, and a click closes it.
    fn on_mouse(&mut self, kind: MouseEventKind) -> Outcome {
        match kind {
            _ if !self.overlay() => Outcome::Pass,
            MouseEventKind::Down(_) => Outcome::Close,
            _ => Outcome::Handled,
        }
    }

    /// Drawn over the screen below it rather than instead of it (and modal).
    fn overlay(&self) -> bool {
        false
    }

    /// The owner whose objects this screen needs collected in full.
    fn wants_objects_of(&self) -> Option<&OwnerKey> {
        None
    }

    fn as_any(&self) -> &dyn Any;
}

/// Rows a page key moves in a list `height` rows high: one less, so the
/// last row of the old page stays in sight.
pub fn page_of(height: u16) -> u16 {
    height.max(2) - 1
}
