//! The ERROR QPs section: every QP in ERR or SQE, with who holds it.

use super::layout::{Align, Column, clean, table_header, table_row, table_width};
use crate::model::error_qps::ErrorQp;

/// Device names longer than this are cut so owners keep their room.
const DEVICE_WIDTH: usize = 12;

pub fn error_qps(qps: &[ErrorQp], top: usize, width: usize) -> Vec<String> {
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
    let rows: Vec<Vec<String>> = qps[..shown].iter().map(cells).collect();
    let specs: [(&str, Align); 8] = [
        ("DEVICE", Align::Left),
        ("PORT", Align::Right),
        ("LQPN", Align::Right),
        ("RQPN", Align::Right),
        ("TYPE", Align::Left),
        ("STATE", Align::Left),
        ("PID", Align::Right),
        ("OWNER", Align::Left),
    ];
    let mut columns: Vec<Column> = specs
        .iter()
        .enumerate()
        .map(|(i, (header, align))| {
            Column::fitted(header, *align, rows.iter().map(|r| r[i].as_str()))
        })
        .collect();
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

fn cells(e: &ErrorQp) -> Vec<String> {
    let opt = |v: Option<u32>| v.map(|n| n.to_string()).unwrap_or_else(|| "-".to_string());
    vec![
        clean(&e.device),
        opt(e.qp.port),
        e.qp.lqpn.to_string(),
        opt(e.qp.rqpn),
        e.qp.qp_type.to_string(),
        e.qp.state.to_string(),
        opt(e.pid()),
        clean(&e.owner_name),
    ]
}
