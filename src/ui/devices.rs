//! The device pane: one row per device (VFs under their PF), one gauge per type.

use super::format::pad;
use super::gauge::{GaugePlan, gauge, plan_for, trend_gauge};
use super::paint::{put, put_line, put_spans, style_area, title_line};
use super::theme::Theme;
use crate::app::cursor::visible_offset;
use crate::app::devices_view::{DeviceRow, PortSummary, Tree};
use crate::app::layout::TablePane;
use crate::app::screens::main::MainScreen;
use crate::app::{Ctx, Focus};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

/// Column widths for the device grid at a given width.
struct Grid {
    name: u16,
    port: u16,
    cell: u16,
}

fn grid(rows: &[DeviceRow], types: usize, width: u16) -> Grid {
    let name_w = rows
        .iter()
        .map(|r| r.name.chars().count() + if r.tree == Tree::Root { 0 } else { 2 })
        .max()
        .unwrap_or(6)
        .clamp(6, 16);
    let port_w = rows
        .iter()
        .map(|r| port_text(&r.ports).chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 22);
    let name = u16::try_from(name_w).unwrap_or(16);
    let mut port = u16::try_from(port_w).unwrap_or(22);
    let types = u16::try_from(types.max(1)).unwrap_or(7);
    let cell_for = |port: u16| width.saturating_sub(name + port + 2) / types;
    // Narrow terminals: keep the port state, give the netdev's room to the gauges.
    if cell_for(port) < 9 {
        port = port.min(6);
    }
    Grid {
        name,
        port,
        cell: cell_for(port),
    }
}

/// The port column: state and netdev, or just the state when that is all that fits.
fn port_cell(ports: &[PortSummary], width: usize) -> String {
    let full = port_text(ports);
    if full.chars().count() <= width {
        return full;
    }
    ports
        .first()
        .and_then(|p| p.state)
        .map(|s| s.name())
        .unwrap_or("?")
        .to_string()
}

fn port_text(ports: &[PortSummary]) -> String {
    let Some(first) = ports.first() else {
        return "-".to_string();
    };
    let state = first.state.map(|s| s.name()).unwrap_or("?");
    let mut text = match &first.netdev {
        Some(n) => format!("{state} {n}"),
        None => state.to_string(),
    };
    if ports.len() > 1 {
        text.push_str(&format!(" +{}", ports.len() - 1));
    }
    text
}

pub fn draw(frame: &mut Frame, pane: &TablePane, main: &MainScreen, ctx: &Ctx, theme: &Theme) {
    let buf = frame.buffer_mut();
    let focused = main.focus == Focus::Devices;
    let title_style = if focused { theme.title() } else { theme.bold() };
    let count = format!("Devices ({})", main.devices.len());
    title_line(
        buf,
        pane.title,
        Span::styled(count, title_style),
        &[],
        theme.dim(),
    );

    let types: Vec<_> = main
        .devices
        .first()
        .map(|r| r.usage.iter().map(|(t, _)| *t).collect())
        .unwrap_or_else(|| ctx.filter.visible_types());
    let g = grid(&main.devices, types.len(), pane.header.width);

    // Column headers.
    if pane.header.height > 0 {
        let y = pane.header.y;
        let mut x = pane.header.x;
        let style = theme.column_header();
        // A header `width` wide, the next one `step` further right.
        let mut column = |label: &str, width: u16, step: u16| {
            put(
                buf,
                x,
                y,
                &pad(label, usize::from(width), false),
                width,
                style,
            );
            x = x.saturating_add(step);
        };
        column("DEVICE", g.name, g.name + 1);
        column("PORT", g.port, g.port + 1);
        for t in &types {
            column(t.label(), g.cell.saturating_sub(1), g.cell);
        }
    }

    if main.devices.is_empty() {
        let message = if ctx.snapshot.is_some() {
            "no RDMA devices"
        } else {
            "collecting…"
        };
        put_line(buf, pane.rows, message, theme.dim());
        return;
    }

    // One plan per type column, over every device, so gauges line up.
    let plans: Vec<GaugePlan> = (0..types.len())
        .map(|i| {
            let entries: Vec<_> = main
                .devices
                .iter()
                .map(|r| r.usage.get(i).and_then(|(_, e)| e.as_ref()))
                .collect();
            plan_for(
                &entries,
                usize::from(g.cell.saturating_sub(1)),
                ctx.sparklines,
            )
        })
        .collect();
    let height = usize::from(pane.rows.height);
    let offset = visible_offset(main.device_cursor, main.devices.len(), height);
    for (i, row) in main.devices.iter().enumerate().skip(offset).take(height) {
        let y = pane.rows.y + u16::try_from(i - offset).unwrap_or(0);
        let line = Rect::new(pane.rows.x, y, pane.rows.width, 1);
        draw_row(buf, line, row, &g, &plans, ctx, theme);
        if focused && i == main.device_cursor.selected {
            style_area(buf, line, theme.selected(true));
        }
    }
}

fn draw_row(
    buf: &mut ratatui::buffer::Buffer,
    line: Rect,
    row: &DeviceRow,
    g: &Grid,
    plans: &[GaugePlan],
    ctx: &Ctx,
    theme: &Theme,
) {
    let mut x = line.x;
    let y = line.y;
    let name = match row.tree {
        Tree::Root => row.name.clone(),
        Tree::Vf { last: false } => format!("├ {}", row.name),
        Tree::Vf { last: true } => format!("└ {}", row.name),
    };
    let name_style = if row.dump_errors > 0 {
        theme.warning()
    } else {
        theme.plain()
    };
    put(
        buf,
        x,
        y,
        &pad(&name, usize::from(g.name), false),
        g.name,
        name_style,
    );
    x += g.name + 1;
    let state = row.ports.first().and_then(|p| p.state);
    put(
        buf,
        x,
        y,
        &pad(
            &port_cell(&row.ports, usize::from(g.port)),
            usize::from(g.port),
            false,
        ),
        g.port,
        theme.port(state),
    );
    x += g.port + 1;
    for ((t, entry), plan) in row.usage.iter().zip(plans) {
        let thresholds = &ctx.config.thresholds;
        let spans = if ctx.sparklines {
            let series = ctx.insights.device_series(&row.name, *t);
            trend_gauge(entry.as_ref(), *plan, series, thresholds, theme)
        } else {
            gauge(entry.as_ref(), *plan, thresholds, theme)
        };
        put_spans(buf, Rect::new(x, y, g.cell.saturating_sub(1), 1), &spans);
        x = x.saturating_add(g.cell);
    }
}
