//! The counters view of one port (`c`, or Enter on a port row of the device
//! view): every counter with its value, rate, sparkline and meaning,
//! sortable by name, value or rate; moved error counters marked.

pub(crate) mod draw;

use crate::interactive::keys::{Action, Command, table};
use crate::interactive::layout::{TablePane, contains, contains_y};
use crate::interactive::rows::port_counters::{
    CounterRow, CounterSort, counter_rows, find_port, sort_rows,
};
use crate::interactive::screens::port_counters::draw::{columns, draw};
use crate::interactive::screens::{CountersPick, Ctx, Outcome, Pane, page_of};
use crate::interactive::widgets::cursor::{Cursor, visible_offset};
use crate::interactive::widgets::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::any::Any;

/// `c` on a row about `device` and no one port: the device's first port in
/// the shown snapshot, or why there is none.
pub fn first_port_of(ctx: &Ctx, device: &str) -> CountersPick {
    let Some(found) = ctx
        .snapshot
        .and_then(|s| s.devices.iter().find(|d| d.name == device))
    else {
        return Err(format!(
            "no counters: {device} is not in the snapshot shown"
        ));
    };
    match found.ports.first() {
        Some(port) => Ok((device.to_string(), port.index)),
        None => Err(format!("no counters: {device} has no ports")),
    }
}

/// Lines above the table: the port, its traffic.
pub const INFO_LINES: u16 = 2;

#[derive(Clone, Debug, PartialEq)]
pub struct CountersScreen {
    pub device: String,
    pub port: u32,
    pub rows: Vec<CounterRow>,
    pub sort: CounterSort,
    pub descending: bool,
    pub cursor: Cursor,
    /// The selected counter, followed across refreshes and re-sorts.
    selected: Option<String>,
}

impl CountersScreen {
    pub fn new(device: String, port: u32) -> CountersScreen {
        CountersScreen {
            device,
            port,
            rows: Vec::new(),
            sort: CounterSort::Name,
            descending: false,
            cursor: Cursor::default(),
            selected: None,
        }
    }

    pub fn pane(body: Rect) -> TablePane {
        let info = INFO_LINES.min(body.height);
        TablePane::new(Rect::new(
            body.x,
            body.y + info,
            body.width,
            body.height - info,
        ))
    }

    fn resort(&mut self) {
        sort_rows(&mut self.rows, self.sort, self.descending);
        if let Some(name) = &self.selected
            && let Some(i) = self.rows.iter().position(|r| &r.name == name)
        {
            self.cursor.selected = i;
        }
        self.remember();
    }

    fn remember(&mut self) {
        let len = self.rows.len();
        self.cursor.selected = self.cursor.selected.min(len.saturating_sub(1));
        self.selected = self.rows.get(self.cursor.selected).map(|r| r.name.clone());
    }

    /// Sorts by `by`; the sorted column again reverses.
    pub fn sort_by(&mut self, by: CounterSort) {
        if self.sort == by {
            self.descending = !self.descending;
        } else {
            self.sort = by;
            self.descending = by.descending_by_default();
        }
        self.resort();
    }
}

impl Pane for CountersScreen {
    /// `c` again closes the counters view.
    fn on_action(&mut self, action: Action) -> Outcome {
        match action {
            Action::Counters => Outcome::Close,
            _ => Outcome::Pass,
        }
    }

    fn id(&self) -> &'static str {
        "counters"
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let Some(snapshot) = ctx.snapshot else {
            return;
        };
        self.rows = find_port(snapshot, &self.device, self.port)
            .and_then(|p| p.counters.as_ref())
            .map(|c| counter_rows(c, ctx.history.counters(), &self.device, self.port))
            .unwrap_or_default();
        self.resort();
    }

    fn settle(&mut self, ctx: &Ctx) {
        let pane = Self::pane(ctx.body);
        self.cursor
            .settle(self.rows.len(), usize::from(pane.rows.height));
    }

    fn page_rows(&self, ctx: &Ctx) -> u16 {
        page_of(Self::pane(ctx.body).rows.height)
    }

    fn move_selection(&mut self, delta: isize, _ctx: &Ctx) {
        self.cursor.move_by(delta, self.rows.len());
        self.remember();
    }

    fn step_sort(&mut self, step: isize, _ctx: &Ctx) {
        let all = CounterSort::ALL;
        let i = all.iter().position(|s| *s == self.sort).unwrap_or(0) as isize;
        let n = all.len() as isize;
        if let Some(next) = all.get((i + step).rem_euclid(n) as usize) {
            self.sort = *next;
            self.descending = next.descending_by_default();
        }
        self.resort();
    }

    fn reverse_sort(&mut self, _ctx: &Ctx) {
        self.descending = !self.descending;
        self.resort();
    }

    fn wheel(&mut self, _x: u16, _y: u16, delta: isize, ctx: &Ctx) {
        let pane = Self::pane(ctx.body);
        self.cursor
            .scroll_by(delta, self.rows.len(), usize::from(pane.rows.height));
        self.remember();
    }

    fn click(&mut self, x: u16, y: u16, ctx: &Ctx) {
        if !contains(ctx.body, x, y) {
            return;
        }
        let pane = Self::pane(ctx.body);
        if contains_y(pane.header, y) {
            let rel = x.saturating_sub(pane.header.x);
            let hit = columns(&self.rows, pane.header.width)
                .into_iter()
                .find(|c| rel >= c.x && rel < c.x + c.width)
                .and_then(|c| c.sort);
            if let Some(by) = hit {
                self.sort_by(by);
            }
        } else if let Some(i) = pane.row_at(y) {
            let len = self.rows.len();
            let offset = visible_offset(self.cursor, len, usize::from(pane.rows.height));
            if offset + i < len {
                self.cursor = Cursor {
                    selected: offset + i,
                    offset,
                };
                self.remember();
            }
        }
    }

    fn render(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, theme: &Theme) {
        draw(frame, self, ctx, theme);
    }

    fn hints(&self) -> &'static [&'static Command] {
        &[
            &table::BACK,
            &table::SORT_NEXT,
            &table::REVERSE,
            &table::CLOSE_COUNTERS,
        ]
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
