//! The ERROR-QP screen (`e`): every QP in ERR/SQE the filters admit, oldest
//! first; Enter opens the owner's drill-down on that QP.

use crate::interactive::keys::Command;
use crate::interactive::rows::object_rows::{
    error_age_column, error_columns, error_row, error_row_id,
};
use crate::interactive::screens::drill::DrillScreen;
use crate::interactive::screens::port_counters::first_port_of;
use crate::interactive::screens::table::{OWNER_TABLE_HINTS, TableScreen};
use crate::interactive::screens::{CountersPick, Ctx, Screen};
use crate::interactive::widgets::table::{Cell, ObjectTable};
use crate::interactive::widgets::theme::Theme;
use crate::model::consumers::SortDirection;
use ratatui::text::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct ErrorQpScreen {
    pub table: ObjectTable,
    /// Only this owner's QPs (a problem about one owner's broken QPs opens
    /// the pane so); `None`: every ERROR QP the filters admit.
    pub owner: Option<crate::model::OwnerKey>,
}

impl Default for ErrorQpScreen {
    fn default() -> Self {
        ErrorQpScreen {
            table: ObjectTable::new(
                error_columns(),
                error_age_column(),
                SortDirection::Descending,
            ),
            owner: None,
        }
    }
}

impl ErrorQpScreen {
    /// The pane showing only `owner`'s ERROR QPs.
    pub(crate) fn for_owner(owner: crate::model::OwnerKey) -> ErrorQpScreen {
        ErrorQpScreen {
            owner: Some(owner),
            ..ErrorQpScreen::default()
        }
    }

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

impl TableScreen for ErrorQpScreen {
    const ID: &'static str = "error_qps";

    fn table(&self) -> &ObjectTable {
        &self.table
    }

    fn table_mut(&mut self) -> &mut ObjectTable {
        &mut self.table
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let rows = ctx
            .insights
            .error_qps
            .iter()
            .filter(|i| self.owner.as_ref().is_none_or(|o| &i.qp.qp.owner == o))
            .map(error_row)
            .collect();
        self.table.set_rows(rows);
    }

    fn enter(&mut self, ctx: &Ctx) -> Option<Box<dyn Screen>> {
        let row = self.table.selected()?;
        let owner = row.owner.clone()?;
        // Land on the broken QP itself.
        Some(Box::new(
            DrillScreen::new(owner, ctx.filter).selecting(row.id),
        ))
    }

    /// `c`: the counters of the selected QP's port (the device's first port
    /// when the kernel gave the QP none).
    fn counters_port(&self, ctx: &Ctx) -> Option<CountersPick> {
        let Some(row) = self.table.selected() else {
            return Some(Err("no counters: no QP is selected".to_string()));
        };
        let found = ctx
            .insights
            .error_qps
            .iter()
            .find(|i| error_row_id(i) == row.id);
        let Some(insight) = found else {
            return Some(Err(
                "no counters: the selected QP is not in the snapshot shown".to_string(),
            ));
        };
        let device = &insight.qp.device;
        Some(match insight.qp.qp.port {
            Some(port) => Ok((device.clone(), port)),
            None => first_port_of(ctx, device),
        })
    }

    fn hints(&self) -> &'static [&'static Command] {
        OWNER_TABLE_HINTS
    }

    fn title<'a>(&self, ctx: &Ctx, theme: &Theme) -> Span<'a> {
        let n = self.table.rows.len();
        let style = if n > 0 { theme.alert() } else { theme.title() };
        let lingering = self.lingering();
        let scope = match &self.owner {
            Some(owner) => format!("of {}", owner_label(ctx, owner)),
            None => ctx.filter.scope_label(),
        };
        let count = if lingering > 0 {
            format!("QPs in ERR/SQE ({n}, {lingering} lingering) {scope}")
        } else {
            format!("QPs in ERR/SQE ({n}) {scope}")
        };
        Span::styled(count, style)
    }

    fn title_note(&self) -> &'static str {
        "  Enter: the owner's objects  Esc: back"
    }

    fn empty_text(&self, ctx: &Ctx) -> &'static str {
        if ctx.snapshot.is_some() {
            "no QP in ERR or SQE state"
        } else {
            "collecting…"
        }
    }
}

/// `leaky_svc (pid 3377)`, `[nvme_rdma]`: the owner as the problems list names it.
fn owner_label(ctx: &Ctx, owner: &crate::model::OwnerKey) -> String {
    ctx.insights
        .problems
        .iter()
        .find(|p| p.subject.owner() == Some(owner))
        .map(|p| p.subject_name.clone())
        .unwrap_or_else(|| match owner.pid() {
            Some(pid) => format!("pid {pid}"),
            None => "this owner".to_string(),
        })
}
