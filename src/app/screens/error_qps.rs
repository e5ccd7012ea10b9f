//! The ERROR-QP pane (`e`): every QP in ERR/SQE the filters admit, oldest
//! first; Enter opens the owner's drill-down on that QP.

use super::drill::DrillView;
use super::table::{click_table, move_table, settle_table, wheel_table};
use super::{Ctx, Pane, page_of};
use crate::app::layout::{contains, errors_layout};
use crate::app::object_rows::{ERROR_AGE_COLUMN, error_columns, error_row};
use crate::app::object_table::{Cell, ObjectTable};
use crate::model::consumers::SortDirection;
use crate::ui::object_table;
use crate::ui::paint::title_line;
use crate::ui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use std::any::Any;

#[derive(Clone, Debug, PartialEq)]
pub struct ErrorQpScreen {
    pub table: ObjectTable,
}

impl Default for ErrorQpScreen {
    fn default() -> Self {
        ErrorQpScreen {
            table: ObjectTable::new(error_columns(), ERROR_AGE_COLUMN, SortDirection::Descending),
        }
    }
}

impl ErrorQpScreen {
    pub const ID: &'static str = "error_qps";

    /// Rows past the alert threshold.
    fn lingering(&self) -> usize {
        self.table
            .rows
            .iter()
            .filter(|r| {
                r.cells.iter().any(|c| {
                    matches!(
                        c,
                        Cell::Age {
                            lingering: true,
                            ..
                        }
                    )
                })
            })
            .count()
    }
}

impl Pane for ErrorQpScreen {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let rows = ctx.insights.error_qps.iter().map(error_row).collect();
        self.table.set_rows(rows);
    }

    fn settle(&mut self, ctx: &Ctx) {
        settle_table(&mut self.table, &errors_layout(ctx.body));
    }

    fn page_rows(&self, ctx: &Ctx) -> u16 {
        page_of(errors_layout(ctx.body).rows.height)
    }

    fn move_selection(&mut self, delta: isize, _ctx: &Ctx) {
        move_table(&mut self.table, delta);
    }

    fn enter(&mut self, ctx: &Ctx) -> Option<Box<dyn Pane>> {
        let row = self.table.selected()?;
        let owner = row.owner.clone()?;
        // Land on the broken QP itself.
        Some(Box::new(
            DrillView::new(owner, ctx.filter).selecting(row.id),
        ))
    }

    fn step_sort(&mut self, step: isize, _ctx: &Ctx) {
        self.table.next_sort_column(step);
    }

    fn reverse_sort(&mut self, _ctx: &Ctx) {
        self.table.reverse();
    }

    fn wheel(&mut self, _x: u16, _y: u16, delta: isize, ctx: &Ctx) {
        wheel_table(&mut self.table, &errors_layout(ctx.body), delta);
    }

    fn click(&mut self, x: u16, y: u16, ctx: &Ctx) {
        if contains(ctx.body, x, y) {
            click_table(&mut self.table, &errors_layout(ctx.body), x, y);
        }
    }

    fn render(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, theme: &Theme) {
        let pane = errors_layout(ctx.body);
        let buf = frame.buffer_mut();
        let n = self.table.rows.len();
        let style = if n > 0 { theme.alert() } else { theme.title() };
        let hint = Span::styled("  Enter: the owner's objects  Esc: back", theme.dim());
        let lingering = self.lingering();
        let count = if lingering > 0 {
            format!("QPs in ERR/SQE ({n}, {lingering} lingering)")
        } else {
            format!("QPs in ERR/SQE ({n})")
        };
        title_line(
            buf,
            pane.title,
            Span::styled(count, style),
            &[hint],
            theme.dim(),
        );
        let empty = if ctx.snapshot.is_some() {
            "no QP in ERR or SQE state"
        } else {
            "collecting…"
        };
        object_table::draw(buf, &pane, &self.table, empty, theme);
    }

    fn hints(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("Esc", " back "),
            ("⏎", " owner "),
            ("s", " sort "),
            ("r", " reverse "),
        ]
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
