//! A group's processes (Enter on a pod or container row of the grouped consumers
//! table): each member process with its counts; Enter opens a process's objects.

use super::Ctx;
use crate::interactive::keys::{Command, table};
use crate::interactive::screens::table::TableScreen;
use crate::interactive::widgets::table::{Cell, Column, ObjectTable, Row};
use crate::interactive::widgets::theme::Theme;
use crate::model::consumer_table::ConsumerColumn;
use crate::model::consumers::{Consumer, SortDirection, consumers};
use crate::model::filter::Filter;
use crate::model::owner_group::{GroupKey, OwnerGroup, OwnerGroupRow, group_consumers};
use crate::model::{ResourceType, Snapshot};
use crate::units;
use ratatui::text::Span;

/// The QP column, sorted on by default.
const QP_COLUMN: usize = 4;

#[derive(Clone, Debug, PartialEq)]
pub struct GroupScreen {
    pub key: GroupKey,
    /// The grouping the key belongs to.
    pub by: OwnerGroup,
    /// `pod ml-training/llama-pretrain-0`, `container pytorch (3f2a…)`.
    pub title: String,
    /// The member processes, with their counts.
    pub table: ObjectTable,
    /// Whether the group still holds anything under the filters.
    pub present: bool,
}

impl GroupScreen {
    pub fn new(row: &OwnerGroupRow, by: OwnerGroup) -> GroupScreen {
        let columns = vec![
            Column::right("PID", 7),
            Column::left("USER", 8),
            Column::left("NAME", 18),
            Column::left("CONTAINER", 12),
            Column::right("QP", 6),
            Column::right("CQ", 6),
            Column::right("MR", 6),
            Column::right("MR-BYTES", 9),
            Column::right("ERR", 4),
        ];
        GroupScreen {
            key: row.key.clone(),
            by,
            title: title_of(row),
            table: ObjectTable::new(columns, QP_COLUMN, SortDirection::Descending),
            present: true,
        }
    }

    /// The group's row in `snapshot` under `filter`, if it still holds anything.
    fn find(&self, snapshot: &Snapshot, filter: &Filter) -> Option<OwnerGroupRow> {
        group_consumers(&consumers(snapshot, filter), self.by)
            .into_iter()
            .find(|r| r.key == self.key)
    }
}

/// What the screen's title calls the group.
fn title_of(row: &OwnerGroupRow) -> String {
    let name = units::clean(&row.name);
    match &row.key {
        GroupKey::Pod(_) => match row.pod() {
            Some(pod) => format!("pod {}", units::clean(&pod)),
            None => format!("pod {name}"),
        },
        GroupKey::Container(ct) => match row.pod() {
            Some(pod) => format!(
                "container {name} ({}) in pod {}",
                ct.short(),
                units::clean(&pod)
            ),
            None => format!("container {name} ({})", ct.short()),
        },
        GroupKey::Owner(_) => name,
    }
}

fn member_row(c: &Consumer) -> Row {
    let n = |t: ResourceType| Cell::Num(Some(c.counts.get(t)));
    let text = |column: ConsumerColumn| Cell::Text(column.cell(c));
    Row {
        id: (0, c.pid().map(u64::from).unwrap_or(u64::MAX)),
        cells: vec![
            Cell::Num(c.pid().map(u64::from)),
            text(ConsumerColumn::User),
            text(ConsumerColumn::Name),
            text(ConsumerColumn::Container),
            n(ResourceType::Qp),
            n(ResourceType::Cq),
            n(ResourceType::Mr),
            Cell::Bytes(c.mr_bytes),
            Cell::Num(Some(c.error_qps())),
        ],
        alert: c.error_qps() > 0,
        owner: Some(c.owner.clone()),
    }
}

impl TableScreen for GroupScreen {
    const ID: &'static str = "group";

    fn table(&self) -> &ObjectTable {
        &self.table
    }

    fn table_mut(&mut self) -> &mut ObjectTable {
        &mut self.table
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let Some(snapshot) = ctx.snapshot else {
            return;
        };
        let row = self.find(snapshot, ctx.filter);
        self.present = row.is_some();
        let rows = row
            .map(|r| r.members.iter().map(member_row).collect())
            .unwrap_or_default();
        self.table.set_rows(rows);
    }

    fn title<'a>(&self, _ctx: &Ctx, theme: &Theme) -> Span<'a> {
        let n = self.table.rows.len();
        let procs = if n == 1 { "process" } else { "processes" };
        Span::styled(format!("{}: {n} {procs}", self.title), theme.title())
    }

    fn title_note(&self) -> &'static str {
        "  Enter: a process's objects  Esc: back"
    }

    fn empty_text(&self, ctx: &Ctx) -> &'static str {
        match (ctx.snapshot, self.present) {
            (None, _) => "collecting…",
            (Some(_), false) => "no process of this group holds RDMA resources now (Esc goes back)",
            (Some(_), true) => "no process",
        }
    }

    fn hints(&self) -> &'static [&'static Command] {
        &[
            &table::BACK,
            &table::OPEN_OBJECTS,
            &table::SORT_NEXT,
            &table::REVERSE,
        ]
    }
}
