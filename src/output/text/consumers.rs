//! The top consumers table: one row per process, kernel owner and the
//! unattributed bucket (or, with `--group`, per container or pod), the first
//! `--top` rows, then a totals row.

use super::layout::{
    Align, Column, clean, table_header, table_row, table_width, truncate, width_of,
};
use crate::model::consumer_table::{self, Align as TableAlign, ConsumerColumn};
use crate::model::consumers::{Consumer, SortDirection, SortKey, sort_consumers};
use crate::model::filter::Filter;
use crate::model::owner_group::{OwnerGroup, OwnerGroupRow, group_consumers};
use crate::model::{OwnerKey, ResourceType};

/// Longest user name shown before it is cut (like `ps`).
const USER_WIDTH: usize = 8;
/// Below this, optional columns are dropped to give names room.
const MIN_NAME_WIDTH: usize = 10;

/// The columns are the interactive view's (`model::consumer_table`); the
/// report sizes them to their content and aligns them as the model says.
fn align(field: ConsumerColumn) -> Align {
    match field.spec().align {
        TableAlign::Left => Align::Left,
        TableAlign::Right => Align::Right,
    }
}

/// How the table is cut and ordered.
pub(super) struct TableOptions {
    pub top: usize,
    pub sort: SortKey,
    pub direction: SortDirection,
    /// Rows per process, or per container or pod (the interactive view's `o`).
    pub group: OwnerGroup,
    pub width: usize,
}

pub(super) fn consumers(
    consumers: &[Consumer],
    filter: &Filter,
    options: &TableOptions,
) -> Vec<String> {
    // The interactive view's rows: grouping by process keeps every consumer a row.
    let mut rows = group_consumers(consumers, options.group);
    sort_consumers(&mut rows, options.sort, options.direction);
    let shown = if options.top == 0 {
        rows.len()
    } else {
        options.top.min(rows.len())
    };
    let mut title = format!("TOP CONSUMERS by {}", sort_label(options.sort));
    if options.group != OwnerGroup::Process {
        title.push_str(&format!(", grouped by {}", options.group.name()));
    }
    if shown < rows.len() {
        title.push_str(&format!(" ({shown} of {})", rows.len()));
    }
    let mut lines = vec![title];
    if rows.is_empty() {
        lines.push(if *filter == Filter::default() {
            "  no RDMA objects are held".to_string()
        } else {
            "  no consumer matches the filters".to_string()
        });
        return lines;
    }

    let total = totals(&rows);
    let (fields, hidden) = fit_fields(
        candidate_fields(&rows, filter),
        &rows[..shown],
        &total,
        options.width,
    );
    let columns = columns(&fields, &rows[..shown], &total, options.width);
    lines.push(table_header(&columns));
    let name_width = columns
        .iter()
        .zip(&fields)
        .find(|(_, f)| **f == ConsumerColumn::Name)
        .map_or(0, |(c, _)| c.width);
    for row in &rows[..shown] {
        let cells: Vec<String> = fields
            .iter()
            .map(|f| match f {
                ConsumerColumn::Name => name_cell(row, name_width),
                f => row.cell(*f),
            })
            .collect();
        lines.push(table_row(&columns, &cells));
    }
    if shown < rows.len() {
        lines.push(format!(
            "  … {} more (--top 0 shows all)",
            rows.len() - shown
        ));
    }
    let total_cells: Vec<String> = fields.iter().map(|f| total_cell(*f, &total)).collect();
    lines.push(table_row(&columns, &total_cells));
    if !hidden.is_empty() {
        let names: Vec<&str> = hidden.iter().map(|f| f.header()).collect();
        lines.push(format!(
            "  ({} hidden to fit {} columns; see --json)",
            names.join(", "),
            options.width
        ));
    }
    lines
}

/// A row's NAME in `width` characters. A group's name is cut before its process
/// count (`llama70b-pre… (3 procs)`), so a long pod name never hides how many
/// processes the row sums.
fn name_cell(row: &OwnerGroupRow, width: usize) -> String {
    let cell = row.cell(ConsumerColumn::Name);
    if width_of(&cell) <= width {
        return cell;
    }
    let name = clean(&row.name);
    match cell.strip_prefix(name.as_str()) {
        Some(count) if row.is_group() && width > width_of(count) + 1 => {
            format!("{}{count}", truncate(&name, width - width_of(count)))
        }
        _ => cell,
    }
}

/// The table's columns but CONTAINER and POD (the report is for hosts), SRQ and
/// CM_ID only when someone holds one or they were asked for, and ERR only
/// with QPs.
fn candidate_fields(rows: &[OwnerGroupRow], filter: &Filter) -> Vec<ConsumerColumn> {
    let rare = [ResourceType::Srq, ResourceType::CmId];
    consumer_table::columns(filter)
        .into_iter()
        .filter(|f| match f {
            ConsumerColumn::Container | ConsumerColumn::Pod | ConsumerColumn::Trend(_) => false,
            ConsumerColumn::Count(t) if rare.contains(t) => {
                filter.types.contains(t) || rows.iter().any(|r| r.total.counts.get(*t) > 0)
            }
            ConsumerColumn::ErrQps => filter.shows_type(ResourceType::Qp),
            _ => true,
        })
        .collect()
}

/// Drops the least looked-at columns until names get a usable width.
fn fit_fields(
    mut fields: Vec<ConsumerColumn>,
    shown: &[OwnerGroupRow],
    total: &Consumer,
    width: usize,
) -> (Vec<ConsumerColumn>, Vec<ConsumerColumn>) {
    let mut hidden = Vec::new();
    let drop_order = [
        ConsumerColumn::Count(ResourceType::CmId),
        ConsumerColumn::Count(ResourceType::Srq),
        ConsumerColumn::Count(ResourceType::Ctx),
        ConsumerColumn::Count(ResourceType::Pd),
        ConsumerColumn::User,
    ];
    for candidate in drop_order {
        if name_room(&fields, shown, total, width) >= MIN_NAME_WIDTH {
            break;
        }
        if let Some(pos) = fields.iter().position(|f| *f == candidate) {
            hidden.push(fields.remove(pos));
        }
    }
    (fields, hidden)
}

/// Columns sized to their content; NAME takes what is left, up to its need.
fn columns(
    fields: &[ConsumerColumn],
    shown: &[OwnerGroupRow],
    total: &Consumer,
    width: usize,
) -> Vec<Column> {
    let room = name_room(fields, shown, total, width);
    fields
        .iter()
        .map(|f| {
            let mut col = fitted_column(*f, shown, total);
            if *f == ConsumerColumn::Name {
                col.width = col.width.min(room);
            }
            col
        })
        .collect()
}

/// Characters left for NAME once every other column has its width.
fn name_room(
    fields: &[ConsumerColumn],
    shown: &[OwnerGroupRow],
    total: &Consumer,
    width: usize,
) -> usize {
    let others: Vec<Column> = fields
        .iter()
        .filter(|f| **f != ConsumerColumn::Name)
        .map(|f| fitted_column(*f, shown, total))
        .collect();
    // One more separator for the NAME column itself.
    width.saturating_sub(table_width(&others) + 1)
}

/// A column as wide as its header and cells (user names capped like `ps`).
fn fitted_column(field: ConsumerColumn, shown: &[OwnerGroupRow], total: &Consumer) -> Column {
    let mut cells: Vec<String> = shown.iter().map(|r| r.cell(field)).collect();
    cells.push(total_cell(field, total));
    let mut col = Column::fitted(
        field.header(),
        align(field),
        cells.iter().map(String::as_str),
    );
    if field == ConsumerColumn::User {
        col.width = col.width.min(USER_WIDTH);
    }
    col
}

fn totals(rows: &[OwnerGroupRow]) -> Consumer {
    let mut total = Consumer {
        owner: OwnerKey::Unattributed,
        name: String::new(),
        process: None,
        counts: Default::default(),
        mr_bytes: 0,
        qp_states: Default::default(),
        devices: Vec::new(),
    };
    for row in rows.iter().map(|r| &r.total) {
        total.counts += &row.counts;
        total.mr_bytes = total.mr_bytes.saturating_add(row.mr_bytes);
        total.qp_states.merge(&row.qp_states);
    }
    total
}

fn total_cell(field: ConsumerColumn, total: &Consumer) -> String {
    match field {
        ConsumerColumn::Name => "TOTAL".to_string(),
        f if f.value(total).is_some() => f.cell(total),
        _ => String::new(),
    }
}

fn sort_label(key: SortKey) -> &'static str {
    match key {
        SortKey::Pid => "PID",
        SortKey::Name => "NAME",
        SortKey::User => "USER",
        SortKey::Container => "CONTAINER",
        SortKey::Pod => "POD",
        SortKey::Count(t) => t.label(),
        SortKey::MrBytes => ConsumerColumn::MrBytes.header(),
        SortKey::ErrQps => "ERR QPs",
    }
}
