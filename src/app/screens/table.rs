//! What every screen made of one object table does the same way: move,
//! scroll, click, keep the selection in view.

use crate::app::cursor::{Cursor, visible_offset};
use crate::app::layout::{TablePane, contains_y};
use crate::app::object_table::{ObjectTable, table_columns};

pub fn move_table(table: &mut ObjectTable, delta: isize) {
    let len = table.rows.len();
    table.cursor.move_by(delta, len);
    table.remember_selection();
}

pub fn settle_table(table: &mut ObjectTable, pane: &TablePane) {
    let len = table.rows.len();
    table.cursor.settle(len, usize::from(pane.rows.height));
}

pub fn wheel_table(table: &mut ObjectTable, pane: &TablePane, delta: isize) {
    let len = table.rows.len();
    table
        .cursor
        .scroll_by(delta, len, usize::from(pane.rows.height));
    table.remember_selection();
}

/// A click on a column header sorts by it (again: reverses); on a row selects it.
pub fn click_table(table: &mut ObjectTable, pane: &TablePane, x: u16, y: u16) {
    if contains_y(pane.header, y) {
        let rel = x.saturating_sub(pane.header.x);
        let hit = table_columns(table, pane.header.width)
            .iter()
            .find(|p| rel >= p.x && rel < p.x.saturating_add(p.width))
            .map(|p| p.index);
        if let Some(col) = hit {
            table.sort_by(col);
        }
    } else if let Some(i) = pane.row_at(y) {
        let len = table.rows.len();
        let offset = visible_offset(table.cursor, len, usize::from(pane.rows.height));
        if offset + i < len {
            table.cursor = Cursor {
                selected: offset + i,
                offset,
            };
            table.remember_selection();
        }
    }
}
