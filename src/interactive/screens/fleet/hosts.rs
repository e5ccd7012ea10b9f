//! The fleet's hosts table (`1`): one row per host, worst first (or by the key `s` picks),
//! with the status marked so a down, missing or stale host never reads as healthy. Its rows
//! are the fleet model's (`host_rows`, `sort_rows`, the `/` filter) and its cells the model's
//! texts (`fleet::model::cells`), as `--once` prints them, plus a sparkline of the host's
//! worst usage over the last half hour (the model's `UsageTrails`), which only the full-screen
//! view draws.

use crate::fleet::model::cells::{
    age_text, devices_text, nic_text, top_consumer_text, usage_text, why_text,
};
use crate::fleet::model::{
    FleetFilter, FleetReading, HostRow, RowRules, RowStatus, SortKey, UsageTrails, host_rows,
    sort_rows,
};
use crate::interactive::layout::TableArea;
use crate::interactive::widgets::cursor::{Cursor, visible_offset};
use crate::interactive::widgets::format::pad;
use crate::interactive::widgets::paint::{put, put_header_cell, put_line, style_area, title_line};
use crate::interactive::widgets::sparkline::sparkline;
use crate::interactive::widgets::table::{Align, Column, ObjectTable, PlacedCell, table_columns};
use crate::interactive::widgets::theme::Theme;
use crate::model::consumers::SortDirection;
use crate::model::limits::Level;
use crate::units::clean;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;

/// The hosts table's state.
#[derive(Clone, Debug, PartialEq)]
pub struct HostsScreen {
    pub rows: Vec<HostRow>,
    pub cursor: Cursor,
    pub sort: SortKey,
    pub reverse: bool,
    /// The selected host, so the selection follows it through refreshes and re-sorts.
    selected: Option<String>,
}

impl Default for HostsScreen {
    fn default() -> Self {
        HostsScreen {
            rows: Vec::new(),
            cursor: Cursor::default(),
            sort: SortKey::Worst,
            reverse: false,
            selected: None,
        }
    }
}

impl HostsScreen {
    /// The rows of `reading` under the filter, in the chosen order.
    pub fn refresh(
        &mut self,
        reading: &FleetReading,
        rules: &RowRules,
        stale: bool,
        filter: &FleetFilter,
    ) {
        let rows = filter.rows(host_rows(reading, rules, stale), reading);
        self.rows = rows;
        self.resort();
    }

    fn resort(&mut self) {
        sort_rows(&mut self.rows, self.sort, self.reverse);
        if let Some(host) = &self.selected
            && let Some(i) = self.rows.iter().position(|r| &r.host == host)
        {
            self.cursor.selected = i;
        }
        self.cursor.selected = self.cursor.selected.min(self.rows.len().saturating_sub(1));
        self.remember();
    }

    pub fn remember(&mut self) {
        self.selected = self.selected_row().map(|r| r.host.clone());
    }

    pub fn selected_row(&self) -> Option<&HostRow> {
        self.rows.get(self.cursor.selected)
    }

    /// `s`, `>`, `<`: the next (previous) sort key.
    pub fn step_sort(&mut self, step: isize) {
        let all = SortKey::ALL;
        let i = all.iter().position(|k| *k == self.sort).unwrap_or(0) as isize;
        self.sort = all[(i + step).rem_euclid(all.len() as isize) as usize];
        self.reverse = false;
        self.resort();
    }

    /// `r`.
    pub fn reverse(&mut self) {
        self.reverse = !self.reverse;
        self.resort();
    }

    /// A click on a column header sorts by its key (again: reverses).
    pub fn sort_by_column(&mut self, column: usize) {
        let Some(key) = COLUMN_KEYS.get(column).copied().flatten() else {
            return;
        };
        if key == self.sort {
            self.reverse = !self.reverse;
        } else {
            self.sort = key;
            self.reverse = false;
        }
        self.resort();
    }

    /// The columns, the host column as wide as the longest name shown.
    pub fn columns(&self) -> Vec<Column> {
        let host = self
            .rows
            .iter()
            .map(|r| r.host.chars().count())
            .max()
            .unwrap_or(4)
            .clamp(8, 32) as u16;
        vec![
            Column::left("STATUS", 7),
            Column::left("HOST", host),
            Column::right("DEVS", 4).keep(40),
            Column::right("WORST USAGE", 20).keep(90),
            Column::right("USAGE 30m", 10).keep(60),
            Column::right("ERRQP", 5).keep(95),
            Column::right("LEAKS", 5).keep(85),
            Column::right("NIC", 7).keep(80),
            Column::right("AGE", 5).keep(70),
            Column::left("TOP CONSUMER / WHY", 90).keep(50),
        ]
    }

    /// The column the rows are sorted by, and the direction its header shows.
    fn sort_column(&self) -> (usize, SortDirection) {
        let column = COLUMN_KEYS
            .iter()
            .position(|k| *k == Some(self.sort))
            .unwrap_or(0);
        // Worst (or biggest) first is "descending"; names go A to Z.
        let natural = if self.sort == SortKey::Host {
            SortDirection::Ascending
        } else {
            SortDirection::Descending
        };
        let direction = if self.reverse {
            natural.reversed()
        } else {
            natural
        };
        (column, direction)
    }

    /// The table's placement, for drawing and for clicks alike.
    pub fn placement(&self) -> ObjectTable {
        let (column, direction) = self.sort_column();
        ObjectTable::new(self.columns(), column, direction)
    }
}

/// The sort key of each column, in column order.
const COLUMN_KEYS: [Option<SortKey>; 10] = [
    Some(SortKey::Worst),
    Some(SortKey::Host),
    None,
    Some(SortKey::Usage),
    None,
    Some(SortKey::ErrorQps),
    Some(SortKey::LeakSuspects),
    Some(SortKey::Nic),
    Some(SortKey::ScrapeAge),
    None,
];

/// How a status reads: a problem in its level's colour; down, missing and stale as alerts.
pub(crate) fn status_style(status: RowStatus, theme: &Theme) -> Style {
    match status {
        RowStatus::Ok => theme.level(Level::Normal),
        RowStatus::Warning => theme.level(Level::Warn),
        RowStatus::Critical => theme.level(Level::Critical),
        RowStatus::NotCollecting => theme.warning(),
        RowStatus::Down | RowStatus::Missing | RowStatus::Stale => theme.alert(),
    }
}

/// The column of the usage sparkline.
const TRAIL_COLUMN: usize = 4;

/// The cells of a row, in column order; `trail` is its sparkline, already fitted.
fn cells(row: &HostRow, trail: String) -> [String; 10] {
    let tail = if row.status == RowStatus::Ok {
        top_consumer_text(row)
    } else {
        why_text(row)
    };
    // A host that is not answering has no counts: `-`, never a healthy-looking 0.
    let unknown = matches!(row.status, RowStatus::Down | RowStatus::Missing);
    let number = |n: u64| {
        if unknown {
            "-".to_string()
        } else {
            n.to_string()
        }
    };
    [
        row.status.label().to_string(),
        clean(&row.host),
        devices_text(row),
        usage_text(row),
        trail,
        number(row.error_qps),
        number(row.leak_suspects),
        nic_text(row),
        age_text(row),
        tail,
    ]
}

pub(crate) fn draw(
    buf: &mut Buffer,
    pane: &TableArea,
    screen: &HostsScreen,
    trails: &UsageTrails,
    has_reading: bool,
    focused: bool,
    theme: &Theme,
) {
    let troubled = screen
        .rows
        .iter()
        .filter(|r| r.status != RowStatus::Ok)
        .count();
    let title = format!(
        "Hosts ({}, {troubled} need a look) by {}{}",
        screen.rows.len(),
        screen.sort.name(),
        if screen.reverse { ", reversed" } else { "" }
    );
    let style = if troubled > 0 {
        theme.alert()
    } else {
        theme.title()
    };
    title_line(
        buf,
        pane.title,
        Span::styled(title, style),
        &[Span::styled("  ⏎ host detail  / filter", theme.dim())],
        theme.dim(),
    );
    let table = screen.placement();
    let placed = table_columns(&table, pane.header.width);
    column_headers(buf, pane, &table, &placed, theme);
    if screen.rows.is_empty() {
        let text = if has_reading {
            "no host matches (Esc clears the filter)"
        } else {
            "reading the fleet…"
        };
        put_line(buf, pane.rows, text, theme.dim());
        return;
    }
    let height = usize::from(pane.rows.height);
    let offset = visible_offset(screen.cursor, screen.rows.len(), height);
    let trail_width = placed
        .iter()
        .find(|p| p.index == TRAIL_COLUMN)
        .map_or(0, |p| usize::from(p.width));
    for (i, row) in screen.rows.iter().enumerate().skip(offset).take(height) {
        let y = pane.rows.y + u16::try_from(i - offset).unwrap_or(0);
        let trail = if trail_width == 0 {
            String::new()
        } else {
            sparkline(&trails.per_mille(&row.host), trail_width)
        };
        let texts = cells(row, trail);
        // A host whose numbers are not current facts has them dimmed: never healthy-looking.
        let numbers = if row.status.is_current() {
            theme.plain()
        } else {
            theme.dim()
        };
        for p in &placed {
            let (Some(col), Some(text)) = (table.columns.get(p.index), texts.get(p.index)) else {
                continue;
            };
            let style = match p.index {
                0 => status_style(row.status, theme),
                1 => theme.plain(),
                TRAIL_COLUMN => theme.dim(),
                5 if row.error_qps > 0 => theme.alert(),
                6 if row.leak_suspects > 0 => theme.warning(),
                7 if row.nic.critical > 0 => theme.alert(),
                7 if row.nic.warning > 0 => theme.warning(),
                9 if row.status != RowStatus::Ok => status_style(row.status, theme),
                _ => numbers,
            };
            let text = pad(text, usize::from(p.width), col.align == Align::Right);
            put(buf, pane.rows.x + p.x, y, &text, p.width, style);
        }
        if i == screen.cursor.selected {
            style_area(
                buf,
                Rect::new(pane.rows.x, y, pane.rows.width, 1),
                theme.selected(focused),
            );
        }
    }
}

/// The column headers, the sorted one marked.
fn column_headers(
    buf: &mut Buffer,
    pane: &TableArea,
    table: &ObjectTable,
    placed: &[PlacedCell],
    theme: &Theme,
) {
    for p in placed {
        let Some(col) = table.columns.get(p.index) else {
            continue;
        };
        let sorted = p.index == table.sort_column;
        let title = if sorted {
            format!(
                "{}{}",
                col.title,
                crate::interactive::widgets::table::draw::sort_marker(table.direction)
            )
        } else {
            col.title.to_string()
        };
        let style = if sorted {
            theme.column_header().patch(theme.title())
        } else {
            theme.column_header()
        };
        put_header_cell(
            buf,
            pane,
            (p.x, p.width),
            &title,
            col.align == Align::Right,
            style,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::{HostReport, Reach};
    use crate::model::limits::Thresholds;
    use crate::model::{Millis, UnixMs};

    #[test]
    fn the_selection_follows_its_host_through_a_resort() {
        let mut broken = HostReport::named("b-broken");
        broken.error_qps = 2;
        broken.scraped_at = Some(UnixMs(1_000));
        let mut ok = HostReport::named("a-ok");
        ok.scraped_at = Some(UnixMs(1_000));
        let mut down = HostReport::named("c-down");
        down.reach = Reach::Down {
            reason: "refused".into(),
        };
        let reading = FleetReading {
            read_at: UnixMs(2_000),
            hosts: vec![ok, broken, down],
            ..FleetReading::default()
        };
        let rules = RowRules {
            thresholds: Thresholds::default(),
            stale_after: Millis(30_000),
        };
        let mut screen = HostsScreen::default();
        screen.refresh(&reading, &rules, false, &FleetFilter::default());
        let order: Vec<&str> = screen.rows.iter().map(|r| r.host.as_str()).collect();
        assert_eq!(order, ["c-down", "b-broken", "a-ok"]);
        screen.cursor.selected = 1;
        screen.remember();
        screen.step_sort(1);
        assert_eq!(screen.sort, SortKey::Host);
        assert_eq!(screen.selected_row().unwrap().host, "b-broken");
        assert_eq!(screen.rows[0].host, "a-ok");
        screen.reverse();
        assert_eq!(screen.rows[0].host, "c-down");
        screen.sort_by_column(5);
        assert_eq!(screen.sort, SortKey::ErrorQps);
        assert_eq!(screen.rows[0].host, "b-broken");
    }
}
