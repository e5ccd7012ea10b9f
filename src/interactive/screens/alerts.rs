//! The alerts panel (`a`): the snapshot's warnings, then leak suspects, QPs
//! lingering in ERR/SQE and objects left behind by exited processes; Enter
//! opens the objects an alert is about.

use crate::interactive::keys::Command;
use crate::interactive::rows::owner_trends::{
    ALERT_AGE_COLUMN, alert_columns, alert_row_id, alert_rows, is_warning_row, warning_row_id,
};
use crate::interactive::screens::drill::DrillScreen;
use crate::interactive::screens::message::MessageScreen;
use crate::interactive::screens::port_counters::first_port_of;
use crate::interactive::screens::table::{OWNER_TABLE_HINTS, TableScreen};
use crate::interactive::screens::{CountersPick, Ctx, Screen};
use crate::interactive::widgets::table::RowId;
use crate::interactive::widgets::table::{Cell, ObjectTable};
use crate::interactive::widgets::theme::Theme;
use crate::model::Warning;
use crate::model::consumers::SortDirection;
use crate::model::limits::device_warnings;
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

/// The device whose usage past a threshold the warning row `id` reports
/// (`mlx5_3 mr at 96% of max ...`), found by asking each device for its
/// `limit` warnings as the panel got them; `None` for any other warning.
fn limited_device(ctx: &Ctx, id: RowId) -> Option<String> {
    let snapshot = ctx.snapshot?;
    let thresholds = &ctx.config.thresholds;
    snapshot
        .devices
        .iter()
        .find(|d| {
            device_warnings(snapshot, &[d], thresholds)
                .iter()
                .any(|w| warning_row_id(w) == id)
        })
        .map(|d| d.name.clone())
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
        let snapshot = ctx.snapshot.map(|s| s.meta.warnings.as_slice());
        let warnings: Vec<Warning> = ctx
            .limit_warnings
            .iter()
            .chain(snapshot.unwrap_or_default())
            .cloned()
            .collect();
        self.table.set_rows(alert_rows(
            &warnings,
            &ctx.insights.alerts,
            ctx.insights.at_ms,
        ));
    }

    /// Enter: the objects the alert is about, or a box saying there are none
    /// to open (a collection warning, a device's limit).
    fn enter(&mut self, ctx: &Ctx) -> Option<Box<dyn Screen>> {
        let Some(row) = self.table.selected() else {
            return Some(Box::new(MessageScreen::new(
                "Nothing to open",
                vec!["no alert is selected".to_string()],
            )));
        };
        match &row.owner {
            Some(owner) => Some(Box::new(DrillScreen::new(owner.clone(), ctx.filter))),
            None => Some(Box::new(MessageScreen::new(
                "Nothing to open",
                vec![
                    "this alert is about no one owner's objects: it says all there is \
                     (w shows it whole)"
                        .to_string(),
                ],
            ))),
        }
    }

    /// `c`: the counters of the first port of the device the alert (or a
    /// device's `limit` warning) is about; an alert about a process, or
    /// another warning, names no port, and the footer says so.
    fn counters_port(&self, ctx: &Ctx) -> Option<CountersPick> {
        let why = |text: &str| Some(Err(format!("no counters: {text}")));
        let Some(row) = self.table.selected() else {
            return why("no alert is selected");
        };
        if is_warning_row(row.id) {
            return match limited_device(ctx, row.id) {
                Some(device) => Some(first_port_of(ctx, &device)),
                None => why("this warning is about no one device"),
            };
        }
        let Some(alert) = ctx
            .insights
            .alerts
            .iter()
            .find(|a| alert_row_id(a) == row.id)
        else {
            return why("the selected alert is not in the snapshot shown");
        };
        match &alert.device {
            Some(device) => Some(first_port_of(ctx, device)),
            None if alert.owner.is_some() => {
                why("this alert is about a process, not a device (Enter opens it)")
            }
            None => why("this alert is about no device"),
        }
    }

    fn hints(&self) -> &'static [&'static Command] {
        OWNER_TABLE_HINTS
    }

    fn full_text(&self, _ctx: &Ctx) -> Option<(String, Vec<String>)> {
        let row = self.table.selected()?;
        let text = |i: usize| match row.cells.get(i) {
            Some(Cell::Text(t)) => t.clone(),
            _ => String::new(),
        };
        Some((text(0), vec![text(2)]))
    }

    fn title<'a>(&self, ctx: &Ctx, theme: &Theme) -> Span<'a> {
        let n = self.table.rows.len();
        let style = if ctx.insights.alerts.is_empty() {
            theme.title()
        } else {
            theme.warning()
        };
        Span::styled(format!("Alerts ({n}) {}", ctx.filter.scope_label()), style)
    }

    fn title_note(&self) -> &'static str {
        "  Enter: the objects it is about  Esc: back"
    }

    fn empty_text(&self, ctx: &Ctx) -> &'static str {
        if ctx.snapshot.is_none() {
            "collecting…"
        } else if ctx.insights.covered_ms < ctx.insights.min_span_ms {
            "nothing to report yet (trends need a minute of history)"
        } else {
            "nothing to report"
        }
    }
}
