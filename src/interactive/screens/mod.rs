//! The screens of the interactive view. Each screen is one module (a file,
//! or a folder with its drawing in `draw.rs`) that owns its state (rows,
//! cursor, sort), takes the actions it gives a meaning to and draws itself,
//! behind the [`Screen`] trait, so `App` dispatches without knowing which
//! screen is open and a new screen is a new module (plus the key or row that
//! opens it).
//!
//! A screen's `render` composes its page from the widgets in `crate::interactive::widgets`
//! (tables, gauges, paint helpers); it stays a pure function of the state
//! and the area.

pub mod alerts;
pub mod device;
pub mod drill;
pub mod error_qps;
pub mod fleet;
pub(crate) mod fleet_cluster;
pub(crate) mod fleet_host;
pub mod group;
pub(crate) mod help;
pub(crate) mod main;
pub mod message;
pub mod port_counters;
pub(crate) mod port_traffic;
pub mod signal;
pub mod sort_menu;
pub(crate) mod table;

use crate::interactive::config::AppConfig;
use crate::interactive::keys::{Action, Command};
use crate::interactive::signal::SignalRequest;
use crate::interactive::widgets::theme::Theme;
use crate::model::consumers::{Consumer, SortKey};
use crate::model::filter::Filter;
use crate::model::history::{History, Insights};
use crate::model::{DetailScope, OwnerKey, Snapshot, Warning};
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
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
#[derive(Debug)]
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
    Signal(SignalRequest),
    /// Enter: open this screen over this one.
    Open(Box<dyn Screen>),
    /// `c`: open the counters of this port (device name, port index).
    Counters(String, u32),
    /// A one-line answer in the footer until the next key (why `c` found
    /// no port).
    Status(String),
    /// `w`: show this title and these paragraphs whole, in a message box.
    FullText(String, Vec<String>),
}

/// What `c` finds on a screen: the port (device name, port index) whose
/// counters to show, or why the selected row leads to none (the footer says it).
pub(crate) type CountersPick = Result<(String, u32), String>;

impl From<CountersPick> for Outcome {
    fn from(pick: CountersPick) -> Outcome {
        match pick {
            Ok((device, port)) => Outcome::Counters(device, port),
            Err(why) => Outcome::Status(why),
        }
    }
}

/// One screen: its state, the actions it takes and how it draws.
///
/// Every key reaches a screen as the [`Action`] the key table
/// (`keys/table.rs`) gives it, through [`Screen::on_action`]: a screen
/// matches the actions it gives a meaning to and passes the rest, so a new
/// key is a row of the table and an arm in the screens it concerns, never a
/// new method here.
pub trait Screen: Debug + Any {
    /// A name for the screen, unique per kind: `e` and `a` find their screen by it.
    fn id(&self) -> &'static str;

    /// Rebuilds the screen's rows from the shown snapshot (once per snapshot
    /// or filter change, never per frame).
    fn refresh(&mut self, _ctx: &Ctx) {}

    /// Keeps every selection inside its rows and visible in its viewport.
    fn settle(&mut self, _ctx: &Ctx) {}

    /// Offered every action before the application: moving, Enter, `c`,
    /// `w`, sorting, Tab and the tab numbers mean what this screen makes of
    /// them; a modal screen (help, the boxes) takes them all. `Pass` leaves
    /// the action to the application.
    fn on_action(&mut self, _action: Action, _ctx: &Ctx) -> Outcome {
        Outcome::Pass
    }

    /// Offered every mouse event before the application (the wheel, a left
    /// click: select a row, sort by a column). An overlay is modal: it takes
    /// them all, and a click closes it.
    fn on_mouse(&mut self, mouse: MouseEvent, _ctx: &Ctx) -> Outcome {
        match mouse.kind {
            _ if !self.overlay() => Outcome::Pass,
            MouseEventKind::Down(_) => Outcome::Close,
            _ => Outcome::Handled,
        }
    }

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

/// How far Up, Down, the page keys, Home and End move a list whose page
/// is `page` rows; `None` for any other action.
pub(crate) fn selection_step(action: Action, page: u16) -> Option<isize> {
    let page = isize::try_from(page).unwrap_or(1);
    match action {
        Action::Up => Some(-1),
        Action::Down => Some(1),
        Action::PageUp => Some(-page),
        Action::PageDown => Some(page),
        Action::Home => Some(isize::MIN / 2),
        Action::End => Some(isize::MAX / 2),
        _ => None,
    }
}

/// Rows the mouse wheel scrolls per notch.
pub(crate) const WHEEL_ROWS: isize = 3;

/// What a mouse event asks of a screen's lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gesture {
    /// The wheel at (`x`, `y`): scroll this many rows.
    Wheel { x: u16, y: u16, rows: isize },
    /// A left click at (`x`, `y`).
    Click { x: u16, y: u16 },
}

/// The wheel or left click in `mouse`; `None` for any other mouse event.
pub(crate) fn gesture(mouse: MouseEvent) -> Option<Gesture> {
    let (x, y) = (mouse.column, mouse.row);
    match mouse.kind {
        MouseEventKind::ScrollDown => Some(Gesture::Wheel {
            x,
            y,
            rows: WHEEL_ROWS,
        }),
        MouseEventKind::ScrollUp => Some(Gesture::Wheel {
            x,
            y,
            rows: -WHEEL_ROWS,
        }),
        MouseEventKind::Down(MouseButton::Left) => Some(Gesture::Click { x, y }),
        _ => None,
    }
}

/// Rows a page key moves in a list `height` rows high: one less, so the
/// last row of the old page stays in sight.
pub(crate) fn page_of(height: u16) -> u16 {
    height.max(2) - 1
}
