//! The drill-down: one owner's objects, a tab per type, with totals.

use super::object_table;
use super::paint::{put, put_spans};
use super::sparkline::signed;
use super::theme::Theme;
use crate::app::Ctx;
use crate::app::drill::{DetailState, DrillView, tab_label};
use crate::app::layout::{drill_layout, tab_spans};
use crate::model::history::span_text;
use crate::model::limits::process_shares;
use crate::model::{Millis, QpState, ResourceType};
use crate::units::{bytes, count, percent};
use ratatui::Frame;
use ratatui::text::Span;

pub fn draw(frame: &mut Frame, ctx: &Ctx, view: &DrillView, theme: &Theme) {
    let l = drill_layout(ctx.body);
    let buf = frame.buffer_mut();
    put_spans(buf, l.info, &info(view, theme));
    if l.limits.height > 0 {
        put_spans(buf, l.limits, &limits(ctx, view, theme));
    }
    put_spans(buf, l.trend, &trend_line(ctx, view, theme));

    let counts = view.consumer.as_ref().map(|c| c.counts);
    let labels: Vec<String> = view
        .tabs
        .iter()
        .map(|t| tab_label(*t, counts.map(|c| c.get(*t))))
        .collect();
    for ((x, w), (label, t)) in tab_spans(&labels, l.tabs)
        .iter()
        .zip(labels.iter().zip(&view.tabs))
    {
        let style = if *t == view.tab {
            theme.selected(true).patch(theme.bold())
        } else {
            theme.plain()
        };
        put(
            buf,
            *x,
            l.tabs.y,
            label,
            (*w).min(l.tabs.right().saturating_sub(*x)),
            style,
        );
    }

    let empty = match view.details {
        DetailState::Loaded => "none",
        DetailState::Loading => "loading objects…",
        DetailState::NotInFrozen => "frozen before these objects were collected: Space resumes",
        DetailState::NotRecorded => "not in the recording (only ERROR QPs are)",
    };
    object_table::draw(buf, &l.table, &view.table, empty, theme);
    if view.details != DetailState::Loaded && !view.table.rows.is_empty() {
        // ERROR QPs are always kept, so some rows show before the rest arrive.
        let note = format!(" {empty} ");
        let w = u16::try_from(note.chars().count()).unwrap_or(0);
        let x = l.table.title.right().saturating_sub(w);
        put(buf, x, l.table.title.y, &note, w, theme.dim());
    }
    put_spans(buf, l.totals, &totals(ctx, view, theme));
}

fn info<'a>(view: &DrillView, theme: &Theme) -> Vec<Span<'a>> {
    let mut spans = Vec::new();
    let Some(c) = &view.consumer else {
        spans.push(Span::styled(format!("{}", view.owner), theme.bold()));
        spans.push(Span::styled(
            "  holds no RDMA objects any more (Esc goes back)",
            theme.dim(),
        ));
        return spans;
    };
    if let Some(pid) = c.pid() {
        spans.push(Span::styled(format!("pid {pid} "), theme.title()));
    }
    spans.push(Span::styled(c.name.clone(), theme.bold()));
    if let Some(user) = c.user() {
        spans.push(Span::raw(format!("  user {user}")));
    }
    if let Some(container) = c.container() {
        spans.push(Span::raw(format!("  container {container}")));
    }
    if !c.devices.is_empty() {
        spans.push(Span::raw(format!("  on {}", c.devices.join(", "))));
    }
    if let Some(p) = &c.process
        && !p.cmdline.is_empty()
    {
        spans.push(Span::styled(
            format!("  {}", p.cmdline.join(" ")),
            theme.dim(),
        ));
    }
    spans
}

/// `quota /pod1 mlx5_0 hca_object 1990/2000 (99%) · share of used (of max) QP 33% (28%)  MR 12%`:
/// the owner's tightest cgroup quota (first: it is cut last on narrow
/// screens), then how much of its devices it holds.
fn limits<'a>(ctx: &Ctx, view: &DrillView, theme: &Theme) -> Vec<Span<'a>> {
    let (Some(c), Some(snapshot)) = (&view.consumer, ctx.snapshot) else {
        return Vec::new();
    };
    let thresholds = &ctx.config.thresholds;
    let mut spans = Vec::new();
    if let Some((device, resource, quota)) = c
        .process
        .as_ref()
        .and_then(|p| p.rdma_cgroup.as_ref())
        .and_then(|g| g.fullest())
        && let (Some(max), Some(ratio)) = (quota.max, quota.ratio())
    {
        spans.push(Span::styled("quota ", theme.bold()));
        spans.push(Span::styled(
            format!(
                "{} {device} {resource} {}/{} ({})",
                quota.cgroup,
                count(quota.current),
                count(max),
                percent(ratio)
            ),
            theme.level(thresholds.level(ratio)),
        ));
        spans.push(Span::raw(" · "));
    }
    spans.push(Span::styled("share of used (of max) ", theme.bold()));
    let mut any = false;
    for (t, share) in process_shares(snapshot, &c.owner, ctx.filter) {
        if !view.tabs.contains(&t) || c.counts.get(t) == 0 {
            continue;
        }
        let Some(of_current) = share.of_current else {
            continue;
        };
        let mut text = format!("{} {}", t.label(), percent(of_current));
        let style = match share.of_max {
            Some(of_max) => {
                text.push_str(&format!(" ({})", percent(of_max)));
                theme.level(thresholds.level(of_max))
            }
            None => theme.plain(),
        };
        if any {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::styled(text, style));
        any = true;
    }
    if !any {
        spans.push(Span::styled("unknown", theme.dim()));
    }
    spans
}

/// "trend over 5 min: QP +30/min MR +90/min  ⚠ leak suspect: +90 MRs in 1 min, never decreased".
fn trend_line<'a>(ctx: &Ctx, view: &DrillView, theme: &Theme) -> Vec<Span<'a>> {
    let Some(trend) = ctx.insights.owner(&view.owner) else {
        return vec![Span::styled("trend: no history yet", theme.dim())];
    };
    let span = trend
        .types
        .values()
        .map(|t| t.span_ms)
        .max()
        .unwrap_or_default();
    let needed = ctx.insights.min_span_ms;
    if span == Millis::ZERO {
        return vec![Span::styled(
            format!(
                "trend: one snapshot so far (a leak verdict needs {} of history)",
                span_text(needed)
            ),
            theme.dim(),
        )];
    }
    let mut spans = vec![Span::styled(
        format!("trend over {}:", span_text(span)),
        theme.bold(),
    )];
    // A rate extrapolated from a few seconds says little: until the history
    // is long enough for a verdict, the net change is shown instead.
    let short = span < needed;
    let moving: Vec<String> = trend
        .types
        .iter()
        .filter(|(t, _)| view.tabs.contains(t))
        .filter_map(|(t, tt)| match short {
            true if tt.growth != 0 => Some(format!(" {} {}", t.label(), signed(tt.growth))),
            false if tt.rate_per_min != 0.0 => {
                Some(format!(" {} {}/min", t.label(), rate(tt.rate_per_min)))
            }
            _ => None,
        })
        .collect();
    if moving.is_empty() {
        spans.push(Span::raw(" steady"));
    } else {
        spans.push(Span::raw(moving.concat()));
    }
    let reasons: Vec<&str> = trend
        .suspects()
        .filter_map(|(_, t)| t.explanation.as_deref())
        .collect();
    if !reasons.is_empty() {
        spans.push(Span::styled(
            format!("  ⚠ leak suspect: {}", reasons.join("; ")),
            theme.alert(),
        ));
    } else if short {
        spans.push(Span::styled(
            format!("  (a leak verdict needs {} of history)", span_text(needed)),
            theme.dim(),
        ));
    }
    spans
}

/// `+30`, `-2.5`, `+0.3`: whole numbers from 10 up.
fn rate(per_min: f64) -> String {
    if per_min.abs() >= 10.0 {
        format!("{per_min:+.0}")
    } else {
        format!("{per_min:+.1}")
    }
}

fn totals<'a>(_ctx: &Ctx, view: &DrillView, theme: &Theme) -> Vec<Span<'a>> {
    let Some(c) = &view.consumer else {
        return Vec::new();
    };
    let mut spans = vec![Span::styled("total ", theme.bold())];
    for t in &view.tabs {
        let n = c.counts.get(*t);
        spans.push(Span::raw(format!("{} {n}", t.label())));
        if *t == ResourceType::Qp {
            let errors = c.error_qps();
            if errors > 0 {
                spans.push(Span::styled(format!(" ({errors} in error)"), theme.alert()));
            }
            let rts = c.qp_states.get(QpState::Rts);
            if rts > 0 && rts != n {
                spans.push(Span::styled(format!(" ({rts} RTS)"), theme.dim()));
            }
        }
        if *t == ResourceType::Mr && c.mr_bytes > 0 {
            spans.push(Span::raw(format!(" ({})", bytes(c.mr_bytes))));
        }
        spans.push(Span::raw("  "));
    }
    let listed = view.listed.get(view.tab);
    let total = c.counts.get(view.tab);
    if listed != total {
        spans.push(Span::styled(
            format!("listed {listed} of {total} {}", view.tab.label()),
            theme.dim(),
        ));
    }
    spans
}
