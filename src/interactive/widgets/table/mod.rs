//! A sortable, scrollable table of objects (drill-down tabs, ERROR-QP screen).
//! Rows hold typed cells so sorting is numeric where it should be; the
//! renderer decides how each cell is written.

pub(crate) mod draw;

use crate::interactive::layout::fit_columns;
use crate::interactive::widgets::cursor::Cursor;
use crate::model::OwnerKey;
use crate::model::consumers::SortDirection;
use std::cmp::Ordering;

/// One value in a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    /// A number; `None` when the kernel did not send it.
    Num(Option<u64>),
    /// A byte count, written with IEC units.
    Bytes(u64),
    /// A key or handle, written in hex; `None` when hidden from this caller.
    Hex(Option<u64>),
    Text(String),
    /// How long something has been so; `lower_bound` when it was already
    /// so when restop started watching, `lingering` when past the alert threshold.
    Age {
        ms: Option<crate::model::Millis>,
        lower_bound: bool,
        lingering: bool,
    },
}

impl Cell {
    fn sort_cmp(&self, other: &Cell) -> Ordering {
        match (self, other) {
            (Cell::Num(a), Cell::Num(b)) | (Cell::Hex(a), Cell::Hex(b)) => a.cmp(b),
            (Cell::Bytes(a), Cell::Bytes(b)) => a.cmp(b),
            (Cell::Text(a), Cell::Text(b)) => natural_text_cmp(a, b),
            (Cell::Age { ms: a, .. }, Cell::Age { ms: b, .. }) => a.cmp(b),
            _ => Ordering::Equal,
        }
    }
}

fn natural_text_cmp(a: &str, b: &str) -> Ordering {
    crate::model::device::natural_cmp(&a.to_lowercase(), &b.to_lowercase())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    pub title: &'static str,
    /// Width wanted; the last left-aligned column takes what is left.
    pub width: u16,
    pub align: Align,
    /// Lower goes first when the table is wider than the screen.
    pub keep: u8,
}

/// How much a column is kept unless told otherwise.
pub(crate) const KEEP_DEFAULT: u8 = 100;

impl Column {
    pub const fn left(title: &'static str, width: u16) -> Column {
        Column {
            title,
            width,
            align: Align::Left,
            keep: KEEP_DEFAULT,
        }
    }

    pub const fn right(title: &'static str, width: u16) -> Column {
        Column {
            title,
            width,
            align: Align::Right,
            keep: KEEP_DEFAULT,
        }
    }

    /// The same column, kept with priority `keep` on narrow screens.
    pub const fn keep(self, keep: u8) -> Column {
        Column { keep, ..self }
    }
}

/// Identifies a row across refreshes: device index and the object's key.
pub(crate) type RowId = (u32, u64);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub id: RowId,
    pub cells: Vec<Cell>,
    /// Drawn as an alert (a QP in ERR/SQE).
    pub alert: bool,
    /// The owner this row leads to on Enter (ERROR-QP screen).
    pub owner: Option<OwnerKey>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ObjectTable {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    pub sort_column: usize,
    pub direction: SortDirection,
    pub cursor: Cursor,
    /// The selected row's id, so the selection follows the object, not the position.
    selected_id: Option<RowId>,
}

impl ObjectTable {
    pub fn new(columns: Vec<Column>, sort_column: usize, direction: SortDirection) -> ObjectTable {
        ObjectTable {
            columns,
            rows: Vec::new(),
            sort_column,
            direction,
            cursor: Cursor::default(),
            selected_id: None,
        }
    }

    /// Replaces the rows (a new snapshot), keeping the selected object selected.
    pub(crate) fn set_rows(&mut self, rows: Vec<Row>) {
        self.rows = rows;
        self.sort_rows();
    }

    /// Replaces the columns (another tab) and rows, resetting sort and selection.
    pub fn reset(&mut self, columns: Vec<Column>, sort_column: usize, rows: Vec<Row>) {
        self.columns = columns;
        self.sort_column = sort_column;
        self.cursor = Cursor::default();
        self.selected_id = None;
        self.set_rows(rows);
    }

    pub fn selected(&self) -> Option<&Row> {
        self.rows.get(self.cursor.selected)
    }

    pub(crate) fn select_id(&mut self, id: RowId) {
        self.selected_id = Some(id);
        self.restore_selection();
    }

    /// Call after moving `cursor` so the remembered id follows.
    pub(crate) fn remember_selection(&mut self) {
        self.selected_id = self.selected().map(|r| r.id);
    }

    pub fn sort_by(&mut self, column: usize) {
        if column >= self.columns.len() {
            return;
        }
        if column == self.sort_column {
            self.direction = self.direction.reversed();
        } else {
            self.sort_column = column;
        }
        self.sort_rows();
    }

    pub(crate) fn next_sort_column(&mut self, step: isize) {
        let n = self.columns.len();
        if n == 0 {
            return;
        }
        let step = step.rem_euclid(n as isize) as usize;
        self.sort_column = (self.sort_column + step) % n;
        self.sort_rows();
    }

    pub fn reverse(&mut self) {
        self.direction = self.direction.reversed();
        self.sort_rows();
    }

    fn sort_rows(&mut self) {
        let col = self.sort_column;
        let direction = self.direction;
        self.rows.sort_by(|a, b| {
            let primary = match (a.cells.get(col), b.cells.get(col)) {
                (Some(x), Some(y)) => x.sort_cmp(y),
                _ => Ordering::Equal,
            };
            // Ties fall back to the id, in the same direction, so `r` reverses
            // the whole list and the order is stable across refreshes.
            let order = primary.then(a.id.cmp(&b.id));
            match direction {
                SortDirection::Ascending => order,
                SortDirection::Descending => order.reverse(),
            }
        });
        self.restore_selection();
    }

    fn restore_selection(&mut self) {
        if let Some(id) = self.selected_id
            && let Some(i) = self.rows.iter().position(|r| r.id == id)
        {
            self.cursor.selected = i;
        }
        self.cursor.selected = self.cursor.selected.min(self.rows.len().saturating_sub(1));
        self.remember_selection();
    }
}

/// A table column placed on screen: its index in `columns`, x and width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlacedCell {
    pub index: usize,
    pub x: u16,
    pub width: u16,
}

/// Places a table's columns the same way the renderer does: at natural
/// widths (a stretched middle column would push numbers far apart), the
/// least kept dropped first (the rightmost among equals) until the rest
/// fit; the last one may be cut.
pub(crate) fn table_columns(table: &ObjectTable, width: u16) -> Vec<PlacedCell> {
    let mut kept: Vec<usize> = (0..table.columns.len()).collect();
    let needed = |kept: &[usize]| -> u32 {
        kept.iter()
            .filter_map(|i| table.columns.get(*i))
            .map(|c| u32::from(c.width.min(MIN_LAST_WIDTH)) + 1)
            .sum::<u32>()
            + kept
                .iter()
                .rev()
                .skip(1)
                .filter_map(|i| table.columns.get(*i))
                .map(|c| u32::from(c.width.saturating_sub(MIN_LAST_WIDTH)))
                .sum::<u32>()
    };
    while kept.len() > 1 && needed(&kept) > u32::from(width) {
        let Some(pos) = kept
            .iter()
            .enumerate()
            .filter_map(|(pos, i)| table.columns.get(*i).map(|c| (pos, c.keep)))
            .min_by_key(|(pos, keep)| (*keep, usize::MAX - pos))
            .map(|(pos, _)| pos)
        else {
            break;
        };
        kept.remove(pos);
    }
    let widths: Vec<u16> = kept
        .iter()
        .filter_map(|i| table.columns.get(*i))
        .map(|c| c.width)
        .collect();
    fit_columns(&widths, None, width)
        .into_iter()
        .zip(kept)
        .map(|((x, width), index)| PlacedCell { index, x, width })
        .collect()
}

/// A wide last column (a sentence) may be cut down to this before columns go.
const MIN_LAST_WIDTH: u16 = 24;

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, n: u64, name: &str) -> Row {
        Row {
            id: (0, id),
            cells: vec![Cell::Num(Some(n)), Cell::Text(name.into())],
            alert: false,
            owner: None,
        }
    }

    fn table() -> ObjectTable {
        let mut t = ObjectTable::new(
            vec![Column::right("N", 4), Column::left("NAME", 8)],
            0,
            SortDirection::Ascending,
        );
        t.set_rows(vec![row(1, 30, "b"), row(2, 10, "c"), row(3, 20, "a")]);
        t
    }

    #[test]
    fn sorts_numerically_and_reverses() {
        let mut t = table();
        let ids: Vec<u64> = t.rows.iter().map(|r| r.id.1).collect();
        assert_eq!(ids, [2, 3, 1]);
        t.reverse();
        let ids: Vec<u64> = t.rows.iter().map(|r| r.id.1).collect();
        assert_eq!(ids, [1, 3, 2]);
    }

    #[test]
    fn selection_follows_the_row_through_a_resort() {
        let mut t = table();
        t.cursor.selected = 2; // id 1
        t.remember_selection();
        t.sort_by(1); // by name: a(3) b(1) c(2)
        assert_eq!(t.selected().map(|r| r.id.1), Some(1));
        assert_eq!(t.cursor.selected, 1);
    }

    #[test]
    fn selection_survives_new_rows() {
        let mut t = table();
        t.select_id((0, 3));
        t.set_rows(vec![row(3, 20, "a"), row(4, 5, "d")]);
        assert_eq!(t.selected().map(|r| r.id.1), Some(3));
    }

    #[test]
    fn sorting_the_sorted_column_again_reverses_it() {
        let mut t = table();
        t.sort_by(0);
        assert_eq!(t.direction, SortDirection::Descending);
    }
}
