//! Fitting text into a fixed number of columns: wrapping runs of short units,
//! and padding or truncating table cells. Widths count characters, and every
//! string from the system is cleaned of control characters first, so one
//! character is one column.

pub(crate) use crate::units::clean;

pub(crate) fn width_of(text: &str) -> usize {
    text.chars().count()
}

pub(crate) use crate::units::truncate;

/// Lays `units` out as lines of at most `width` characters: the first line
/// starts with `first`, the others with `rest`, units are joined by `sep` and
/// never split (a unit too long for any line is truncated).
pub(crate) fn wrap_units(
    first: &str,
    rest: &str,
    units: &[String],
    sep: &str,
    width: usize,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut line_has_unit = false;
    for unit in units {
        let prefix_width = width_of(if lines.is_empty() { first } else { rest });
        let room = width.saturating_sub(prefix_width);
        let unit = truncate(unit, room.max(1));
        let needed = if line_has_unit { width_of(sep) } else { 0 } + width_of(&unit);
        if line_has_unit && width_of(&line) + needed > width {
            lines.push(line);
            line = rest.to_string();
            line_has_unit = false;
        }
        if line_has_unit {
            line.push_str(sep);
        }
        line.push_str(&unit);
        line_has_unit = true;
    }
    if line_has_unit || lines.is_empty() {
        lines.push(line.trim_end().to_string());
    }
    lines
}

/// Splits prose into words for [`wrap_units`].
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

/// One column of a table: header, alignment and width in characters.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub header: String,
    pub align: Align,
    pub width: usize,
}

impl Column {
    /// A column as wide as its widest cell (header included).
    pub(crate) fn fitted<'a>(
        header: &str,
        align: Align,
        cells: impl IntoIterator<Item = &'a str>,
    ) -> Column {
        let width = cells
            .into_iter()
            .map(width_of)
            .chain([width_of(header)])
            .max()
            .unwrap_or(0);
        Column {
            header: header.to_string(),
            align,
            width,
        }
    }

    fn cell(&self, text: &str) -> String {
        let text = truncate(text, self.width);
        let pad = " ".repeat(self.width - width_of(&text));
        match self.align {
            Align::Left => format!("{text}{pad}"),
            Align::Right => format!("{pad}{text}"),
        }
    }
}

/// Total width of a row of these columns, one space between columns.
pub(crate) fn table_width(columns: &[Column]) -> usize {
    columns.iter().map(|c| c.width).sum::<usize>() + columns.len().saturating_sub(1)
}

/// One table line; cells beyond the columns are ignored, missing ones are blank.
pub(crate) fn table_row(columns: &[Column], cells: &[String]) -> String {
    let line: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(i, col)| col.cell(cells.get(i).map(String::as_str).unwrap_or("")))
        .collect();
    line.join(" ").trim_end().to_string()
}

pub(crate) fn table_header(columns: &[Column]) -> String {
    let headers: Vec<String> = columns.iter().map(|c| c.header.clone()).collect();
    table_row(columns, &headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn wraps_between_units_only() {
        let lines = wrap_units(
            "0: a: ",
            "   ",
            &units(&["qp 1/2 (50%)", "cq 3", "mr 4/8 (50%)"]),
            "  ",
            24,
        );
        assert_eq!(lines, ["0: a: qp 1/2 (50%)  cq 3", "   mr 4/8 (50%)"]);
    }

    #[test]
    fn an_overlong_unit_is_truncated() {
        let lines = wrap_units("> ", "  ", &units(&["abcdefghij"]), " ", 6);
        assert_eq!(lines, ["> abc…"]);
    }

    #[test]
    fn no_units_gives_the_prefix() {
        assert_eq!(wrap_units("x: ", "  ", &[], " ", 80), ["x:"]);
    }

    #[test]
    fn cells_are_padded_and_cut() {
        let cols = vec![
            Column {
                header: "NAME".into(),
                align: Align::Left,
                width: 5,
            },
            Column {
                header: "N".into(),
                align: Align::Right,
                width: 3,
            },
        ];
        assert_eq!(table_header(&cols), "NAME    N");
        assert_eq!(
            table_row(&cols, &["abcdefg".into(), "7".into()]),
            "abcd…   7"
        );
        assert_eq!(table_width(&cols), 9);
    }

    #[test]
    fn control_characters_are_replaced() {
        assert_eq!(clean("a\x1b[2Jb\n"), "a?[2Jb?");
    }
}
