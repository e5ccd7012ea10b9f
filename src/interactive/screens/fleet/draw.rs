//! Draws the fleet view: the header (where the fleet is read from, how fresh, the refresh's
//! error or notes on one line), the body (the hosts table, the cluster lists or a host's
//! detail), the footer (the filter being typed, or the fleet's keys from the key table) and the
//! boxes (help, full text), with the single-host view's widgets, theme and layout.

use super::{FleetConfig, FleetView, Focus, Overlay};
use crate::fleet::model::RowStatus;
use crate::interactive::keys::fleet::{self as keys, fleet_help_rows};
use crate::interactive::keys::{Command, footer_hints, table};
use crate::interactive::layout::{MIN_HEIGHT, MIN_WIDTH, TableArea, frame_layout, too_small};
use crate::interactive::screens::fleet_cluster::{ClusterList, draw as cluster_draw};
use crate::interactive::screens::fleet_host::draw as host_draw;
use crate::interactive::widgets::fit::{Part, fit_parts};
use crate::interactive::widgets::modal::draw_box;
use crate::interactive::widgets::paint::put_spans;
use crate::interactive::widgets::theme::Theme;
use crate::units::{clean, duration};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Paragraph, Wrap};

pub(crate) fn theme_of(config: &FleetConfig) -> Theme {
    Theme::of(config.color, config.theme)
}

/// Draws the whole screen for `view`, in ASCII only under a locale that is not UTF-8.
pub fn draw(frame: &mut Frame, view: &FleetView) {
    draw_screen(frame, view);
    if view.config.ascii {
        crate::interactive::widgets::charset::to_ascii(frame.buffer_mut());
    }
}

fn draw_screen(frame: &mut Frame, view: &FleetView) {
    let area = frame.area();
    let theme = theme_of(&view.config);
    if too_small(area) {
        let text = format!(
            "terminal too small: {}x{} (restop needs {MIN_WIDTH}x{MIN_HEIGHT}; q quits)",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let l = frame_layout(area);
    header(frame, l.header, view, &theme);
    let has_reading = view.state.reading.is_some();
    let buf = frame.buffer_mut();
    match (&view.host, view.focus) {
        (Some(screen), _) => host_draw::draw(buf, l.body, screen, view.now_ms, &theme),
        (None, Focus::Hosts) => super::hosts::draw(
            buf,
            &TableArea::new(l.body),
            &view.hosts,
            &view.trails,
            has_reading,
            true,
            &theme,
        ),
        (None, Focus::Cluster(list)) => {
            cluster_draw::draw(buf, l.body, &view.cluster, Some(list), has_reading, &theme)
        }
    }
    footer(frame, l.footer, view, &theme);
    if let Some(overlay) = &view.overlay {
        let above_footer = Rect {
            height: l.footer.y.saturating_sub(area.y),
            ..area
        };
        draw_overlay(frame, above_footer, overlay, &theme);
    }
}

/// Costs of the header's first-line parts, cheapest first.
mod cost {
    pub(super) const TOOK: u8 = 10;
    pub(super) const INTERVAL: u8 = 20;
    pub(super) const COUNTS: u8 = 40;
    pub(super) const AGE: u8 = 80;
}

fn header(frame: &mut Frame, area: Rect, view: &FleetView, theme: &Theme) {
    let buf = frame.buffer_mut();
    let width = usize::from(area.width);
    let mut parts = vec![
        Part::new(vec![Span::styled("restop fleet ", theme.title())]),
        Part::new(vec![Span::styled(
            format!("{} ", clean(&view.config.source)),
            theme.bold(),
        )]),
    ];
    if view.state.is_stale() {
        parts.push(Part::new(vec![
            Span::styled(" STALE ", theme.frozen_badge().patch(theme.alert())),
            Span::raw(" "),
        ]));
    }
    let rows = &view.hosts.rows;
    if view.state.reading.is_some() {
        let bad = rows.iter().filter(|r| !r.status.is_current()).count();
        let troubled = rows
            .iter()
            .filter(|r| matches!(r.status, RowStatus::Critical | RowStatus::Warning))
            .count();
        let mut spans = vec![Span::raw(format!("{} hosts ", rows.len()))];
        if bad > 0 {
            spans.push(Span::styled(format!("{bad} down/stale "), theme.alert()));
        }
        if troubled > 0 {
            spans.push(Span::styled(
                format!("{troubled} troubled "),
                theme.warning(),
            ));
        }
        parts.push(Part::new(spans).drop_at(cost::COUNTS));
    }
    match view.refreshed {
        Some(r) => {
            let age = view.now_ms.0.saturating_sub(r.at.0) / 1000;
            parts.push(
                Part::new(vec![Span::raw(format!("refreshed {age}s ago "))]).drop_at(cost::AGE),
            );
            parts.push(
                Part::new(vec![Span::styled(
                    format!("(took {:.2}s) ", r.took.0 as f64 / 1000.0),
                    theme.dim(),
                )])
                .drop_at(cost::TOOK),
            );
        }
        None => parts.push(Part::new(vec![Span::styled("reading… ", theme.dim())])),
    }
    parts.push(
        Part::new(vec![Span::styled(
            format!("every {}", duration(view.interval)),
            theme.dim(),
        )])
        .drop_at(cost::INTERVAL),
    );
    let line1 = Rect::new(area.x, area.y, area.width, area.height.min(1));
    put_spans(buf, line1, &fit_parts(parts, width));
    if area.height < 2 {
        return;
    }
    let line2 = Rect::new(area.x, area.y + 1, area.width, 1);
    let notes = view
        .state
        .reading
        .as_ref()
        .map_or(0, |reading| reading.notes.len());
    let spans = match (&view.state.error, view.state.reading.as_ref()) {
        (Some(error), Some(_)) => {
            let since = view.state.stale_since.map_or(String::new(), |s| {
                format!(" since {}s", view.now_ms.0.saturating_sub(s.0) / 1000)
            });
            vec![Span::styled(
                format!(
                    "⚠ refresh failed{since}: {} — last good data shown",
                    clean(error)
                ),
                theme.alert(),
            )]
        }
        (Some(error), None) => vec![Span::styled(format!("⚠ {}", clean(error)), theme.alert())],
        (None, Some(reading)) if notes > 0 => {
            let first = reading.notes.first().map_or(String::new(), |n| clean(n));
            let more = if notes > 1 {
                format!(" (+{} more, w)", notes - 1)
            } else {
                String::new()
            };
            vec![Span::styled(format!("note: {first}{more}"), theme.dim())]
        }
        _ => vec![Span::styled("no error", theme.dim())],
    };
    put_spans(buf, line2, &spans);
}

fn footer(frame: &mut Frame, area: Rect, view: &FleetView, theme: &Theme) {
    let buf = frame.buffer_mut();
    if let Some((text, _)) = &view.filter_edit {
        let spans = [
            Span::styled("filter: ", theme.bold()),
            Span::raw(text.clone()),
            Span::styled("█", theme.plain()),
            Span::styled(
                "  host, pod, namespace, device  Enter keeps  Esc cancels",
                theme.dim(),
            ),
        ];
        put_spans(buf, area, &spans);
        return;
    }
    if let Some(status) = &view.status {
        put_spans(buf, area, &[Span::styled(status.clone(), theme.bold())]);
        return;
    }
    let mut parts = Vec::new();
    if !view.filter_text.is_empty() {
        parts.push(Part::new(vec![Span::styled(
            format!("filter \"{}\" ", clean(&view.filter_text)),
            theme.title(),
        )]));
    }
    for (i, hint) in footer_hints(&commands(view)).into_iter().enumerate() {
        let cost = u8::try_from(200usize.saturating_sub(i * 8))
            .unwrap_or(0)
            .max(1);
        let spans = vec![Span::styled(hint.key, theme.bold()), Span::raw(hint.word)];
        parts.push(Part::new(spans).drop_at(cost));
    }
    put_spans(buf, area, &fit_parts(parts, usize::from(area.width)));
}

/// The rows of the fleet's key table the footer names where the view is.
fn commands(view: &FleetView) -> Vec<&'static Command> {
    if view.overlay.is_some() {
        return vec![&table::BOX_SCROLL, &table::BOX_CLOSE];
    }
    let mut out: Vec<&'static Command> = vec![&table::QUIT, &table::HELP];
    if view.host.is_some() {
        out.extend([&keys::BACK, &keys::FULL_TEXT]);
        return out;
    }
    if !view.filter_text.is_empty() {
        out.push(&keys::BACK);
    }
    out.extend([&keys::OPEN_HOST, &keys::NEXT_LIST, &keys::FILTER]);
    match view.focus {
        Focus::Cluster(ClusterList::Consumers) => out.extend([&keys::KIND, &keys::METRIC]),
        _ => out.extend([&keys::SORT_NEXT, &table::REVERSE]),
    }
    out.extend([
        &keys::ERRORS,
        &keys::LEAKS,
        &keys::INTERVAL,
        &keys::FULL_TEXT,
    ]);
    out
}

fn draw_overlay(frame: &mut Frame, area: Rect, overlay: &Overlay, theme: &Theme) {
    let (title, lines, scroll): (&str, Vec<Vec<Span>>, usize) = match overlay {
        Overlay::Help { scroll } => (
            " restop fleet: keys ",
            fleet_help_rows()
                .map(|(keys, what)| {
                    vec![
                        Span::styled(format!("{keys:<15} "), theme.bold()),
                        Span::raw(what),
                    ]
                })
                .collect(),
            *scroll,
        ),
        Overlay::Message {
            title,
            lines,
            scroll,
        } => (
            title.as_str(),
            lines.iter().map(|l| vec![Span::raw(l.clone())]).collect(),
            *scroll,
        ),
    };
    let width = lines
        .iter()
        .map(|l| l.iter().map(|s| s.content.chars().count()).sum::<usize>())
        .max()
        .unwrap_or(20)
        .clamp(20, 100) as u16
        + 4;
    let height = (lines.len() as u16).saturating_add(2);
    let inner = draw_box(frame, area, (width, height), title, theme);
    let buf = frame.buffer_mut();
    let scroll = scroll.min(lines.len().saturating_sub(usize::from(inner.height)));
    for (i, spans) in lines
        .iter()
        .skip(scroll)
        .take(usize::from(inner.height))
        .enumerate()
    {
        let row = Rect::new(
            inner.x + 1,
            inner.y + i as u16,
            inner.width.saturating_sub(1),
            1,
        );
        put_spans(buf, row, spans);
    }
}
