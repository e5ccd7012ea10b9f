//! The alerts panel (`a`): the snapshot's warnings, then leak suspects, QPs
//! lingering in ERR/SQE and objects left behind by exited processes; Enter
//! opens the objects an alert is about.

use super::Ctx;
use super::table::TableScreen;
use crate::app::layout::errors_layout;
use crate::app::object_table::ObjectTable;
use crate::app::trends_view::{ALERT_AGE_COLUMN, alert_columns, alert_rows};
use crate::model::consumers::SortDirection;
use crate::ui::object_table;
use crate::ui::paint::title_line;
use crate::ui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

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

impl TableScreen for AlertsScreen {
    const ID: &'static str = "alerts";

    fn table(&self) -> &ObjectTable {
        &self.table
    }

    fn table_mut(&mut self) -> &mut ObjectTable {
        &mut self.table
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let warnings = ctx.snapshot.map(|s| s.meta.warnings.as_slice());
        self.table.set_rows(alert_rows(
            warnings.unwrap_or_default(),
            &ctx.insights.alerts,
            ctx.insights.at_ms,
        ));
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
}
