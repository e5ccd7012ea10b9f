//! Turning objects into table rows: the columns each type shows in the
//! drill-down and the ERROR-QP screen (whose columns are the ERROR-QP
//! table's, `model/error_qp_table.rs`).

use crate::interactive::widgets::table::{Cell, Column, Row, RowId};
use crate::model::consumers::SortDirection;
use crate::model::error_qp_table::{Align, ErrorQpColumn, ErrorQpRow, ErrorQpValue};
use crate::model::history::ErrorQpInsight;
use crate::model::{Object, ResourceType, Snapshot};

/// How a drill-down tab is sorted when first shown: largest MRs first,
/// everything else by id.
pub(crate) fn default_sort(t: ResourceType) -> SortDirection {
    match t {
        ResourceType::Mr => SortDirection::Descending,
        _ => SortDirection::Ascending,
    }
}

/// Columns of the drill-down tab for `t`, and the column sorted by default.
pub(crate) fn columns_for(t: ResourceType) -> (Vec<Column>, usize) {
    let device = Column::left("DEVICE", 10);
    match t {
        ResourceType::Qp => (
            vec![
                device,
                Column::right("PORT", 4).keep(45),
                Column::right("LQPN", 8).keep(200),
                Column::right("RQPN", 8).keep(40),
                Column::left("TYPE", 8).keep(50),
                // The state is the leak clue (a pile of INIT QPs): kept.
                Column::left("STATE", 6).keep(150),
                Column::right("PDN", 6).keep(30),
            ],
            2,
        ),
        ResourceType::Cq => (
            vec![
                device,
                Column::right("CQN", 8),
                Column::right("CQE", 8),
                Column::right("USERS", 6),
                Column::left("POLL", 10),
                Column::right("CTXN", 6),
            ],
            1,
        ),
        ResourceType::Mr => (
            vec![
                device,
                Column::right("MRN", 8),
                Column::right("LENGTH", 10),
                Column::right("PDN", 6),
                Column::right("RKEY", 10),
                Column::right("LKEY", 10),
            ],
            2,
        ),
        ResourceType::Pd => (
            vec![
                device,
                Column::right("PDN", 8),
                Column::right("USERS", 6),
                Column::right("CTXN", 6),
                Column::right("DMA_LKEY", 10),
            ],
            1,
        ),
        ResourceType::CmId => (
            vec![
                device,
                Column::right("PORT", 4),
                Column::right("CM_IDN", 8),
                Column::right("LQPN", 8),
                Column::left("TYPE", 6),
                Column::left("STATE", 14),
                Column::left("SRC", 22),
                Column::left("DST", 22),
            ],
            2,
        ),
        ResourceType::Ctx => (vec![device, Column::right("CTXN", 8)], 1),
        ResourceType::Srq => (
            vec![
                device,
                Column::right("SRQN", 8),
                Column::left("TYPE", 6),
                Column::right("PDN", 6),
                Column::right("CQN", 8),
                Column::left("QPS", 20),
            ],
            1,
        ),
    }
}

fn num(v: Option<u32>) -> Cell {
    Cell::Num(v.map(u64::from))
}

fn hex(v: Option<u32>) -> Cell {
    Cell::Hex(v.map(u64::from))
}

/// What identifies an object's row across snapshots: its device and key.
pub(crate) fn row_id(obj: &Object) -> RowId {
    (obj.device(), obj.dedup_key().unwrap_or(u64::MAX))
}

/// One drill-down row for an object.
pub(crate) fn object_row(snapshot: &Snapshot, obj: &Object) -> Row {
    let device = Cell::Text(snapshot.device_name(obj.device()));
    let mut alert = false;
    let cells = match obj {
        Object::Qp(q) => {
            alert = q.state.is_error();
            vec![
                device,
                num(q.port),
                Cell::Num(Some(u64::from(q.lqpn))),
                num(q.rqpn),
                Cell::Text(q.qp_type.to_string()),
                Cell::Text(q.state.to_string()),
                num(q.pdn),
            ]
        }
        Object::Cq(c) => vec![
            device,
            num(c.cqn),
            Cell::Num(Some(u64::from(c.cqe))),
            Cell::Num(Some(c.users)),
            Cell::Text(c.poll_ctx.map(|p| p.to_string()).unwrap_or_default()),
            num(c.ctxn),
        ],
        Object::Mr(m) => vec![
            device,
            num(m.mrn),
            Cell::Bytes(m.len),
            num(m.pdn),
            hex(m.keys.map(|k| k.rkey)),
            hex(m.keys.map(|k| k.lkey)),
        ],
        Object::Pd(p) => vec![
            device,
            num(p.pdn),
            Cell::Num(Some(p.users)),
            num(p.ctxn),
            hex(p.local_dma_lkey),
        ],
        Object::CmId(c) => vec![
            device,
            num(c.port),
            num(c.cm_idn),
            num(c.lqpn),
            Cell::Text(c.qp_type.map(|t| t.to_string()).unwrap_or_default()),
            Cell::Text(c.state.to_string()),
            Cell::Text(c.src.map(|a| a.to_string()).unwrap_or_default()),
            Cell::Text(c.dst.map(|a| a.to_string()).unwrap_or_default()),
        ],
        Object::Ctx(c) => vec![device, num(c.ctxn)],
        Object::Srq(s) => vec![
            device,
            num(s.srqn),
            Cell::Text(s.srq_type.to_string()),
            num(s.pdn),
            num(s.cqn),
            Cell::Text(qp_ranges(&s.qp_ranges)),
        ],
    };
    Row {
        id: row_id(obj),
        cells,
        alert,
        owner: Some(obj.owner().clone()),
    }
}

fn qp_ranges(ranges: &[(u32, u32)]) -> String {
    ranges
        .iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The ERROR-QP screen's columns: the ERROR-QP table's (`model/error_qp_table.rs`)
/// in the screen's order, with the widths and drop order the screen gives them.
pub(crate) fn error_columns() -> Vec<Column> {
    ErrorQpColumn::PANE
        .iter()
        .map(|c| error_column(*c))
        .collect()
}

/// The ERROR-QP screen's AGE column, sorted on by default (oldest first).
pub(crate) fn error_age_column() -> usize {
    ErrorQpColumn::PANE
        .iter()
        .position(|c| *c == ErrorQpColumn::Age)
        .unwrap_or(0)
}

/// Width and keep priority: narrow screens keep who, which QP, its state
/// and for how long.
fn error_column(column: ErrorQpColumn) -> Column {
    let (width, keep) = match column {
        ErrorQpColumn::Pid => (7, 150),
        ErrorQpColumn::Owner => (16, 200),
        ErrorQpColumn::Comm => (15, 100),
        ErrorQpColumn::Device => (10, 120),
        ErrorQpColumn::Port => (4, 30),
        ErrorQpColumn::Lqpn => (8, 180),
        ErrorQpColumn::State => (5, 250),
        ErrorQpColumn::Age => (8, 240),
        ErrorQpColumn::Before => (6, 60),
        ErrorQpColumn::Type => (8, 40),
        ErrorQpColumn::Rqpn => (8, 20),
        ErrorQpColumn::Pdn => (6, 10),
    };
    let spec = column.spec();
    let placed = match spec.align {
        Align::Left => Column::left(spec.header, width),
        Align::Right => Column::right(spec.header, width),
    };
    placed.keep(keep)
}

/// The id of an ERROR QP's row: its device and QP number, stable across refreshes.
pub(crate) fn error_row_id(insight: &ErrorQpInsight) -> RowId {
    let q = &insight.qp.qp;
    (
        q.device,
        Object::Qp(q.clone()).dedup_key().unwrap_or(u64::MAX),
    )
}

pub(crate) fn error_row(insight: &ErrorQpInsight) -> Row {
    let row = ErrorQpRow {
        qp: &insight.qp,
        age: insight.age.as_ref(),
    };
    Row {
        id: error_row_id(insight),
        cells: ErrorQpColumn::PANE
            .iter()
            .map(|c| error_cell(c.value(row)))
            .collect(),
        alert: true,
        owner: Some(insight.qp.qp.owner.clone()),
    }
}

fn error_cell(value: ErrorQpValue) -> Cell {
    match value {
        ErrorQpValue::Number(n) => Cell::Num(n),
        ErrorQpValue::Text(t) => Cell::Text(t),
        ErrorQpValue::MaybeText(t) => Cell::Text(t.unwrap_or_default()),
        ErrorQpValue::Age {
            ms,
            lower_bound,
            lingering,
        } => Cell::Age {
            ms,
            lower_bound,
            lingering,
        },
    }
}
