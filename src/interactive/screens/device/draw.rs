//! The device screen's top part: the device, its ports with their traffic and
//! health (a port row opens its counters; a port's line wraps onto the rows
//! the layout spares it, and is cut between words where it has none), usage against the limits, the
//! rdma cgroup quotas that bind its consumers, and its ERROR QPs.

use crate::interactive::rows::devices::{PortSummary, Traffic};
use crate::interactive::screens::Ctx;
use crate::interactive::screens::device::DeviceLayout;
use crate::interactive::screens::port_traffic::traffic_line;
use crate::interactive::widgets::fit::wrap_spans;
use crate::interactive::widgets::paint::{put_spans, style_area, title_line};
use crate::interactive::widgets::port_state::port_state;
use crate::interactive::widgets::sparkline::age_text;
use crate::interactive::widgets::theme::Theme;
use crate::model::history::ErrorQpInsight;
use crate::model::limits::cgroup::Quota;
use crate::model::{Device, Snapshot};
use crate::units::{count, percent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use std::collections::BTreeMap;

/// `mlx5_0  0000:17:00.0  VF of mlx5_0`.
pub(crate) fn identity_line<'a>(device: &Device, theme: &Theme) -> Vec<Span<'a>> {
    let mut spans = vec![Span::styled(device.name.clone(), theme.bold())];
    if let Some(pci) = &device.pci {
        spans.push(Span::raw(format!("  {pci}")));
    }
    if let Some(pf) = &device.pf {
        spans.push(Span::raw(format!("  VF of {pf}")));
    }
    let ports = device.ports.len();
    let s = if ports == 1 { "" } else { "s" };
    spans.push(Span::styled(
        format!("  {ports} port{s} (⏎ or c: counters)"),
        theme.dim(),
    ));
    spans
}

/// One port: `port 1 ACTIVE ens1f0np0 200 Gb/sec (4X HDR)  TX ... RX ... LINK 54%  moved: ...`;
/// below `WIDE` columns the link rate text and the packet rates (where
/// bytes are known) give their room to the moved counters.
pub(crate) fn port_line<'a>(port: &PortSummary, width: u16, theme: &Theme) -> Vec<Span<'a>> {
    const WIDE: u16 = 110;
    let mut spans = vec![
        Span::raw(format!("port {} ", port.index)),
        port_state(port.state, port.netdev.as_deref(), theme),
    ];
    if let Some(rate) = port.link_rate.as_ref().filter(|_| width >= WIDE) {
        spans.push(Span::styled(format!("  {rate}"), theme.dim()));
    }
    spans.push(Span::raw("  "));
    let mut compact = port.clone();
    if width < WIDE
        && let Traffic::Rates(t) = &mut compact.traffic
    {
        if t.tx_bytes.is_some() {
            t.tx_packets = None;
        }
        if t.rx_bytes.is_some() {
            t.rx_packets = None;
        }
    }
    spans.extend(traffic_line(&compact, theme));
    spans
}

/// The ports, each on the lines the layout gives it (`port_lines`): its
/// line wrapped there, cut between words where it has only one.
pub(crate) fn draw_ports(
    buf: &mut Buffer,
    layout: &DeviceLayout,
    ports: &[PortSummary],
    selected: Option<usize>,
    theme: &Theme,
) {
    let area = layout.ports;
    let mut y = area.y;
    for (i, (p, n)) in ports.iter().zip(layout.port_lines).enumerate() {
        let n = n.min(area.bottom().saturating_sub(y));
        if n == 0 {
            break;
        }
        let width = usize::from(area.width);
        let lines = wrap_spans(port_line(p, area.width, theme), width, usize::from(n));
        for (k, line) in lines.iter().enumerate() {
            let row = Rect::new(area.x, y + u16::try_from(k).unwrap_or(0), area.width, 1);
            put_spans(buf, row, line);
        }
        if selected == Some(i) {
            style_area(
                buf,
                Rect::new(area.x, y, area.width, n),
                theme.selected(true),
            );
        }
        y += n;
    }
}

/// `limits QP 1713/2048 84%  MR 12/16.8M <0.1%  CTX 3`: usage against the
/// limits, coloured by the thresholds.
pub(crate) fn limits_line<'a>(device: &Device, ctx: &Ctx, theme: &Theme) -> Vec<Span<'a>> {
    let mut spans = vec![Span::styled("limits ", theme.bold())];
    for t in ctx.filter.visible_types() {
        let Some(entry) = device.usage.get(t) else {
            continue;
        };
        let (text, style) = match (entry.max, entry.ratio()) {
            (Some(max), Some(ratio)) => (
                format!(
                    "{} {}/{} {}  ",
                    t.label(),
                    count(entry.current),
                    count(max),
                    percent(ratio)
                ),
                theme.level(ctx.config.thresholds.level(ratio)),
            ),
            _ => (
                format!("{} {}  ", t.label(), count(entry.current)),
                theme.plain(),
            ),
        };
        spans.push(Span::styled(text, style));
    }
    spans
}

/// The rdma cgroup quotas on this device, per cgroup with a limit, fullest
/// first: `quotas /kubepods/pod1: objects 120/500 24%, handles 3/10 30%`.
pub(crate) fn quotas_line<'a>(
    snapshot: &Snapshot,
    device: &str,
    ctx: &Ctx,
    theme: &Theme,
) -> Vec<Span<'a>> {
    let mut by_cgroup: BTreeMap<String, (Quota, Quota)> = BTreeMap::new();
    for owner in &snapshot.processes {
        let Some(q) = owner
            .rdma_cgroup
            .as_ref()
            .and_then(|c| c.devices.get(device))
        else {
            continue;
        };
        if q.hca_object.max.is_none() && q.hca_handle.max.is_none() {
            continue;
        }
        let key = format!("{} {}", q.hca_object.cgroup, q.hca_handle.cgroup);
        by_cgroup.insert(key, (q.hca_object.clone(), q.hca_handle.clone()));
    }
    let mut spans = vec![Span::styled("quotas ", theme.bold())];
    if by_cgroup.is_empty() {
        spans.push(Span::styled(
            "no rdma cgroup limit binds a consumer of this device",
            theme.dim(),
        ));
        return spans;
    }
    let mut quotas: Vec<_> = by_cgroup.into_values().collect();
    let fullness = |q: &(Quota, Quota)| q.0.ratio().unwrap_or(0.0).max(q.1.ratio().unwrap_or(0.0));
    quotas.sort_by(|a, b| fullness(b).total_cmp(&fullness(a)));
    for (objects, handles) in quotas {
        spans.push(Span::raw(format!("{}: ", objects.cgroup)));
        for (label, q) in [("objects", &objects), ("handles", &handles)] {
            let text = match (q.max, q.ratio()) {
                (Some(max), Some(r)) => format!("{label} {}/{} {}  ", q.current, max, percent(r)),
                _ => format!("{label} {}  ", q.current),
            };
            let style = q.ratio().map_or(theme.plain(), |r| {
                theme.level(ctx.config.thresholds.level(r))
            });
            spans.push(Span::styled(text, style));
        }
    }
    spans
}

/// The device's ERROR QPs, oldest first as the ERROR-QP screen sorts them.
pub(crate) fn draw_error_qps(
    buf: &mut Buffer,
    title: Rect,
    rows: Rect,
    errors: &[&ErrorQpInsight],
    theme: &Theme,
) {
    let shown = usize::from(rows.height).min(errors.len());
    let more = errors.len() - shown;
    let hint = if more > 0 {
        format!("  {more} more: e lists them")
    } else {
        "  e lists them all".to_string()
    };
    title_line(
        buf,
        title,
        Span::styled(format!("ERROR QPs here ({})", errors.len()), theme.alert()),
        &[Span::styled(hint, theme.dim())],
        theme.dim(),
    );
    for (i, e) in errors.iter().take(shown).enumerate() {
        let y = rows.y + u16::try_from(i).unwrap_or(0);
        let qp = &e.qp.qp;
        let port = qp.port.map(|p| format!(" port {p}")).unwrap_or_default();
        let pid = e.qp.pid().map(|p| format!(" pid {p}")).unwrap_or_default();
        let age = e
            .age
            .as_ref()
            .map(|a| format!("  for {}", age_text(a.ms, a.lower_bound)))
            .unwrap_or_default();
        let text = format!(
            "QP {} {}{port}  {}{pid}{age}",
            qp.lqpn,
            qp.state.name(),
            e.qp.owner_name
        );
        put_spans(
            buf,
            Rect::new(rows.x, y, rows.width, 1),
            &[Span::styled(text, theme.alert())],
        );
    }
}
