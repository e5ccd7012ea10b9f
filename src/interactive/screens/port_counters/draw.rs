//! The counters screen of one port: the port and its traffic on top (wrapped
//! onto the rows the table can spare, cut between words where none is
//! left), then one row per counter (name, value, rate, sparkline, meaning;
//! cells cut between words). Figures come from `app::counters_view`; this
//! lays them out and marks moved counters.

use crate::interactive::rows::devices::{PortSummary, Traffic};
use crate::interactive::rows::port_counters::{
    CounterRow, CounterSort, Mark, Origin, find_port, sparkline_values,
};
use crate::interactive::screens::Ctx;
use crate::interactive::screens::port_counters::{INFO_LINES, PortCountersScreen};
use crate::interactive::screens::port_traffic::traffic_line;
use crate::interactive::widgets::cursor::visible_offset;
use crate::interactive::widgets::fit::wrap_spans;
use crate::interactive::widgets::format::pad;
use crate::interactive::widgets::paint::{put, put_header_cell, put_spans, style_area, title_line};
use crate::interactive::widgets::port_state::port_state;
use crate::interactive::widgets::sparkline::sparkline;
use crate::interactive::widgets::theme::Theme;
use crate::model::Port;
use crate::units::per_s;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Name,
    Value,
    Rate,
    Trend,
    Meaning,
}

/// One column of the counters table, x relative to the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CounterColumn {
    pub kind: Kind,
    pub title: &'static str,
    pub x: u16,
    pub width: u16,
    pub sort: Option<CounterSort>,
}

const RATE_W: u16 = 9;
const TREND_W: u16 = 12;
const MEANING_MIN: u16 = 12;

/// The table's columns at `width`: the sparkline and the meaning go first
/// on narrow screens; name, value and rate always stay.
pub(crate) fn columns(rows: &[CounterRow], width: u16) -> Vec<CounterColumn> {
    let widest = rows
        .iter()
        .map(|r| {
            r.name.chars().count()
                + match r.origin {
                    Origin::Driver => 0,
                    Origin::Pma => 4,
                    Origin::Netdev => 7,
                }
        })
        .max()
        .unwrap_or(4);
    let digits = rows
        .iter()
        .map(|r| r.value.to_string().len())
        .max()
        .unwrap_or(5);
    // Values stay exact: u64 has at most 20 digits.
    let value_w = u16::try_from(digits.clamp(5, 20)).unwrap_or(20);
    let name = u16::try_from(widest.clamp(8, 36)).unwrap_or(36);
    let name = name.min(width.saturating_sub(value_w + RATE_W + 2).max(8));
    let mut out = vec![
        col(Kind::Name, "COUNTER", 0, name, Some(CounterSort::Name)),
        col(
            Kind::Value,
            "VALUE",
            name + 1,
            value_w,
            Some(CounterSort::Value),
        ),
        col(
            Kind::Rate,
            "RATE",
            name + value_w + 2,
            RATE_W,
            Some(CounterSort::Rate),
        ),
    ];
    let mut x = name + value_w + RATE_W + 3;
    if width >= x + TREND_W + 1 + MEANING_MIN || (width >= x + TREND_W && width < 80) {
        out.push(col(Kind::Trend, "TREND", x, TREND_W, None));
        x += TREND_W + 1;
    }
    if width >= x + MEANING_MIN {
        out.push(col(Kind::Meaning, "MEANING", x, width - x, None));
    }
    out
}

const fn col(
    kind: Kind,
    title: &'static str,
    x: u16,
    width: u16,
    sort: Option<CounterSort>,
) -> CounterColumn {
    CounterColumn {
        kind,
        title,
        x,
        width,
        sort,
    }
}

pub(crate) fn draw(frame: &mut Frame, screen: &PortCountersScreen, ctx: &Ctx, theme: &Theme) {
    let body = ctx.body;
    let buf = frame.buffer_mut();
    let line = |i: u16| Rect::new(body.x, body.y + i, body.width, u16::from(i < body.height));
    let port = ctx
        .snapshot
        .and_then(|s| find_port(s, &screen.device, screen.port));
    let Some(port) = port else {
        let gone = format!(
            "{} port {}: not in this snapshot (Esc goes back)",
            screen.device, screen.port
        );
        put_spans(buf, line(0), &[Span::styled(gone, theme.dim())]);
        return;
    };
    let alerts = ctx.history.counters().alerts();
    let summary = PortSummary::new(port, &screen.device, &alerts);
    let info = info_lines(screen, ctx, theme);
    for (i, spans) in info.iter().enumerate() {
        put_spans(buf, line(u16::try_from(i).unwrap_or(u16::MAX)), spans);
    }

    let area = screen.table_area(ctx);
    let sorted = match (screen.sort, screen.descending) {
        (CounterSort::Name, false) => "name",
        (CounterSort::Name, true) => "name, Z first",
        (CounterSort::Value, _) => "value",
        (CounterSort::Rate, _) => "rate",
    };
    title_line(
        buf,
        area.title,
        Span::styled(
            format!(
                "Counters of {} port {} ({})",
                screen.device,
                screen.port,
                screen.rows.len()
            ),
            theme.title(),
        ),
        &[Span::styled(format!("  sorted by {sorted}"), theme.dim())],
        theme.dim(),
    );
    let cols = columns(&screen.rows, area.header.width);
    for c in &cols {
        let arrow = match (c.sort == Some(screen.sort), screen.descending) {
            (true, true) => "▼",
            (true, false) => "▲",
            _ => "",
        };
        let right = matches!(c.kind, Kind::Value | Kind::Rate);
        let title = format!("{}{arrow}", c.title);
        let style = theme.column_header();
        put_header_cell(buf, &area, (c.x, c.width), &title, right, style);
    }
    if screen.rows.is_empty() {
        let why = match &summary.traffic {
            Traffic::Unavailable(why) => format!("no counters for this port: {why}"),
            _ => "no counters for this port".to_string(),
        };
        put(
            buf,
            area.rows.x,
            area.rows.y,
            &why,
            area.rows.width,
            theme.dim(),
        );
        return;
    }
    let height = usize::from(area.rows.height);
    let offset = visible_offset(screen.cursor, screen.rows.len(), height);
    for (i, row) in screen.rows.iter().enumerate().skip(offset).take(height) {
        let y = area.rows.y + u16::try_from(i - offset).unwrap_or(0);
        draw_row(buf, area.rows.x, y, row, &cols, theme);
        if i == screen.cursor.selected {
            style_area(
                buf,
                Rect::new(area.rows.x, y, area.rows.width, 1),
                theme.selected(true),
            );
        }
    }
}

/// Rows the table keeps (or all its rows, when fewer) before the lines
/// above it may wrap onto more lines.
const TABLE_KEEPS: u16 = 8;

/// The port's line and its traffic line, each wrapped onto the rows the
/// table can spare (`TABLE_KEEPS`) and cut between words where none is
/// left; none when the port is not in the snapshot.
pub(crate) fn info_lines<'a>(
    screen: &PortCountersScreen,
    ctx: &Ctx,
    theme: &Theme,
) -> Vec<Vec<Span<'a>>> {
    let Some(port) = ctx
        .snapshot
        .and_then(|s| find_port(s, &screen.device, screen.port))
    else {
        return Vec::new();
    };
    let body = ctx.body;
    let keep = u16::try_from(screen.rows.len())
        .unwrap_or(u16::MAX)
        .clamp(1, TABLE_KEEPS);
    // Two lines at least; more where the table keeps its rows.
    let budget = usize::from(body.height.saturating_sub(2 + keep).max(INFO_LINES));
    let width = usize::from(body.width);
    let alerts = ctx.history.counters().alerts();
    let summary = PortSummary::new(port, &screen.device, &alerts);
    let mut lines = wrap_spans(
        port_line(&screen.device, port, theme),
        width,
        budget.saturating_sub(1).max(1),
    );
    let left = budget.saturating_sub(lines.len()).max(1);
    lines.extend(wrap_spans(traffic_line(&summary, theme), width, left));
    lines
}

fn row_style(row: &CounterRow, theme: &Theme) -> Style {
    match row.mark {
        Mark::Alerting => theme.alert(),
        Mark::Moved => theme.warning(),
        Mark::Reset => theme.dim(),
        Mark::Plain => theme.plain(),
    }
}

fn draw_row(
    buf: &mut Buffer,
    x0: u16,
    y: u16,
    row: &CounterRow,
    cols: &[CounterColumn],
    theme: &Theme,
) {
    let style = row_style(row, theme);
    for c in cols {
        let w = usize::from(c.width);
        let (text, style) = match c.kind {
            Kind::Name => {
                let name = match row.origin {
                    Origin::Driver => row.name.clone(),
                    Origin::Pma => format!("{} pma", row.name),
                    Origin::Netdev => format!("{} netdev", row.name),
                };
                (pad(&name, w, false), style)
            }
            Kind::Value => (pad(&row.value.to_string(), w, true), style),
            Kind::Rate => {
                let text = match (row.mark, row.rate) {
                    (Mark::Reset, _) => "reset".to_string(),
                    (_, Some(r)) => per_s(r),
                    (_, None) => "-".to_string(),
                };
                let style = if row.rate == Some(0.0) && row.mark == Mark::Plain {
                    theme.zero()
                } else {
                    style
                };
                (pad(&text, w, true), style)
            }
            Kind::Trend => (sparkline(&sparkline_values(&row.series), w), style),
            Kind::Meaning => {
                let m = row.meaning.unwrap_or("");
                (
                    pad(m, w, false),
                    theme.dim().patch(style_fg(style, row.mark)),
                )
            }
        };
        put(buf, x0 + c.x, y, &text, c.width, style);
    }
}

/// The meaning keeps the row's colour on marked rows, dim otherwise.
fn style_fg(style: Style, mark: Mark) -> Style {
    if mark == Mark::Plain {
        Style::default()
    } else {
        style
    }
}

/// `mlx5_1 port 1  ACTIVE ens1f1np1  200 Gb/sec (4X HDR)  from netlink  2.0 s between reads`.
fn port_line<'a>(device: &str, port: &Port, theme: &Theme) -> Vec<Span<'a>> {
    let mut spans = vec![
        Span::styled(format!("{device} port {}  ", port.index), theme.bold()),
        port_state(port.state, port.netdev.as_deref(), theme),
    ];
    if let Some(c) = &port.counters {
        if let Some(rate) = &c.link_rate {
            spans.push(Span::raw(format!("  {rate}")));
        }
        if let Some(source) = c.source {
            spans.push(Span::styled(
                format!("  from {}", source.name()),
                theme.dim(),
            ));
        }
        if let Some(r) = c.rates().filter(|r| r.note.is_none()) {
            spans.push(Span::styled(
                format!("  {:.1} s between reads", r.interval_s),
                theme.dim(),
            ));
        }
        if let Some(words) = c
            .netdev
            .as_ref()
            .and_then(|n| n.health())
            .map(|h| h.words())
            .filter(|w| !w.is_empty())
        {
            spans.push(Span::styled(
                format!("  netdev: {}", words.join(", ")),
                theme.bold(),
            ));
        }
    }
    spans
}
