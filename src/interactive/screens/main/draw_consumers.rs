//! The top-consumers table.

use crate::interactive::layout::TableArea;
use crate::interactive::rows::consumer_columns::ConsumerColumn;
use crate::interactive::screens::Ctx;
use crate::interactive::screens::main::Focus;
use crate::interactive::screens::main::MainScreen;
use crate::interactive::widgets::cursor::visible_offset;
use crate::interactive::widgets::format::pad;
use crate::interactive::widgets::paint::{put, put_header_cell, put_line, style_area, title_line};
use crate::interactive::widgets::sparkline::{age_text, signed, signed_bytes, sparkline};
use crate::interactive::widgets::table::draw::sort_marker;
use crate::interactive::widgets::theme::Theme;
use crate::model::consumers_growth::{GrowthMark, growth};
use crate::model::history::BaselineDelta;
use crate::model::limits::{Level, Thresholds};
use crate::model::owner_group::{OwnerGroup, OwnerGroupRow};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;

pub(crate) fn draw(
    frame: &mut Frame,
    area: &TableArea,
    main: &MainScreen,
    ctx: &Ctx,
    theme: &Theme,
) {
    let buf = frame.buffer_mut();
    let focused = main.focus == Focus::Consumers;
    let title_style = if focused { theme.title() } else { theme.bold() };
    let mut extra = Vec::new();
    if let Some(text) = &ctx.filter.text {
        extra.push(Span::styled(format!(" filter: {text}"), theme.warning()));
    }
    if let Some(baseline) = ctx.history.baseline() {
        let ago = ctx.insights.at_ms.since(baseline.at_ms);
        extra.push(Span::styled(
            format!(
                " change since baseline {} ago (b clears)",
                age_text(ago, false)
            ),
            theme.title(),
        ));
    }
    title_line(
        buf,
        area.title,
        Span::styled(
            format!(
                "Top consumers{} ({}) {}",
                grouping_title(main.grouping),
                main.rows.len(),
                ctx.filter.scope_label()
            ),
            title_style,
        ),
        &extra,
        theme.dim(),
    );

    let placed = main.placed_columns(ctx, area.header.width);
    if area.header.height > 0 {
        for p in &placed {
            let sorted =
                p.column.sort_key() == main.sort && !matches!(p.column, ConsumerColumn::Trend(_));
            let title = if sorted {
                format!("{}{}", p.column.header(), sort_marker(main.direction))
            } else {
                p.column.header().to_string()
            };
            let style = if sorted {
                theme.column_header().patch(theme.title())
            } else {
                theme.column_header()
            };
            let right = p.column.right_aligned();
            put_header_cell(buf, area, (p.x, p.width), &title, right, style);
        }
    }

    if main.rows.is_empty() {
        let message = match (ctx.snapshot, &ctx.filter.text) {
            (None, _) => "collecting…",
            (Some(_), Some(_)) => "nothing matches the filter (Esc clears it)",
            (Some(_), None) => "no process holds RDMA resources",
        };
        put_line(buf, area.rows, message, theme.dim());
        return;
    }

    let height = usize::from(area.rows.height);
    let offset = visible_offset(main.consumer_cursor, main.rows.len(), height);
    for (i, row) in main.rows.iter().enumerate().skip(offset).take(height) {
        let y = area.rows.y + u16::try_from(i - offset).unwrap_or(0);
        let c = &row.total;
        let delta = main.deltas.get(&c.owner);
        for p in &placed {
            let (text, style) = match (p.column, delta) {
                (ConsumerColumn::Trend(t), _) => {
                    trend_cell(ctx, row, t, usize::from(p.width), theme)
                }
                (column, Some(d)) if delta_shown(column) => delta_cell(d, column, theme),
                (column, _) => cell(row, column, &ctx.config.thresholds, theme),
            };
            let width = usize::from(p.width);
            let (text, style) = match p.column {
                ConsumerColumn::Name => with_growth(ctx, row, text, style, width, theme),
                _ => (pad(&text, width, p.column.right_aligned()), style),
            };
            put(buf, area.rows.x + p.x, y, &text, p.width, style);
        }
        if i == main.consumer_cursor.selected {
            let line = Rect::new(area.rows.x, y, area.rows.width, 1);
            style_area(buf, line, theme.selected(focused));
        }
    }
}

/// What the title says the rows are, when they are not processes.
fn grouping_title(grouping: OwnerGroup) -> &'static str {
    match grouping {
        OwnerGroup::Process => "",
        OwnerGroup::Container => " by container",
        OwnerGroup::Pod => " by pod",
    }
}

/// The NAME cell with the owner's growth at its right end: `leaky_svc
/// ⚠ +30 QP/min` for a leak suspect (the whole name in the alert style),
/// `↑ +6 QP` while counts keep rising; only the mark when the column is
/// narrow.
/// Growth is judged per process: a group's row has no mark of its own.
fn with_growth(
    ctx: &Ctx,
    row: &OwnerGroupRow,
    name: String,
    style: Style,
    width: usize,
    theme: &Theme,
) -> (String, Style) {
    let growth = ctx
        .insights
        .owner(&row.total.owner)
        .and_then(|t| growth(t, ctx.insights.min_span_ms))
        .filter(|_| !row.is_group());
    let Some(g) = growth else {
        return (pad(&name, width, false), style);
    };
    let style = match g.mark {
        GrowthMark::LeakSuspect => theme.alert(),
        GrowthMark::Rising => style,
    };
    let full = format!("{} {}", g.mark.symbol(), g.text);
    let name_len = name.chars().count();
    let tail = if name_len + 1 + full.chars().count() <= width {
        full
    } else {
        g.mark.symbol().to_string()
    };
    let room = width.saturating_sub(tail.chars().count() + 1);
    let name = pad(&name, room, false);
    (format!("{name} {tail:>0$}", width - room - 1), style)
}

/// Columns that show the change since the baseline while one is set.
fn delta_shown(column: ConsumerColumn) -> bool {
    matches!(
        column,
        ConsumerColumn::Count(_) | ConsumerColumn::MrBytes | ConsumerColumn::ErrQps
    )
}

fn delta_cell(d: &BaselineDelta, column: ConsumerColumn, theme: &Theme) -> (String, Style) {
    let (n, text) = match column {
        ConsumerColumn::Count(t) => (d.counts.get(t), signed(d.counts.get(t))),
        ConsumerColumn::MrBytes => (d.mr_bytes, signed_bytes(d.mr_bytes)),
        ConsumerColumn::ErrQps => (d.err_qps, signed(d.err_qps)),
        _ => (0, String::new()),
    };
    let style = match n {
        0 => theme.zero(),
        n if n > 0 => theme.warning(),
        _ => theme.plain(),
    };
    (text, style)
}

/// The sparkline of `t` over the trend window; red when it is a leak suspect.
/// Trends are kept per process: a group's row has none of its own.
fn trend_cell(
    ctx: &Ctx,
    row: &OwnerGroupRow,
    t: crate::model::ResourceType,
    width: usize,
    theme: &Theme,
) -> (String, Style) {
    if row.is_group() {
        return (String::new(), theme.dim());
    }
    let trend = ctx.insights.owner(&row.total.owner).and_then(|o| o.get(t));
    match trend {
        Some(tt) => {
            let style = if tt.leak_suspect {
                theme.alert()
            } else {
                theme.plain()
            };
            (sparkline(&tt.series, width), style)
        }
        None => (String::new(), theme.dim()),
    }
}

/// The model's cell text, styled: zero counts dim, ERROR QPs red, process
/// and group names bold, and a process near its cgroup's rdma quota flagged.
fn cell(
    row: &OwnerGroupRow,
    column: ConsumerColumn,
    thresholds: &Thresholds,
    theme: &Theme,
) -> (String, Style) {
    let c = &row.total;
    let text = row.cell(column);
    let style = match (column, column.value(c)) {
        (_, Some(0)) => theme.zero(),
        (ConsumerColumn::ErrQps, Some(_)) => theme.alert(),
        (ConsumerColumn::Name, _) if c.process.is_some() || row.is_group() => theme.bold(),
        (ConsumerColumn::Trend(_), _) => theme.dim(),
        _ => theme.plain(),
    };
    if column != ConsumerColumn::Name {
        return (text, style);
    }
    // A process near its cgroup's rdma quota is marked: it, not the
    // device, is about to be refused (details in the drill-down).
    let quota = c
        .process
        .as_ref()
        .and_then(|p| p.rdma_cgroup.as_ref())
        .and_then(|g| g.fullest())
        .and_then(|(_, _, q)| q.ratio())
        .map(|r| thresholds.level(r))
        .filter(|l| *l != Level::Normal);
    match quota {
        Some(level) => (format!("{text} ⚑"), theme.level(level)),
        None => (text, style),
    }
}
