//! The ERROR QPs section: every QP in ERR or SQE, with who holds it.
//!
//! The columns are the ERROR-QP table's (`model/error_qp_table.rs`), in
//! the report's order (`ErrorQpColumn::REPORT`).

use super::layout::{Align, Column, table_header, table_row, table_width};
use crate::model::error_qp_table::{Align as TableAlign, ErrorQpColumn, ErrorQpRow};
use crate::model::error_qps::ErrorQp;

/// Device names longer than this are cut so owners keep their room.
const DEVICE_WIDTH: usize = 12;

pub(super) fn error_qps(qps: &[ErrorQp], top: usize, width: usize) -> Vec<String> {
    let shown = if top == 0 {
        qps.len()
    } else {
        top.min(qps.len())
    };
    let mut title = format!("ERROR QPs ({})", qps.len());
    if shown < qps.len() {
        title = format!("ERROR QPs ({shown} of {})", qps.len());
    }
    let mut lines = vec![title];
    if qps.is_empty() {
        lines.push("  no QPs in ERR/SQE".to_string());
        return lines;
    }
    let shown_columns = ErrorQpColumn::REPORT;
    let rows: Vec<Vec<String>> = qps[..shown]
        .iter()
        .map(|qp| {
            let row = ErrorQpRow { qp, age: None };
            shown_columns.iter().map(|c| c.cell(row)).collect()
        })
        .collect();
    let mut columns: Vec<Column> = shown_columns
        .iter()
        .enumerate()
        .map(|(i, column)| {
            let spec = column.spec();
            let align = match spec.align {
                TableAlign::Left => Align::Left,
                TableAlign::Right => Align::Right,
            };
            Column::fitted(spec.header, align, rows.iter().map(|r| r[i].as_str()))
        })
        .collect();
    // The first column (DEVICE) is cut so the last (OWNER) keeps its room.
    columns[0].width = columns[0].width.min(DEVICE_WIDTH);
    let others = table_width(&columns[..7]) + 1;
    columns[7].width = columns[7].width.min(width.saturating_sub(others));
    lines.push(table_header(&columns));
    for row in &rows {
        lines.push(table_row(&columns, row));
    }
    if shown < qps.len() {
        lines.push(format!(
            "  … {} more (--top 0 shows all)",
            qps.len() - shown
        ));
    }
    lines
}
