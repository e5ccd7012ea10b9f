//! The devices table: one row per device (VFs under their PF), one gauge per
//! type, then the ports' traffic (TX/RX per second, % of the link) and a
//! health cell naming the error and congestion counters that moved. The
//! figures come from the counters model through `app::devices_view`; this
//! file only lays them out (columns: `devices_grid`).

use crate::interactive::layout::TableArea;
use crate::interactive::rows::devices::{DeviceRow, DeviceTraffic, Traffic};
use crate::interactive::screens::Ctx;
use crate::interactive::screens::main::Focus;
use crate::interactive::screens::main::MainScreen;
use crate::interactive::screens::main::devices_grid::{
    Column, Grid, HEALTH_FIRST, Placed, name_text, plan_grid, port_text,
};
use crate::interactive::widgets::cursor::visible_offset;
use crate::interactive::widgets::format::pad;
use crate::interactive::widgets::gauge::{gauge, trend_gauge};
use crate::interactive::widgets::paint::{
    put, put_header_cell, put_line, put_spans, style_area, title_line,
};
use crate::interactive::widgets::theme::Theme;
use crate::model::counters::Throughput;
use crate::units::percent;
use crate::units::{bytes_per_s, packets_per_s};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;

/// The port column: state and netdev, or just the state when that is all that fits.
fn port_cell(row: &DeviceRow, full: bool) -> String {
    if full {
        return port_text(row);
    }
    row.ports
        .first()
        .and_then(|p| p.state)
        .map(|s| s.name())
        .unwrap_or("?")
        .to_string()
}

/// The health cell: the moved counters, as many as fit, then `+N`.
pub(crate) fn health_text(traffic: &DeviceTraffic, width: usize) -> String {
    match &traffic.traffic {
        Traffic::Unavailable(_) => return "no counters".to_string(),
        Traffic::NoRates(_) => return "no rates".to_string(),
        Traffic::FirstRead | Traffic::Rates(_) => {}
    }
    fit_names(&traffic.moved, width)
}

/// A tag cut to `width` with `…` when it is longer.
pub(crate) fn fit_tag(tag: &str, width: usize) -> String {
    if tag.chars().count() <= width {
        return tag.to_string();
    }
    let mut out: String = tag.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Names joined by spaces; the ones that do not fit are counted (`+2`).
pub(crate) fn fit_names(names: &[String], width: usize) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        let rest = names.len() - i - 1;
        let more = if rest > 0 {
            format!(" +{rest}").chars().count()
        } else {
            0
        };
        let sep = usize::from(!out.is_empty());
        if out.chars().count() + sep + name.chars().count() + more > width {
            if out.is_empty() {
                return format!("{} moved", names.len());
            }
            return format!("{out} +{}", names.len() - i);
        }
        if sep == 1 {
            out.push(' ');
        }
        out.push_str(name);
    }
    out
}

pub(crate) fn draw(
    frame: &mut Frame,
    area: &TableArea,
    main: &MainScreen,
    ctx: &Ctx,
    theme: &Theme,
) {
    let buf = frame.buffer_mut();
    let focused = main.focus == Focus::Devices;
    draw_title(buf, area, main, focused, theme);

    let types: Vec<_> = main
        .devices
        .first()
        .map(|r| r.usage.iter().map(|(t, _)| *t).collect())
        .unwrap_or_else(|| ctx.filter.visible_types());
    let traffic: Vec<DeviceTraffic> = main.devices.iter().map(DeviceRow::traffic).collect();
    // What the health cells need for a couple of names, and for all.
    let health_need = |budget: usize| {
        let widest = traffic
            .iter()
            .map(|t| health_text(t, budget).chars().count())
            .max()
            .unwrap_or(0);
        u16::try_from(widest).unwrap_or(u16::MAX)
    };
    let health = (
        health_need(usize::from(HEALTH_FIRST)),
        health_need(usize::MAX),
    );
    let g = plan_grid(
        &main.devices,
        &traffic,
        &types,
        area.header.width,
        ctx.sparklines,
        health,
    );

    if area.header.height > 0 {
        let style = theme.column_header();
        for p in &g.columns {
            let right = !matches!(
                p.column,
                Column::Name | Column::Port | Column::Netns | Column::Health | Column::Gauge(_)
            );
            let title = p.column.title(&types);
            put_header_cell(buf, area, (p.x, p.width), title, right, style);
        }
    }

    if main.devices.is_empty() {
        let message = if ctx.snapshot.is_some() {
            "no RDMA devices"
        } else {
            "collecting…"
        };
        put_line(buf, area.rows, message, theme.dim());
        return;
    }

    let height = usize::from(area.rows.height);
    let offset = visible_offset(main.device_cursor, main.devices.len(), height);
    for (i, (row, t)) in main
        .devices
        .iter()
        .zip(&traffic)
        .enumerate()
        .skip(offset)
        .take(height)
    {
        let y = area.rows.y + u16::try_from(i - offset).unwrap_or(0);
        let line = Rect::new(area.rows.x, y, area.rows.width, 1);
        draw_row(buf, line, row, t, &g, ctx, theme);
        if focused && i == main.device_cursor.selected {
            style_area(buf, line, theme.selected(true));
        }
    }
}

/// The pane's title: how many devices, and how many rows are off.
fn draw_title(buf: &mut Buffer, area: &TableArea, main: &MainScreen, focused: bool, theme: &Theme) {
    let title_style = if focused { theme.title() } else { theme.bold() };
    // Folded PFs stand for their VFs: the title counts devices, not rows.
    let folded: usize = main
        .devices
        .iter()
        .filter_map(|r| r.fold.filter(|f| !f.open).map(|f| f.vfs))
        .sum();
    let count = format!("Devices ({})", main.devices.len() + folded);
    // Not all fit: the most troubled are shown, and the title says how
    // many are not (Tab and the arrows reach them).
    let off = main
        .devices
        .len()
        .saturating_sub(usize::from(area.rows.height));
    let room = usize::from(area.title.width).saturating_sub(count.chars().count() + 3);
    let folds = main.devices.iter().any(|r| r.fold.is_some());
    let marks = if off > 0 {
        vec![
            format!(" {off} more rows, worst first (Tab ↓, v opens a PF)"),
            format!(" {off} more, worst first (Tab ↓)"),
            format!(" {off} more (Tab ↓)"),
            format!(" +{off}"),
        ]
    } else {
        vec![" PFs fold their VFs (v opens)".to_string()]
    };
    let mark = marks
        .into_iter()
        .filter(|m| folds || !m.contains(" v "))
        .filter(|_| (off > 0 || folds) && area.rows.height > 0)
        .find(|m| m.chars().count() <= room)
        .map(|m| vec![Span::styled(m, theme.warning())])
        .unwrap_or_default();
    title_line(
        buf,
        area.title,
        Span::styled(count, title_style),
        &mark,
        theme.dim(),
    );
}

fn draw_row(
    buf: &mut Buffer,
    line: Rect,
    row: &DeviceRow,
    traffic: &DeviceTraffic,
    g: &Grid,
    ctx: &Ctx,
    theme: &Theme,
) {
    for p in &g.columns {
        let x = line.x + p.x;
        let w = usize::from(p.width);
        let cell = Rect::new(x, line.y, p.width, 1);
        match p.column {
            Column::Name => {
                let troubled = row.fold.is_some_and(|f| !f.open && f.troubled > 0);
                let style = if row.dump_errors > 0 || troubled {
                    theme.warning()
                } else {
                    theme.plain()
                };
                put(
                    buf,
                    x,
                    line.y,
                    &pad(&name_text(row), w, false),
                    p.width,
                    style,
                );
            }
            Column::Port => {
                let state = row.ports.first().and_then(|p| p.state);
                let text = pad(&port_cell(row, g.port_full), w, false);
                put(buf, x, line.y, &text, p.width, theme.port(state));
            }
            Column::Netns => {
                let text = fit_tag(row.netns.as_deref().unwrap_or(""), w);
                put(buf, x, line.y, &pad(&text, w, false), p.width, theme.dim());
            }
            Column::Gauge(i) => draw_gauge(buf, cell, row, i, p, ctx, theme),
            Column::Health => {
                let text = health_text(traffic, w);
                let style = match &traffic.traffic {
                    Traffic::Unavailable(_) | Traffic::NoRates(_) => theme.dim(),
                    _ if traffic.alerting => theme.alert(),
                    _ => theme.warning(),
                };
                put(buf, x, line.y, &pad(&text, w, false), p.width, style);
            }
            _ => {
                let (text, style) = rate_cell(&traffic.traffic, p.column, theme);
                put(buf, x, line.y, &pad(&text, w, true), p.width, style);
            }
        }
    }
}

fn draw_gauge(
    buf: &mut Buffer,
    cell: Rect,
    row: &DeviceRow,
    i: usize,
    p: &Placed,
    ctx: &Ctx,
    theme: &Theme,
) {
    let (Some((t, entry)), Some(plan)) = (row.usage.get(i), p.gauge) else {
        return;
    };
    let thresholds = &ctx.config.thresholds;
    let spans = if ctx.sparklines {
        let series = ctx.insights.device_series(&row.name, *t);
        trend_gauge(entry.as_ref(), plan, series, thresholds, theme)
    } else {
        gauge(entry.as_ref(), plan, thresholds, theme)
    };
    put_spans(buf, cell, &spans);
}

/// A TX/RX/packets/link cell: the figure, or a mark saying why there is none.
pub(crate) fn rate_cell(traffic: &Traffic, column: Column, theme: &Theme) -> (String, Style) {
    let t = match traffic {
        Traffic::Unavailable(_) => return ("n/a".to_string(), theme.dim()),
        Traffic::FirstRead => return ("…".to_string(), theme.dim()),
        Traffic::NoRates(_) => return ("?".to_string(), theme.dim()),
        Traffic::Rates(t) => t,
    };
    let text = rate_text(t, column);
    let style = if text.starts_with("0 ") || text == "0%" {
        theme.zero()
    } else {
        theme.plain()
    };
    (text, style)
}

/// TX/RX show bytes where the port counts them, packets otherwise.
pub(crate) fn rate_text(t: &Throughput, column: Column) -> String {
    let either = |bytes: Option<f64>, packets: Option<f64>| match (bytes, packets) {
        (Some(b), _) => bytes_per_s(b),
        (None, Some(p)) => packets_per_s(p),
        (None, None) => "-".to_string(),
    };
    let packets = |p: Option<f64>| p.map_or_else(|| "-".to_string(), packets_per_s);
    match column {
        Column::Tx => either(t.tx_bytes, t.tx_packets),
        Column::Rx => either(t.rx_bytes, t.rx_packets),
        Column::TxPackets => packets(t.tx_packets),
        Column::RxPackets => packets(t.rx_packets),
        Column::Link => t.utilisation.map_or_else(|| "-".to_string(), percent),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn moved_names_fit_or_are_counted() {
        let n = names(&["np_cnp_sent", "out_of_sequence", "packet_seq_err"]);
        assert_eq!(
            fit_names(&n, 80),
            "np_cnp_sent out_of_sequence packet_seq_err"
        );
        assert_eq!(fit_names(&n, 30), "np_cnp_sent out_of_sequence +1");
        assert_eq!(fit_names(&n, 15), "np_cnp_sent +2");
        assert_eq!(fit_names(&n, 8), "3 moved");
        assert_eq!(fit_names(&[], 8), "");
        for w in 0..60 {
            let text = fit_names(&n, w);
            assert!(text.chars().count() <= w.max(7), "{w}: {text}");
        }
    }

    #[test]
    fn tx_and_rx_show_bytes_where_known_and_packets_otherwise() {
        let t = Throughput {
            tx_bytes: Some(25e9),
            rx_bytes: None,
            tx_packets: Some(1e6),
            rx_packets: Some(980.0),
            utilisation: Some(0.5),
        };
        assert_eq!(rate_text(&t, Column::Tx), "25 GB/s");
        assert_eq!(rate_text(&t, Column::Rx), "980 p/s");
        assert_eq!(rate_text(&t, Column::TxPackets), "1 Mp/s");
        assert_eq!(rate_text(&t, Column::Link), "50%");
        let none = Throughput::default();
        assert_eq!(rate_text(&none, Column::Tx), "-");
    }
}
