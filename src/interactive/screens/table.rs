//! What every screen made of one object table does the same way: move,
//! scroll, click, keep the selection in view. A screen that is one table
//! ([`TableScreen`]) gets its whole [`Pane`] from here and writes only what
//! differs: where the table sits, its rows, its page and where Enter leads.

use crate::interactive::keys::{Command, table};
use crate::interactive::layout::{TablePane, contains, contains_y};
use crate::interactive::screens::drill::DrillView;
use crate::interactive::screens::{CountersPick, Ctx, Pane, page_of};
use crate::interactive::widgets::table::{ObjectTable, table_columns};
use crate::interactive::widgets::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::any::Any;
use std::fmt::Debug;

/// A screen that is one object table (the ERROR-QP pane, the alerts, a
/// device's consumers). Moving, paging, sorting, the wheel and clicks act on
/// the table where [`TableScreen::table_pane`] puts it.
pub trait TableScreen: Debug + Any {
    /// The screen's [`Pane::id`].
    const ID: &'static str;

    fn table(&self) -> &ObjectTable;

    fn table_mut(&mut self) -> &mut ObjectTable;

    /// Where the table (title, header, rows) is drawn in the screen's
    /// `body`: all of it, unless the screen shows more.
    fn table_pane(&self, body: Rect) -> TablePane {
        TablePane::new(body)
    }

    /// Rebuilds the rows from the shown snapshot.
    fn refresh(&mut self, ctx: &Ctx);

    fn render(&self, frame: &mut Frame, area: Rect, ctx: &Ctx, theme: &Theme);

    /// Enter: the selected row's owner, in its drill-down.
    fn enter(&mut self, ctx: &Ctx) -> Option<Box<dyn Pane>> {
        let owner = self.table().selected()?.owner.clone()?;
        Some(Box::new(DrillView::new(owner, ctx.filter)))
    }

    /// `w`: the full text of the selected row, when it is a message.
    fn full_text(&self, _ctx: &Ctx) -> Option<(String, Vec<String>)> {
        None
    }

    /// `c`: the counters of the selected row's port, or why there are none.
    fn counters_port(&self, _ctx: &Ctx) -> Option<CountersPick> {
        None
    }

    fn hints(&self) -> &'static [&'static Command] {
        &[
            &table::BACK,
            &table::OPEN_OWNER,
            &table::SORT_NEXT,
            &table::REVERSE,
        ]
    }
}

impl<T: TableScreen> Pane for T {
    fn id(&self) -> &'static str {
        T::ID
    }

    fn refresh(&mut self, ctx: &Ctx) {
        TableScreen::refresh(self, ctx);
    }

    fn settle(&mut self, ctx: &Ctx) {
        let pane = self.table_pane(ctx.body);
        settle_table(self.table_mut(), &pane);
    }

    fn page_rows(&self, ctx: &Ctx) -> u16 {
        page_of(self.table_pane(ctx.body).rows.height)
    }

    fn move_selection(&mut self, delta: isize, _ctx: &Ctx) {
        move_table(self.table_mut(), delta);
    }

    fn enter(&mut self, ctx: &Ctx) -> Option<Box<dyn Pane>> {
        TableScreen::enter(self, ctx)
    }

    fn full_text(&self, ctx: &Ctx) -> Option<(String, Vec<String>)> {
        TableScreen::full_text(self, ctx)
    }

    fn counters_port(&self, ctx: &Ctx) -> Option<CountersPick> {
        TableScreen::counters_port(self, ctx)
    }

    fn step_sort(&mut self, step: isize, _ctx: &Ctx) {
        self.table_mut().next_sort_column(step);
    }

    fn reverse_sort(&mut self, _ctx: &Ctx) {
        self.table_mut().reverse();
    }

    fn wheel(&mut self, _x: u16, _y: u16, delta: isize, ctx: &Ctx) {
        let pane = self.table_pane(ctx.body);
        wheel_table(self.table_mut(), &pane, delta);
    }

    fn click(&mut self, x: u16, y: u16, ctx: &Ctx) {
        if contains(ctx.body, x, y) {
            let pane = self.table_pane(ctx.body);
            click_table(self.table_mut(), &pane, x, y);
        }
    }

    fn render(&self, frame: &mut Frame, area: Rect, ctx: &Ctx, theme: &Theme) {
        TableScreen::render(self, frame, area, ctx, theme);
    }

    fn hints(&self) -> &'static [&'static Command] {
        TableScreen::hints(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

pub fn move_table(table: &mut ObjectTable, delta: isize) {
    let len = table.rows.len();
    table.cursor.move_by(delta, len);
    table.remember_selection();
}

pub fn settle_table(table: &mut ObjectTable, pane: &TablePane) {
    let len = table.rows.len();
    table.cursor.settle(len, usize::from(pane.rows.height));
}

pub fn wheel_table(table: &mut ObjectTable, pane: &TablePane, delta: isize) {
    let len = table.rows.len();
    table
        .cursor
        .scroll_by(delta, len, usize::from(pane.rows.height));
    table.remember_selection();
}

/// A click on a column header sorts by it (again: reverses); on a row selects it.
pub fn click_table(table: &mut ObjectTable, pane: &TablePane, x: u16, y: u16) {
    if contains_y(pane.header, y) {
        let rel = x.saturating_sub(pane.header.x);
        let hit = table_columns(table, pane.header.width)
            .iter()
            .find(|p| rel >= p.x && rel < p.x.saturating_add(p.width))
            .map(|p| p.index);
        if let Some(col) = hit {
            table.sort_by(col);
        }
    } else if let Some(i) = pane.row_at(y) {
        let len = table.rows.len();
        if table
            .cursor
            .select_visible(i, len, usize::from(pane.rows.height))
        {
            table.remember_selection();
        }
    }
}
