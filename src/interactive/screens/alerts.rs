//! The problems list (`a`): every problem the model ranks for the shown
//! snapshot (`Insights::problems`, the list the main screen's strip shows
//! the head of, and `--once`/`--json` print), in the model's order: most
//! severe first, then the oldest. Enter opens what a problem is about (its
//! device, its port's counters, its owner, that owner's ERROR QPs); `c` the
//! counters of its port or device.

use crate::interactive::keys::Command;
use crate::interactive::screens::main::problems_strip;
use crate::interactive::screens::table::{OWNER_TABLE_HINTS, TableScreen};
use crate::interactive::screens::{CountersPick, Ctx, Screen};
use crate::interactive::widgets::table::{Cell, Column, ObjectTable, Row};
use crate::interactive::widgets::theme::Theme;
use crate::model::consumers::SortDirection;
use crate::model::problems::Problem;
use ratatui::text::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct AlertsScreen {
    pub table: ObjectTable,
}

/// `#` is the model's rank: sorted by it, the list is the model's order.
const RANK_COLUMN: usize = 0;

fn columns() -> Vec<Column> {
    vec![
        Column::right("#", 3).keep(90),
        Column::left("SEVERITY", 8).keep(150),
        Column::left("KIND", 20).keep(40),
        Column::right("SINCE", 8).keep(80),
        // As wide as the screen allows: the why is a sentence.
        Column::left("WHY", 400).keep(200),
    ]
}

impl Default for AlertsScreen {
    fn default() -> Self {
        AlertsScreen {
            table: ObjectTable::new(columns(), RANK_COLUMN, SortDirection::Ascending),
        }
    }
}

/// A problem's row; its id is its rank, so the selection stays on the
/// same place of the list as it refreshes.
fn row(rank: usize, p: &Problem, ctx: &Ctx) -> Row {
    let n = u64::try_from(rank + 1).unwrap_or(u64::MAX);
    Row {
        id: (0, n),
        cells: vec![
            Cell::Num(Some(n)),
            Cell::Text(p.severity.name().to_string()),
            Cell::Text(p.kind.name().to_string()),
            Cell::Age {
                ms: Some(ctx.insights.at_ms.since(p.since_ms)),
                lower_bound: false,
                lingering: false,
            },
            Cell::Text(p.why.clone()),
        ],
        alert: p.severity == crate::model::problems::Severity::Critical,
        owner: p.subject.owner().cloned(),
    }
}

impl AlertsScreen {
    /// The selected row's problem.
    fn selected<'a>(&self, ctx: &Ctx<'a>) -> Option<&'a Problem> {
        let (_, rank) = self.table.selected()?.id;
        let i = usize::try_from(rank).ok()?.checked_sub(1)?;
        ctx.insights.problems.get(i)
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
        let rows = ctx
            .insights
            .problems
            .iter()
            .enumerate()
            .map(|(i, p)| row(i, p, ctx))
            .collect();
        self.table.set_rows(rows);
    }

    /// Enter: what the problem is about.
    fn enter(&mut self, ctx: &Ctx) -> Option<Box<dyn Screen>> {
        let p = self.selected(ctx)?;
        Some(problems_strip::open(p, ctx.filter))
    }

    /// `c`: the counters of the problem's port, or of its device's first
    /// port; a problem about an owner or the host names no port.
    fn counters_port(&self, ctx: &Ctx) -> Option<CountersPick> {
        let Some(p) = self.selected(ctx) else {
            return Some(Err("no counters: no problem is selected".to_string()));
        };
        problems_strip::counters_of(p, ctx).or_else(|| {
            Some(Err(format!(
                "no counters: this problem is about {}, not a device (Enter opens it)",
                p.subject_name
            )))
        })
    }

    fn hints(&self) -> &'static [&'static Command] {
        OWNER_TABLE_HINTS
    }

    fn full_text(&self, ctx: &Ctx) -> Option<(String, Vec<String>)> {
        let p = self.selected(ctx)?;
        Some((
            format!("{} {}", p.severity.name(), p.kind.name()),
            vec![p.why.clone()],
        ))
    }

    fn title<'a>(&self, ctx: &Ctx, theme: &Theme) -> Span<'a> {
        let n = self.table.rows.len();
        let style = if n == 0 {
            theme.title()
        } else {
            theme.warning()
        };
        Span::styled(
            format!("Problems ({n}) {}", ctx.filter.scope_label()),
            style,
        )
    }

    fn title_note(&self) -> &'static str {
        "  Enter: what it is about  Esc: back"
    }

    fn empty_text(&self, ctx: &Ctx) -> &'static str {
        if ctx.snapshot.is_none() {
            "collecting…"
        } else {
            "no problems: nothing past a threshold, no ERROR QP, no counter rising"
        }
    }
}
