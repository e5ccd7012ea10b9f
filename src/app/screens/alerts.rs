//! The alerts panel (`a`): the snapshot's warnings, then leak suspects, QPs
//! lingering in ERR/SQE and objects left behind by exited processes; Enter
//! opens the objects an alert is about.

use super::drill::DrillView;
use super::table::{click_table, move_table, settle_table, wheel_table};
use super::{Ctx, Pane, page_of};
use crate::app::layout::{contains, errors_layout};
use crate::app::object_table::{Cell, ObjectTable};
use crate::app::trends_view::{ALERT_AGE_COLUMN, alert_columns, alert_rows};
use crate::model::consumers::SortDirection;
use crate::ui::object_table;
use crate::ui::paint::title_line;
use crate::ui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use std::any::Any;

#[derive(Clone, Debug, PartialEq)]
pub struct AlertsScreen {
    pub table: ObjectTable,
}

impl Default for AlertsScreen {
    fn default() -> Self {
        AlertsScreen {
            table: ObjectTable::new(alert_columns(), ALERT_AGE_COLUMN, SortDirection::Descending),
        }
    }
}

impl AlertsScreen {
    pub const ID: &'static str = "alerts";
}

impl Pane for AlertsScreen {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let warnings = ctx.snapshot.map(|s| s.meta.warnings.as_slice());
        self.table.set_rows(alert_rows(
            warnings.unwrap_or_default(),
            &ctx.insights.alerts,
            ctx.insights.at_ms,
        ));
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
        let owner = self.table.selected()?.owner.clone()?;
        Some(Box::new(DrillView::new(owner, ctx.filter)))
    }

    fn full_text(&self, _ctx: &Ctx) -> Option<(String, Vec<String>)> {
        let row = self.table.selected()?;
        let text = |i: usize| match row.cells.get(i) {
            Some(Cell::Text(t)) => t.clone(),
            _ => String::new(),
        };
        Some((text(0), vec![text(2)]))
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
        let style = if ctx.insights.alerts.is_empty() {
            theme.title()
        } else {
            theme.warning()
        };
        let hint = Span::styled("  Enter: the objects it is about  Esc: back", theme.dim());
        title_line(
            buf,
            pane.title,
            Span::styled(format!("Alerts ({n})"), style),
            &[hint],
            theme.dim(),
        );
        let empty = if ctx.snapshot.is_none() {
            "collecting…"
        } else if ctx.insights.covered_ms < ctx.insights.min_span_ms {
            "nothing to report yet (trends need a minute of history)"
        } else {
            "nothing to report"
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
