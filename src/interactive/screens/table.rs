//! What every screen made of one object table does the same way: move,
//! scroll, click, sort, keep the selection in view, draw its title line and
//! the table. A screen that is one table ([`TableScreen`]) gets its whole
//! [`Screen`] from here and writes only what differs: its rows, its title
//! and empty text, and where Enter, `c` and `w` lead.

use crate::interactive::keys::{Action, Command, table};
use crate::interactive::layout::{TableArea, contains, contains_y};
use crate::interactive::screens::drill::DrillScreen;
use crate::interactive::screens::{
    CountersPick, Ctx, Gesture, Outcome, Screen, gesture, page_of, selection_step,
};
use crate::interactive::widgets::paint::title_line;
use crate::interactive::widgets::table::draw as table_draw;
use crate::interactive::widgets::table::{ObjectTable, table_columns};
use crate::interactive::widgets::theme::Theme;
use crossterm::event::MouseEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use std::any::Any;
use std::fmt::Debug;

/// A screen that is one object table under a title line (the ERROR-QP
/// screen, the alerts, a group's processes). Moving, paging, sorting, the
/// wheel and clicks act on the table where [`TableScreen::table_area`] puts
/// it, and the title and the table are drawn the same way for all of them.
pub trait TableScreen: Debug + Any {
    /// The screen's [`Screen::id`].
    const ID: &'static str;

    fn table(&self) -> &ObjectTable;

    fn table_mut(&mut self) -> &mut ObjectTable;

    /// Where the table (title, header, rows) is drawn in the screen's
    /// `body`: all of it, unless the screen shows more.
    fn table_area(&self, body: Rect) -> TableArea {
        TableArea::new(body)
    }

    /// Rebuilds the rows from the shown snapshot.
    fn refresh(&mut self, ctx: &Ctx);

    /// The title line's words (what the table lists, how many, in what
    /// style).
    fn title<'a>(&self, ctx: &Ctx, theme: &Theme) -> Span<'a>;

    /// The title line's dim note after the title (what Enter opens).
    fn title_note(&self) -> &'static str;

    /// What an empty table says.
    fn empty_text(&self, ctx: &Ctx) -> &'static str;

    /// Enter: the selected row's owner, in its drill-down.
    fn enter(&mut self, ctx: &Ctx) -> Option<Box<dyn Screen>> {
        let owner = self.table().selected()?.owner.clone()?;
        Some(Box::new(DrillScreen::new(owner, ctx.filter)))
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

/// The footer of a table of owners' objects whose rows lead to a port
/// (`c`): the ERROR-QP screen and the alerts.
pub(crate) const OWNER_TABLE_HINTS: &[&Command] = &[
    &table::BACK,
    &table::OPEN_OWNER,
    &table::COUNTERS,
    &table::SORT_NEXT,
    &table::REVERSE,
];

impl<T: TableScreen> Screen for T {
    fn id(&self) -> &'static str {
        T::ID
    }

    fn refresh(&mut self, ctx: &Ctx) {
        TableScreen::refresh(self, ctx);
    }

    fn settle(&mut self, ctx: &Ctx) {
        let area = self.table_area(ctx.body);
        settle_table(self.table_mut(), &area);
    }

    fn on_action(&mut self, action: Action, ctx: &Ctx) -> Outcome {
        let page = page_of(self.table_area(ctx.body).rows.height);
        if let Some(delta) = selection_step(action, page) {
            move_table(self.table_mut(), delta);
            return Outcome::Handled;
        }
        match action {
            Action::Enter => match TableScreen::enter(self, ctx) {
                Some(screen) => Outcome::Open(screen),
                None => Outcome::Handled,
            },
            Action::Counters => match TableScreen::counters_port(self, ctx) {
                Some(pick) => pick.into(),
                None => Outcome::Pass,
            },
            Action::FullText => match TableScreen::full_text(self, ctx) {
                Some((title, paragraphs)) => Outcome::FullText(title, paragraphs),
                None => Outcome::Pass,
            },
            Action::SortNext => sort_step(self.table_mut(), 1),
            Action::SortPrev => sort_step(self.table_mut(), -1),
            Action::Reverse => {
                self.table_mut().reverse();
                Outcome::Handled
            }
            _ => Outcome::Pass,
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent, ctx: &Ctx) -> Outcome {
        let area = self.table_area(ctx.body);
        match gesture(mouse) {
            Some(Gesture::Wheel { rows, .. }) => wheel_table(self.table_mut(), &area, rows),
            Some(Gesture::Click { x, y }) if contains(ctx.body, x, y) => {
                click_table(self.table_mut(), &area, x, y);
            }
            Some(Gesture::Click { .. }) => {}
            None => return Outcome::Pass,
        }
        Outcome::Handled
    }

    fn render(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, theme: &Theme) {
        let area = self.table_area(ctx.body);
        let buf = frame.buffer_mut();
        let note = Span::styled(self.title_note(), theme.dim());
        title_line(
            buf,
            area.title,
            self.title(ctx, theme),
            &[note],
            theme.dim(),
        );
        table_draw::draw(buf, &area, self.table(), self.empty_text(ctx), theme);
    }

    fn hints(&self) -> &'static [&'static Command] {
        TableScreen::hints(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// `s`, `>`, `<`: sort `table` by the next (or previous) column.
pub(crate) fn sort_step(table: &mut ObjectTable, step: isize) -> Outcome {
    table.next_sort_column(step);
    Outcome::Handled
}

pub(crate) fn move_table(table: &mut ObjectTable, delta: isize) {
    let len = table.rows.len();
    table.cursor.move_by(delta, len);
    table.remember_selection();
}

pub(crate) fn settle_table(table: &mut ObjectTable, area: &TableArea) {
    let len = table.rows.len();
    table.cursor.settle(len, usize::from(area.rows.height));
}

pub(crate) fn wheel_table(table: &mut ObjectTable, area: &TableArea, delta: isize) {
    let len = table.rows.len();
    table
        .cursor
        .scroll_by(delta, len, usize::from(area.rows.height));
    table.remember_selection();
}

/// A click on a column header sorts by it (again: reverses); on a row selects it.
pub(crate) fn click_table(table: &mut ObjectTable, area: &TableArea, x: u16, y: u16) {
    if contains_y(area.header, y) {
        let rel = x.saturating_sub(area.header.x);
        let hit = table_columns(table, area.header.width)
            .iter()
            .find(|p| rel >= p.x && rel < p.x.saturating_add(p.width))
            .map(|p| p.index);
        if let Some(col) = hit {
            table.sort_by(col);
        }
    } else if let Some(i) = area.row_at(y) {
        let len = table.rows.len();
        if table
            .cursor
            .select_visible(i, len, usize::from(area.rows.height))
        {
            table.remember_selection();
        }
    }
}
