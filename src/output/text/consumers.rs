//! The top consumers table: one row per process, kernel owner and the
//! unattributed bucket, the first `--top` rows, then a totals row.

use super::layout::{Align, Column, clean, table_header, table_row, table_width};
use crate::model::consumers::{Consumer, SortDirection, SortKey, sort_consumers};
use crate::model::filter::Filter;
use crate::model::{OwnerKey, ResourceType};
use crate::units;

/// Longest user name shown before it is cut (like `ps`).
const USER_WIDTH: usize = 8;
/// Below this, optional columns are dropped to give names room.
const MIN_NAME_WIDTH: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Pid,
    User,
    Name,
    Count(ResourceType),
    MrBytes,
    ErrQps,
}

impl Field {
    fn header(self) -> &'static str {
        match self {
            Field::Pid => "PID",
            Field::User => "USER",
            Field::Name => "NAME",
            Field::Count(t) => t.label(),
            Field::MrBytes => "MR-BYTES",
            Field::ErrQps => "ERR",
        }
    }

    fn align(self) -> Align {
        match self {
            Field::User | Field::Name => Align::Left,
            _ => Align::Right,
        }
    }

    fn cell(self, c: &Consumer) -> String {
        match self {
            Field::Pid => c.pid().map(|p| p.to_string()).unwrap_or_default(),
            Field::User => match (&c.owner, &c.process) {
                (OwnerKey::Process(_), Some(p)) => match (&p.user, p.uid) {
                    (Some(user), _) => clean(user),
                    (None, Some(uid)) => uid.to_string(),
                    (None, None) => "?".to_string(),
                },
                (OwnerKey::Process(_), None) => "?".to_string(),
                _ => String::new(),
            },
            Field::Name => clean(&c.name),
            Field::Count(t) => units::count(c.counts.get(t)),
            Field::MrBytes => units::bytes(c.mr_bytes),
            Field::ErrQps => units::count(c.error_qps()),
        }
    }
}

/// How the table is cut and ordered.
pub struct TableOptions {
    pub top: usize,
    pub sort: SortKey,
    pub direction: SortDirection,
    pub width: usize,
}

pub fn consumers(rows: &[Consumer], filter: &Filter, options: &TableOptions) -> Vec<String> {
    let mut rows = rows.to_vec();
    sort_consumers(&mut rows, options.sort, options.direction);
    let shown = if options.top == 0 {
        rows.len()
    } else {
        options.top.min(rows.len())
    };
    let mut title = format!("TOP CONSUMERS by {}", sort_label(options.sort));
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
    for row in &rows[..shown] {
        let cells: Vec<String> = fields.iter().map(|f| f.cell(row)).collect();
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

/// PID, USER, NAME, then the selected types (SRQ and CM_ID only when someone
/// holds one or they were asked for), MR-BYTES after MR, ERR after the counts.
fn candidate_fields(rows: &[Consumer], filter: &Filter) -> Vec<Field> {
    let mut fields = vec![Field::Pid, Field::User, Field::Name];
    let rare = [ResourceType::Srq, ResourceType::CmId];
    for t in [
        ResourceType::Qp,
        ResourceType::Cq,
        ResourceType::Mr,
        ResourceType::Pd,
        ResourceType::Ctx,
        ResourceType::Srq,
        ResourceType::CmId,
    ] {
        if !filter.shows_type(t) {
            continue;
        }
        if rare.contains(&t)
            && !filter.types.contains(&t)
            && rows.iter().all(|r| r.counts.get(t) == 0)
        {
            continue;
        }
        fields.push(Field::Count(t));
        if t == ResourceType::Mr {
            fields.push(Field::MrBytes);
        }
    }
    if filter.shows_type(ResourceType::Qp) {
        fields.push(Field::ErrQps);
    }
    fields
}

/// Drops the least looked-at columns until names get a usable width.
fn fit_fields(
    mut fields: Vec<Field>,
    shown: &[Consumer],
    total: &Consumer,
    width: usize,
) -> (Vec<Field>, Vec<Field>) {
    let mut hidden = Vec::new();
    let drop_order = [
        Field::Count(ResourceType::CmId),
        Field::Count(ResourceType::Srq),
        Field::Count(ResourceType::Ctx),
        Field::Count(ResourceType::Pd),
        Field::User,
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
fn columns(fields: &[Field], shown: &[Consumer], total: &Consumer, width: usize) -> Vec<Column> {
    let room = name_room(fields, shown, total, width);
    fields
        .iter()
        .map(|f| {
            let mut col = fitted_column(*f, shown, total);
            if *f == Field::Name {
                col.width = col.width.min(room);
            }
            col
        })
        .collect()
}

/// Characters left for NAME once every other column has its width.
fn name_room(fields: &[Field], shown: &[Consumer], total: &Consumer, width: usize) -> usize {
    let others: Vec<Column> = fields
        .iter()
        .filter(|f| **f != Field::Name)
        .map(|f| fitted_column(*f, shown, total))
        .collect();
    // One more separator for the NAME column itself.
    width.saturating_sub(table_width(&others) + 1)
}

/// A column as wide as its header and cells (user names capped like `ps`).
fn fitted_column(field: Field, shown: &[Consumer], total: &Consumer) -> Column {
    let mut cells: Vec<String> = shown.iter().map(|r| field.cell(r)).collect();
    cells.push(total_cell(field, total));
    let mut col = Column::fitted(
        field.header(),
        field.align(),
        cells.iter().map(String::as_str),
    );
    if field == Field::User {
        col.width = col.width.min(USER_WIDTH);
    }
    col
}

fn totals(rows: &[Consumer]) -> Consumer {
    let mut total = Consumer {
        owner: OwnerKey::Unattributed,
        name: String::new(),
        process: None,
        counts: Default::default(),
        mr_bytes: 0,
        qp_states: Default::default(),
        devices: Vec::new(),
    };
    for row in rows {
        total.counts += &row.counts;
        total.mr_bytes = total.mr_bytes.saturating_add(row.mr_bytes);
        total.qp_states.merge(&row.qp_states);
    }
    total
}

fn total_cell(field: Field, total: &Consumer) -> String {
    match field {
        Field::Pid | Field::User => String::new(),
        Field::Name => "TOTAL".to_string(),
        other => other.cell(total),
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
        SortKey::MrBytes => "MR-BYTES",
        SortKey::ErrQps => "ERR QPs",
    }
}
