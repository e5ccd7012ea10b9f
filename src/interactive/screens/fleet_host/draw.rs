//! Draws a host's detail as lines under section titles: its status and reasons, then each
//! reading (Prometheus', and the exporter's own when it was reached) as devices with usage
//! gauges, ports, problems by severity and consumers. The lines are one function of the state
//! ([`lines`]), so scrolling and drawing count the same lines.

use super::HostScreen;
use crate::fleet::model::cells::{consumer_name, value_text};
use crate::fleet::model::{FleetReading, HostReport, RowStatus, Severity};
use crate::interactive::widgets::gauge::bar;
use crate::interactive::widgets::paint::{put_spans, title_line};
use crate::interactive::widgets::theme::Theme;
use crate::model::UnixMs;
use crate::model::limits::Level;
use crate::model::limits::Thresholds;
use crate::units::clean;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

/// One line of the page: a section title (drawn as a rule) or text.
pub(crate) enum PageLine {
    Title(String),
    Text(Vec<Span<'static>>),
}

/// Every line of the page.
pub(crate) fn lines(screen: &HostScreen, now: UnixMs, theme: &Theme) -> Vec<PageLine> {
    let mut out = Vec::new();
    if let Some(row) = &screen.row {
        let style = status_style(row.status, theme);
        let mut spans = vec![
            Span::styled(format!(" {} ", row.status.label()), style),
            Span::raw(" "),
        ];
        if row.why.is_empty() {
            spans.push(Span::styled("nothing to look at", theme.dim()));
        } else {
            spans.push(Span::raw(clean(&row.why.join("; "))));
        }
        out.push(PageLine::Text(spans));
        let exporters = if row.exporters.is_empty() {
            "-".to_string()
        } else {
            clean(&row.exporters.join(", "))
        };
        out.push(PageLine::Text(vec![Span::styled(
            format!(" exporter {exporters}"),
            theme.dim(),
        )]));
    }
    let age = screen
        .read_at
        .map(|at| format!(" (read {}s ago)", now.0.saturating_sub(at.0) / 1000))
        .unwrap_or_default();
    out.push(PageLine::Title(format!("From Prometheus{age}")));
    match &screen.detail {
        None => out.push(PageLine::Text(vec![Span::styled(" reading…", theme.dim())])),
        Some(Err(e)) => out.push(error_line(e, theme)),
        Some(Ok(reading)) => reading_lines(reading, &screen.target.host, &mut out, theme),
    }
    match (&screen.target.instance, &screen.live) {
        (None, _) => {
            out.push(PageLine::Title("Live from the exporter".into()));
            out.push(PageLine::Text(vec![Span::styled(
                " no exporter address for this host (its instance is not host:port)",
                theme.dim(),
            )]));
        }
        (Some(instance), live) => {
            out.push(PageLine::Title(format!(
                "Live from the exporter {}",
                clean(instance)
            )));
            match live {
                None => out.push(PageLine::Text(vec![Span::styled(" reading…", theme.dim())])),
                Some(Err(e)) => {
                    out.push(error_line(&format!("not reachable from here: {e}"), theme))
                }
                Some(Ok(reading)) => {
                    // The direct scraper names the host by its address.
                    reading_lines(reading, instance, &mut out, theme);
                }
            }
        }
    }
    out
}

fn error_line(text: &str, theme: &Theme) -> PageLine {
    PageLine::Text(vec![Span::styled(
        format!(" {}", clean(text)),
        theme.alert(),
    )])
}

fn status_style(status: RowStatus, theme: &Theme) -> ratatui::style::Style {
    match status {
        RowStatus::Ok => theme.level(Level::Normal),
        RowStatus::Warning => theme.level(Level::Warn),
        RowStatus::Critical => theme.level(Level::Critical),
        _ => theme.alert(),
    }
}

/// The sections of one reading of `host`.
fn reading_lines(reading: &FleetReading, host: &str, out: &mut Vec<PageLine>, theme: &Theme) {
    let report = reading
        .host(host)
        .or_else(|| (reading.hosts.len() == 1).then(|| &reading.hosts[0]));
    let Some(h) = report else {
        out.push(PageLine::Text(vec![Span::styled(
            " this host is not in the answer",
            theme.dim(),
        )]));
        return;
    };
    usage_lines(h, out, theme);
    port_lines(h, out, theme);
    problem_lines(h, reading, out, theme);
    consumer_lines(h, reading, out, theme);
}

fn usage_lines(h: &HostReport, out: &mut Vec<PageLine>, theme: &Theme) {
    let devices = h.devices.map_or("-".into(), |d| d.to_string());
    out.push(PageLine::Text(vec![Span::styled(
        format!(" Devices ({devices}) — usage against each known limit"),
        theme.bold(),
    )]));
    let mut usage = h.usage.clone();
    if usage.is_empty() {
        usage.extend(h.worst_usage.clone());
    }
    usage.sort_by(|a, b| b.ratio.total_cmp(&a.ratio));
    if usage.is_empty() {
        out.push(PageLine::Text(vec![Span::styled(
            "   no limit known",
            theme.dim(),
        )]));
    }
    let thresholds = Thresholds::default();
    // The fullest first; a long tail of near-empty types says little.
    let more = usage.len().saturating_sub(USAGE_LINES);
    for u in usage.into_iter().take(USAGE_LINES) {
        let level = if u.ratio >= thresholds.critical {
            Level::Critical
        } else if u.ratio >= thresholds.warn {
            Level::Warn
        } else {
            Level::Normal
        };
        let (filled, track) = bar(u.ratio, 20);
        out.push(PageLine::Text(vec![
            Span::raw(format!(
                "   {:<12} {:<6} ",
                clean(&u.device),
                u.rtype.name()
            )),
            Span::styled(filled, theme.level(level)),
            Span::styled(track, theme.gauge_track()),
            Span::styled(format!(" {:>4.0}%", u.ratio * 100.0), theme.level(level)),
        ]));
    }
    if more > 0 {
        out.push(PageLine::Text(vec![Span::styled(
            format!("   and {more} less used"),
            theme.dim(),
        )]));
    }
}

/// Usage lines shown per reading.
const USAGE_LINES: usize = 10;

fn port_lines(h: &HostReport, out: &mut Vec<PageLine>, theme: &Theme) {
    if h.ports.is_empty() {
        return;
    }
    let mut spans = vec![Span::styled(" Ports ", theme.bold())];
    for p in &h.ports {
        let (state, style) = if p.active {
            ("ACTIVE", theme.port(Some(crate::model::PortState::Active)))
        } else {
            ("DOWN", theme.port(None))
        };
        spans.push(Span::raw(format!(
            " {}/{} ",
            clean(&p.device),
            clean(&p.port)
        )));
        spans.push(Span::styled(state, style));
    }
    out.push(PageLine::Text(spans));
}

fn problem_lines(h: &HostReport, reading: &FleetReading, out: &mut Vec<PageLine>, theme: &Theme) {
    out.push(PageLine::Text(vec![Span::styled(
        " Problems",
        theme.bold(),
    )]));
    let before = out.len();
    let mut nic = h.nic.clone();
    nic.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.device.cmp(&b.device)));
    for p in &nic {
        let (label, style) = match p.severity {
            Severity::Critical => ("CRIT", theme.level(Level::Critical)),
            Severity::Warning => ("WARN", theme.level(Level::Warn)),
            Severity::Notice => ("note", theme.dim()),
        };
        let rate = p.rate.map_or(String::new(), |r| format!(" {r:.1}/s"));
        out.push(PageLine::Text(vec![
            Span::styled(format!("   {label:<5}"), style),
            Span::raw(format!(
                "{} port {}: {}{rate}",
                clean(&p.device),
                clean(&p.port),
                clean(&p.what)
            )),
        ]));
    }
    for e in &h.error_qp_devices {
        let age = e
            .oldest_age_seconds
            .map_or(String::new(), |a| format!(", oldest {a:.0}s"));
        out.push(PageLine::Text(vec![
            Span::styled("   CRIT ", theme.level(Level::Critical)),
            Span::raw(format!(
                "{} QPs in ERR on {}{age}",
                e.count,
                clean(&e.device)
            )),
        ]));
    }
    for s in reading.suspects.iter().filter(|s| s.host == h.host) {
        out.push(PageLine::Text(vec![
            Span::styled("   WARN ", theme.level(Level::Warn)),
            Span::raw(format!(
                "leak suspect: {} ({}) {}",
                clean(&s.name),
                clean(&s.pid),
                clean(&s.rtype)
            )),
        ]));
    }
    if out.len() == before {
        out.push(PageLine::Text(vec![Span::styled("   none", theme.dim())]));
    }
}

fn consumer_lines(h: &HostReport, reading: &FleetReading, out: &mut Vec<PageLine>, theme: &Theme) {
    out.push(PageLine::Text(vec![Span::styled(
        " Consumers (QPs, MR bytes)",
        theme.bold(),
    )]));
    let mut owners: Vec<_> = reading
        .processes
        .iter()
        .filter(|c| c.host == h.host || reading.hosts.len() == 1)
        .filter(|c| {
            matches!(
                c.metric,
                crate::fleet::model::Metric::Objects(crate::model::ResourceType::Qp)
                    | crate::fleet::model::Metric::MrBytes
            )
        })
        .collect();
    owners.sort_by(|a, b| {
        a.metric
            .cmp(&b.metric)
            .then(b.value.total_cmp(&a.value))
            .then(a.name.cmp(&b.name))
    });
    if owners.is_empty() {
        out.push(PageLine::Text(vec![Span::styled(
            "   none listed",
            theme.dim(),
        )]));
    }
    for c in owners.into_iter().take(20) {
        let place = if c.pod.is_empty() {
            String::new()
        } else {
            format!("  {}/{}", clean(&c.namespace), clean(&c.pod))
        };
        out.push(PageLine::Text(vec![
            Span::raw(format!(
                "   {:>10} {:<8} ",
                value_text(c.metric, c.value),
                c.metric.name()
            )),
            Span::raw(consumer_name(c)),
            Span::styled(place, theme.dim()),
        ]));
    }
}

/// Draws the page in `body`, from line `screen.scroll`.
pub(crate) fn draw(buf: &mut Buffer, body: Rect, screen: &HostScreen, now: UnixMs, theme: &Theme) {
    if body.height == 0 {
        return;
    }
    let title = Rect::new(body.x, body.y, body.width, 1);
    title_line(
        buf,
        title,
        Span::styled(
            format!("Host {}", clean(&screen.target.host)),
            theme.title(),
        ),
        &[Span::styled("  Esc: back  ↑↓: scroll", theme.dim())],
        theme.dim(),
    );
    let page = lines(screen, now, theme);
    let rows = body.height.saturating_sub(1);
    for (i, line) in page
        .iter()
        .skip(screen.scroll)
        .take(usize::from(rows))
        .enumerate()
    {
        let y = body.y + 1 + i as u16;
        let area = Rect::new(body.x, y, body.width, 1);
        match line {
            PageLine::Title(t) => title_line(
                buf,
                area,
                Span::styled(t.clone(), theme.title()),
                &[],
                theme.dim(),
            ),
            PageLine::Text(spans) => put_spans(buf, area, spans),
        }
    }
}
