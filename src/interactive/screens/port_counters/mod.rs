//! The counters screen of one port (`c`, or Enter on a port row of the
//! device screen): every counter with its value, rate, sparkline and meaning,
//! sortable by name, value or rate; moved error counters marked.

pub(crate) mod draw;

use crate::interactive::keys::{Action, Command, table};
use crate::interactive::layout::{TableArea, contains, contains_y};
use crate::interactive::rows::port_counters::{
    CounterRow, CounterSort, counter_rows, find_port, sort_rows,
};
use crate::interactive::screens::port_counters::draw::{columns, draw, info_lines};
use crate::interactive::screens::{
    CountersPick, Ctx, Gesture, Outcome, Screen, gesture, page_of, selection_step,
};
use crate::interactive::widgets::cursor::{Cursor, visible_offset};
use crate::interactive::widgets::theme::Theme;
use crossterm::event::MouseEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::any::Any;

/// `c` on a row about `device` and no one port: the device's first port in
/// the shown snapshot, or why there is none.
pub(crate) fn first_port_of(ctx: &Ctx, device: &str) -> CountersPick {
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
pub(crate) const INFO_LINES: u16 = 2;

#[derive(Clone, Debug, PartialEq)]
pub struct PortCountersScreen {
    pub device: String,
    pub port: u32,
    pub rows: Vec<CounterRow>,
    pub sort: CounterSort,
    pub descending: bool,
    pub cursor: Cursor,
    /// The selected counter, followed across refreshes and re-sorts.
    selected: Option<String>,
}

impl PortCountersScreen {
    pub fn new(device: String, port: u32) -> PortCountersScreen {
        PortCountersScreen {
            device,
            port,
            rows: Vec::new(),
            sort: CounterSort::Name,
            descending: false,
            cursor: Cursor::default(),
            selected: None,
        }
    }

    /// Where the counters table sits: below the port's lines, as many as
    /// they wrap onto (`draw::info_lines`, the one reading the draw uses).
    pub(crate) fn table_area(&self, ctx: &Ctx) -> TableArea {
        let body = ctx.body;
        let wrapped = info_lines(self, ctx, &Theme::new(false)).len();
        let info = u16::try_from(wrapped)
            .unwrap_or(u16::MAX)
            .max(INFO_LINES)
            .min(body.height);
        TableArea::new(Rect::new(
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
    /// `s`, `>`, `<`: sort by the next (or previous) counter column.
    fn step_sort(&mut self, step: isize) -> Outcome {
        let all = CounterSort::ALL;
        let i = all.iter().position(|s| *s == self.sort).unwrap_or(0) as isize;
        let n = all.len() as isize;
        if let Some(next) = all.get((i + step).rem_euclid(n) as usize) {
            self.sort = *next;
            self.descending = next.descending_by_default();
        }
        self.resort();
        Outcome::Handled
    }

    /// A click on a column header sorts by it; on a row selects it.
    fn click(&mut self, x: u16, y: u16, ctx: &Ctx) {
        if !contains(ctx.body, x, y) {
            return;
        }
        let area = self.table_area(ctx);
        if contains_y(area.header, y) {
            let rel = x.saturating_sub(area.header.x);
            let hit = columns(&self.rows, area.header.width)
                .into_iter()
                .find(|c| rel >= c.x && rel < c.x + c.width)
                .and_then(|c| c.sort);
            if let Some(by) = hit {
                self.sort_by(by);
            }
        } else if let Some(i) = area.row_at(y) {
            let len = self.rows.len();
            let offset = visible_offset(self.cursor, len, usize::from(area.rows.height));
            if offset + i < len {
                self.cursor = Cursor {
                    selected: offset + i,
                    offset,
                };
                self.remember();
            }
        }
    }
}

impl Screen for PortCountersScreen {
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
        let area = self.table_area(ctx);
        self.cursor
            .settle(self.rows.len(), usize::from(area.rows.height));
    }

    fn on_action(&mut self, action: Action, ctx: &Ctx) -> Outcome {
        let page = page_of(self.table_area(ctx).rows.height);
        if let Some(delta) = selection_step(action, page) {
            self.cursor.move_by(delta, self.rows.len());
            self.remember();
            return Outcome::Handled;
        }
        match action {
            // `c` again closes the counters screen.
            Action::Counters => Outcome::Close,
            Action::SortNext => self.step_sort(1),
            Action::SortPrev => self.step_sort(-1),
            Action::Reverse => {
                self.descending = !self.descending;
                self.resort();
                Outcome::Handled
            }
            _ => Outcome::Pass,
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent, ctx: &Ctx) -> Outcome {
        match gesture(mouse) {
            Some(Gesture::Wheel { rows, .. }) => {
                let area = self.table_area(ctx);
                self.cursor
                    .scroll_by(rows, self.rows.len(), usize::from(area.rows.height));
                self.remember();
            }
            Some(Gesture::Click { x, y }) => self.click(x, y, ctx),
            None => return Outcome::Pass,
        }
        Outcome::Handled
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
