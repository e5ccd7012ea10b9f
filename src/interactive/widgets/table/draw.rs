//! Draws a generic object table (drill-down tabs, ERROR-QP screen); every
//! cell is cut between words with a mark (`format::pad`).

use crate::interactive::layout::TableArea;
use crate::interactive::widgets::cursor::visible_offset;
use crate::interactive::widgets::format::pad;
use crate::interactive::widgets::paint::{put, put_header_cell, put_line, style_area};
use crate::interactive::widgets::sparkline::age_text;
use crate::interactive::widgets::table::{Align, Cell, ObjectTable, table_columns};
use crate::interactive::widgets::theme::Theme;
use crate::model::consumers::SortDirection;
use crate::units::bytes;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

fn cell_text(cell: &Cell, theme: &Theme) -> (String, Style) {
    match cell {
        Cell::Num(Some(n)) => (n.to_string(), theme.plain()),
        Cell::Num(None) => ("-".into(), theme.dim()),
        Cell::Bytes(n) => (bytes(*n), theme.plain()),
        Cell::Hex(Some(n)) => (format!("{n:#x}"), theme.plain()),
        Cell::Hex(None) => ("hidden".into(), theme.dim()),
        Cell::Text(t) if t.is_empty() => ("-".into(), theme.dim()),
        Cell::Text(t) => (t.clone(), theme.plain()),
        Cell::Age { ms: None, .. } => ("-".into(), theme.dim()),
        Cell::Age {
            ms: Some(ms),
            lower_bound,
            lingering,
        } => {
            let style = if *lingering {
                theme.alert()
            } else {
                theme.plain()
            };
            (age_text(*ms, *lower_bound), style)
        }
    }
}

/// Header and rows of `table` in `area` (the title line is the caller's).
/// `empty` is shown when there are no rows.
/// The mark after the header of the column the rows are sorted by.
pub(crate) fn sort_marker(direction: SortDirection) -> &'static str {
    match direction {
        SortDirection::Ascending => "▲",
        SortDirection::Descending => "▼",
    }
}

pub(crate) fn draw(
    buf: &mut Buffer,
    area: &TableArea,
    table: &ObjectTable,
    empty: &str,
    theme: &Theme,
) {
    let placed = table_columns(table, area.header.width);
    if area.header.height > 0 {
        for p in &placed {
            let (i, x, w) = (p.index, &p.x, &p.width);
            let Some(col) = table.columns.get(i) else {
                continue;
            };
            let sorted = i == table.sort_column;
            let title = if sorted {
                format!("{}{}", col.title, sort_marker(table.direction))
            } else {
                col.title.to_string()
            };
            let style = if sorted {
                theme.column_header().patch(theme.title())
            } else {
                theme.column_header()
            };
            let right = col.align == Align::Right;
            put_header_cell(buf, area, (*x, *w), &title, right, style);
        }
    }
    if table.rows.is_empty() {
        put_line(buf, area.rows, empty, theme.dim());
        return;
    }
    let height = usize::from(area.rows.height);
    let offset = visible_offset(table.cursor, table.rows.len(), height);
    for (i, row) in table.rows.iter().enumerate().skip(offset).take(height) {
        let y = area.rows.y + u16::try_from(i - offset).unwrap_or(0);
        for p in &placed {
            let (c, x, w) = (p.index, &p.x, &p.width);
            let (Some(cell), Some(col)) = (row.cells.get(c), table.columns.get(c)) else {
                continue;
            };
            let (text, mut style) = cell_text(cell, theme);
            if row.alert && col.title == "STATE" {
                style = theme.alert();
            }
            // Cut between words (`pad`); `w` shows the whole text.
            let text = pad(&text, usize::from(*w), col.align == Align::Right);
            put(buf, area.rows.x + x, y, &text, *w, style);
        }
        if i == table.cursor.selected {
            style_area(
                buf,
                Rect::new(area.rows.x, y, area.rows.width, 1),
                theme.selected(true),
            );
        }
    }
}
