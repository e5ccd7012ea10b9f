//! The top-consumers table.

use super::format::pad;
use super::paint::{put, style_area, title_line};
use super::sparkline::{age_text, signed, signed_bytes, sparkline};
use super::theme::Theme;
use crate::app::columns::{ConsumerColumn, fit_consumer_columns_with};
use crate::app::cursor::visible_offset;
use crate::app::layout::TablePane;
use crate::app::{App, Focus, Level, Thresholds};
use crate::model::consumers::{Consumer, SortDirection};
use crate::model::history::BaselineDelta;
use crate::units::bytes;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;

pub fn sort_marker(direction: SortDirection) -> &'static str {
    match direction {
        SortDirection::Ascending => "▲",
        SortDirection::Descending => "▼",
    }
}

pub fn draw(frame: &mut Frame, pane: &TablePane, app: &App, theme: &Theme) {
    let buf = frame.buffer_mut();
    let focused = app.focus == Focus::Consumers;
    let title_style = if focused { theme.title() } else { theme.bold() };
    let mut extra = Vec::new();
    if let Some(text) = &app.filter.text {
        extra.push(Span::styled(format!(" filter: {text}"), theme.warning()));
    }
    if let Some(baseline) = app.history.baseline() {
        let ago = app.trend_views.at_ms.saturating_sub(baseline.at_ms);
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
        pane.title,
        Span::styled(
            format!("Top consumers ({})", app.consumers.len()),
            title_style,
        ),
        &extra,
        theme.dim(),
    );

    let placed = fit_consumer_columns_with(&app.filter, pane.header.width, app.sparklines);
    if pane.header.height > 0 {
        for p in &placed {
            let sorted =
                p.column.sort_key() == app.sort && !matches!(p.column, ConsumerColumn::Trend(_));
            let title = if sorted {
                format!("{}{}", p.column.title(), sort_marker(app.direction))
            } else {
                p.column.title().to_string()
            };
            let style = if sorted {
                theme.column_header().patch(theme.title())
            } else {
                theme.column_header()
            };
            let text = pad(&title, usize::from(p.width), p.column.right_aligned());
            put(
                buf,
                pane.header.x + p.x,
                pane.header.y,
                &text,
                p.width,
                style,
            );
        }
    }

    if app.consumers.is_empty() {
        let message = match (app.snapshot(), &app.filter.text) {
            (None, _) => "collecting…",
            (Some(_), Some(_)) => "nothing matches the filter (Esc clears it)",
            (Some(_), None) => "no process holds RDMA resources",
        };
        put(
            buf,
            pane.rows.x,
            pane.rows.y,
            message,
            pane.rows.width,
            theme.dim(),
        );
        return;
    }

    let height = usize::from(pane.rows.height);
    let offset = visible_offset(app.consumer_cursor, app.consumers.len(), height);
    for (i, c) in app.consumers.iter().enumerate().skip(offset).take(height) {
        let y = pane.rows.y + u16::try_from(i - offset).unwrap_or(0);
        let delta = app.deltas.get(&c.owner);
        for p in &placed {
            let (text, style) = match (p.column, delta) {
                (ConsumerColumn::Trend(t), _) => trend_cell(app, c, t, usize::from(p.width), theme),
                (column, Some(d)) if delta_shown(column) => delta_cell(d, column, theme),
                (column, _) => cell(c, column, &app.config.thresholds, theme),
            };
            let text = pad(&text, usize::from(p.width), p.column.right_aligned());
            put(buf, pane.rows.x + p.x, y, &text, p.width, style);
        }
        if i == app.consumer_cursor.selected {
            let line = Rect::new(pane.rows.x, y, pane.rows.width, 1);
            style_area(buf, line, theme.selected(focused));
        }
    }
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
fn trend_cell(
    app: &App,
    c: &Consumer,
    t: crate::model::ResourceType,
    width: usize,
    theme: &Theme,
) -> (String, Style) {
    let trend = app.trend_views.owner(&c.owner).and_then(|o| o.get(t));
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

fn count_cell(n: u64, theme: &Theme) -> (String, Style) {
    let style = if n == 0 { theme.zero() } else { theme.plain() };
    (n.to_string(), style)
}

fn cell(
    c: &Consumer,
    column: ConsumerColumn,
    thresholds: &Thresholds,
    theme: &Theme,
) -> (String, Style) {
    match column {
        ConsumerColumn::Pid => (
            c.pid().map(|p| p.to_string()).unwrap_or_else(|| "-".into()),
            theme.plain(),
        ),
        ConsumerColumn::User => {
            let user = c
                .user()
                .map(String::from)
                .or_else(|| {
                    c.process
                        .as_ref()
                        .and_then(|p| p.uid)
                        .map(|u| u.to_string())
                })
                .unwrap_or_else(|| "-".into());
            (user, theme.plain())
        }
        ConsumerColumn::Name => {
            let style = if c.process.is_some() {
                theme.bold()
            } else {
                theme.plain()
            };
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
                Some(level) => (format!("{} ⚑", c.name), theme.level(level)),
                None => (c.name.clone(), style),
            }
        }
        ConsumerColumn::Container => (c.container().unwrap_or_default(), theme.plain()),
        ConsumerColumn::Pod => (c.pod().unwrap_or_default(), theme.plain()),
        ConsumerColumn::Count(t) => count_cell(c.counts.get(t), theme),
        ConsumerColumn::MrBytes => {
            if c.mr_bytes == 0 {
                ("0".into(), theme.zero())
            } else {
                (bytes(c.mr_bytes), theme.plain())
            }
        }
        ConsumerColumn::ErrQps => {
            let n = c.error_qps();
            if n > 0 {
                (n.to_string(), theme.alert())
            } else {
                ("0".into(), theme.zero())
            }
        }
        ConsumerColumn::Trend(_) => (String::new(), theme.dim()),
    }
}
