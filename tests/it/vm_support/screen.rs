//! Screens of the interactive view captured in the guest (`tmux capture-pane
//! -p`), and the tables on them read back by column.

use std::fs;
use std::path::Path;

/// One captured screen.
#[derive(Clone, Debug, Default)]
pub struct Screen {
    pub text: String,
    /// Whether the pane was on the alternate screen (`#{alternate_on}`), if recorded.
    pub alternate: Option<bool>,
}

impl Screen {
    /// `path` and, next to it, `path.alternate` ("1" or "0").
    pub fn load(path: &Path) -> Result<Screen, String> {
        let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut alternate_path = path.as_os_str().to_owned();
        alternate_path.push(".alternate");
        let alternate = fs::read_to_string(&alternate_path)
            .ok()
            .and_then(|s| match s.trim() {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            });
        Ok(Screen { text, alternate })
    }

    /// The table whose header line starts (after blanks) with `first` and
    /// holds every word of `words`: its rows up to the first blank line or
    /// pane border (`─`).
    pub fn table(&self, first: &str, words: &[&str]) -> Option<Table> {
        let mut lines = self.text.lines();
        let header = lines.by_ref().find(|l| {
            let mut tokens = l.split_whitespace();
            tokens.next() == Some(first)
                && words
                    .iter()
                    .all(|w| l.split_whitespace().any(|t| column_name(t) == *w))
        })?;
        let columns = spans(header)
            .into_iter()
            .map(|(start, end, t)| (start, end, column_name(&t).to_string()))
            .collect::<Vec<_>>();
        let rows = lines
            .take_while(|l| !l.trim().is_empty() && !l.trim_start().starts_with('─'))
            .map(|line| Row::split(line, &columns))
            .collect();
        Some(Table { rows })
    }

    /// The screen, indented, for failure messages (runs of blank lines as one).
    pub fn quoted(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        let mut blank = false;
        for line in self.text.lines().map(str::trim_end) {
            if line.is_empty() && blank {
                continue;
            }
            blank = line.is_empty();
            out.push(format!("    | {line}"));
        }
        out.join("\n")
    }
}

/// A header word without the sort marker (`QP▼` → `QP`).
fn column_name(token: &str) -> &str {
    token.trim_end_matches(['▲', '▼'])
}

/// Whitespace-separated words with their first and last character column.
fn spans(line: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (col, ch) in line.chars().enumerate() {
        if ch.is_whitespace() {
            if let Some((start, word)) = current.take() {
                out.push((start, col - 1, word));
            }
        } else {
            current
                .get_or_insert_with(|| (col, String::new()))
                .1
                .push(ch);
        }
    }
    if let Some((start, word)) = current {
        let end = start + word.chars().count() - 1;
        out.push((start, end, word));
    }
    out
}

/// A table read off the screen.
#[derive(Clone, Debug)]
pub struct Table {
    pub rows: Vec<Row>,
}

/// One table row: the text under each header word.
#[derive(Clone, Debug)]
pub struct Row {
    pub line: String,
    cells: Vec<(String, String)>,
}

impl Row {
    /// Each word goes to the header word it overlaps (numbers are
    /// right-aligned under their header, text left-aligned), or else to the
    /// nearest header word on its left (long text).
    fn split(line: &str, columns: &[(usize, usize, String)]) -> Row {
        let mut cells: Vec<(String, String)> = columns
            .iter()
            .map(|(_, _, name)| (name.clone(), String::new()))
            .collect();
        for (start, end, word) in spans(line) {
            let overlap = columns
                .iter()
                .position(|(s, e, _)| start <= *e && end >= *s);
            let left = columns.iter().rposition(|(s, _, _)| *s <= start);
            if let Some(i) = overlap.or(left) {
                let cell = &mut cells[i].1;
                if !cell.is_empty() {
                    cell.push(' ');
                }
                cell.push_str(&word);
            }
        }
        Row {
            line: line.trim_end().to_string(),
            cells,
        }
    }

    /// The text under the first header word `name` ("" when empty).
    pub fn get(&self, name: &str) -> &str {
        self.cells
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ERRORS: &str = "\
restop  LIVE   restop-vm  every 500 ms
─ QPs in ERR/SQE (3)  Enter: the owner's objects  Esc: back ─────
    PID OWNER            DEVICE▲    PORT     LQPN     RQPN TYPE     STATE    PDN
    165 vm_workload      rxe0          1       17        0 RC       ERR        5
      - [ib_core]        rxe0          1       20        - UD       ERR        4
    162 a very long nam… rxe1                  36   765184 RC       ERR        3

q quit
";

    #[test]
    fn reads_a_table_by_column() {
        let screen = Screen {
            text: ERRORS.to_string(),
            alternate: Some(true),
        };
        let table = screen.table("PID", &["LQPN"]).unwrap();
        assert_eq!(table.rows.len(), 3);
        let got: Vec<(&str, &str, &str, &str, &str)> = table
            .rows
            .iter()
            .map(|r| {
                (
                    r.get("PID"),
                    r.get("OWNER"),
                    r.get("DEVICE"),
                    r.get("PORT"),
                    r.get("LQPN"),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("165", "vm_workload", "rxe0", "1", "17"),
                ("-", "[ib_core]", "rxe0", "1", "20"),
                ("162", "a very long nam…", "rxe1", "", "36"),
            ]
        );
    }
}
