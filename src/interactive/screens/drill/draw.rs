//! The drill-down: one owner's objects, a tab per type, with totals.

use crate::interactive::layout::{DrillLayout, DrillLines, drill_layout_for, tab_spans};
use crate::interactive::screens::Ctx;
use crate::interactive::screens::drill::{DetailState, DrillScreen, tab_label};
use crate::interactive::widgets::fit::wrap_parts;
use crate::interactive::widgets::paint::{put, put_spans};
use crate::interactive::widgets::sparkline::{age_text, signed};
use crate::interactive::widgets::table::draw as table_draw;
use crate::interactive::widgets::theme::Theme;
use crate::model::Millis;
use crate::model::ResourceType;
use crate::model::consumers_qp_states::qp_state_summary;
use crate::model::history::span_text;
use crate::model::limits::process_shares;
use crate::units::{bytes, count, percent};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;

/// The drill-down's text lines, each a list of parts that wrap whole.
struct Texts<'a> {
    info: Vec<Vec<Span<'a>>>,
    limits: Vec<Vec<Span<'a>>>,
    trend: Vec<Vec<Span<'a>>>,
    totals: Vec<Vec<Span<'a>>>,
}

/// Most lines one text part may take.
const MAX_LINES: usize = 3;

fn texts<'a>(ctx: &Ctx, drill: &DrillScreen, theme: &Theme) -> Texts<'a> {
    Texts {
        info: info(drill, theme),
        limits: limits(ctx, drill, theme),
        trend: trend_line(ctx, drill, theme),
        totals: totals(ctx, drill, theme),
    }
}

fn lines_wanted(parts: &[Vec<Span<'_>>], width: usize) -> u16 {
    let n = wrap_parts(parts.to_vec(), width, MAX_LINES).len();
    u16::try_from(n.max(1)).unwrap_or(1)
}

/// Where everything of the drill-down goes: the text lines wrap onto the
/// rows the table can spare. Computed from the texts as they are drawn and
/// recorded on the screen (`DrillScreen::layout`), so scrolling and clicks
/// act on what was drawn.
fn layout_of(ctx: &Ctx, t: &Texts<'_>) -> DrillLayout {
    let width = usize::from(ctx.body.width);
    drill_layout_for(
        ctx.body,
        DrillLines {
            info: lines_wanted(&t.info, width),
            limits: lines_wanted(&t.limits, width),
            trend: lines_wanted(&t.trend, width),
            totals: lines_wanted(&t.totals, width),
        },
    )
}

/// Draws `parts` wrapped into `area`'s lines.
fn put_wrapped(buf: &mut Buffer, area: Rect, parts: Vec<Vec<Span<'_>>>) {
    if area.height == 0 {
        return;
    }
    let lines = wrap_parts(parts, usize::from(area.width), usize::from(area.height));
    for (i, line) in lines.iter().enumerate() {
        let y = area.y + u16::try_from(i).unwrap_or(0);
        put_spans(buf, Rect::new(area.x, y, area.width, 1), line);
    }
}

pub(crate) fn draw(frame: &mut Frame, ctx: &Ctx, drill: &DrillScreen, theme: &Theme) {
    let t = texts(ctx, drill, theme);
    let mut l = layout_of(ctx, &t);
    let buf = frame.buffer_mut();
    put_wrapped(buf, l.info, t.info);
    put_wrapped(buf, l.limits, t.limits);
    put_wrapped(buf, l.trend, t.trend);

    let counts = drill.consumer.as_ref().map(|c| c.counts);
    let labels: Vec<String> = drill
        .tabs
        .iter()
        .map(|t| tab_label(*t, counts.map(|c| c.get(*t))))
        .collect();
    for ((x, w), (label, t)) in tab_spans(&labels, l.tabs)
        .iter()
        .zip(labels.iter().zip(&drill.tabs))
    {
        let style = if *t == drill.tab {
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

    let empty = match drill.details {
        DetailState::Loaded => "none",
        DetailState::Loading => "loading objects…",
        DetailState::NotInFrozen => "frozen before these objects were collected: Space resumes",
        DetailState::NotRecorded => "not in the recording (only ERROR QPs are)",
    };
    // The QP tab gives its last row to the QP counters bound to this owner.
    if drill.tab == ResourceType::Qp && l.table.rows.height > 3 {
        l.table.rows.height -= 1;
        let table = l.table;
        let line = ratatui::layout::Rect::new(
            table.rows.x,
            table.rows.y + table.rows.height,
            table.rows.width,
            1,
        );
        // Cut after a whole word, as every line of the drill.
        let spans =
            crate::interactive::screens::drill::bound_counters::bound_line(ctx, drill, theme);
        let fitted = wrap_parts(vec![spans], usize::from(line.width), 1);
        put_spans(buf, line, fitted.first().map_or(&[][..], Vec::as_slice));
    }
    table_draw::draw(buf, &l.table, &drill.table, empty, theme);
    drill.drawn.set(Some((ctx.body, l)));
    if drill.details != DetailState::Loaded && !drill.table.rows.is_empty() {
        // ERROR QPs are always kept, so some rows show before the rest arrive.
        let note = format!(" {empty} ");
        let w = u16::try_from(note.chars().count()).unwrap_or(0);
        let x = l.table.title.right().saturating_sub(w);
        put(buf, x, l.table.title.y, &note, w, theme.dim());
    }
    put_wrapped(buf, l.totals, t.totals);
}

/// A part of a line, styled.
fn part<'a>(text: impl Into<String>, style: Style) -> Vec<Span<'a>> {
    vec![Span::styled(text.into(), style)]
}

/// Who: pid, name, user, container, devices, then the command line (the
/// one part cut at a word when it does not fit).
fn info<'a>(drill: &DrillScreen, theme: &Theme) -> Vec<Vec<Span<'a>>> {
    let Some(c) = &drill.consumer else {
        return vec![
            part(format!("{}", drill.owner), theme.bold()),
            part(
                "  holds no RDMA objects any more (Esc goes back)",
                theme.dim(),
            ),
        ];
    };
    let mut who = Vec::new();
    if let Some(pid) = c.pid() {
        who.push(Span::styled(format!("pid {pid} "), theme.title()));
    }
    who.push(Span::styled(c.name.clone(), theme.bold()));
    let mut parts = vec![who];
    if let Some(user) = c.user() {
        parts.push(part(format!("  user {user}"), theme.plain()));
    }
    if let Some(container) = c.container() {
        parts.push(part(format!("  container {container}"), theme.plain()));
    }
    if !c.devices.is_empty() {
        parts.push(part(
            format!("  on {}", c.devices.join(", ")),
            theme.plain(),
        ));
    }
    if let Some(p) = &c.process
        && !p.cmdline.is_empty()
    {
        parts.push(part(format!("  {}", p.cmdline.join(" ")), theme.dim()));
    }
    parts
}

/// `quota /pod1 mlx5_0 hca_object 1990/2000 (99%) · share of used (of max) QP 33% (28%)  MR 12%`:
/// the owner's tightest cgroup quota first, then how much of its devices
/// it holds, one part per type.
fn limits<'a>(ctx: &Ctx, drill: &DrillScreen, theme: &Theme) -> Vec<Vec<Span<'a>>> {
    let (Some(c), Some(snapshot)) = (&drill.consumer, ctx.snapshot) else {
        return Vec::new();
    };
    let thresholds = &ctx.config.thresholds;
    let mut parts = Vec::new();
    if let Some((device, resource, quota)) = c
        .process
        .as_ref()
        .and_then(|p| p.rdma_cgroup.as_ref())
        .and_then(|g| g.fullest())
        && let (Some(max), Some(ratio)) = (quota.max, quota.ratio())
    {
        parts.push(vec![
            Span::styled("quota ", theme.bold()),
            Span::styled(
                format!(
                    "{} {device} {resource} {}/{} ({})",
                    quota.cgroup,
                    count(quota.current),
                    count(max),
                    percent(ratio)
                ),
                theme.level(thresholds.level(ratio)),
            ),
            Span::raw(" · "),
        ]);
    }
    parts.push(part("share of used (of max)", theme.bold()));
    let mut any = false;
    for (t, share) in process_shares(snapshot, &c.owner, ctx.filter) {
        if !drill.tabs.contains(&t) || c.counts.get(t) == 0 {
            continue;
        }
        let Some(of_current) = share.of_current else {
            continue;
        };
        let sep = if any { "  " } else { " " };
        let mut text = format!("{sep}{} {}", t.label(), percent(of_current));
        let style = match share.of_max {
            Some(of_max) => {
                text.push_str(&format!(" ({})", percent(of_max)));
                theme.level(thresholds.level(of_max))
            }
            None => theme.plain(),
        };
        parts.push(part(text, style));
        any = true;
    }
    if !any {
        parts.push(part(" unknown", theme.dim()));
    }
    parts
}

/// "trend over 5 min: QP +30/min MR +90/min  ⚠ leak suspect: +90 MRs in 1 min, never decreased".
fn trend_line<'a>(ctx: &Ctx, drill: &DrillScreen, theme: &Theme) -> Vec<Vec<Span<'a>>> {
    let Some(trend) = ctx.insights.owner(&drill.owner) else {
        return vec![part("trend: no history yet", theme.dim())];
    };
    let span = trend
        .types
        .values()
        .map(|t| t.span_ms)
        .max()
        .unwrap_or_default();
    let needed = ctx.insights.min_span_ms;
    if span == Millis::ZERO {
        return vec![
            part("trend: one snapshot so far", theme.dim()),
            part(
                format!(" (a leak verdict needs {} of history)", span_text(needed)),
                theme.dim(),
            ),
        ];
    }
    let mut parts = vec![part(
        format!("trend over {}:", span_text(span)),
        theme.bold(),
    )];
    // A rate extrapolated from a few seconds says little: until the history
    // is long enough for a verdict, the net change is shown instead.
    let short = span < needed;
    let moving: Vec<String> = trend
        .types
        .iter()
        .filter(|(t, _)| drill.tabs.contains(t))
        .filter_map(|(t, tt)| match short {
            true if tt.growth != 0 => Some(format!(" {} {}", t.label(), signed(tt.growth))),
            false if tt.rate_per_min != 0.0 => {
                Some(format!(" {} {}/min", t.label(), rate(tt.rate_per_min)))
            }
            _ => None,
        })
        .collect();
    if moving.is_empty() {
        parts.push(part(" steady", theme.plain()));
    }
    parts.extend(moving.into_iter().map(|m| part(m, theme.plain())));
    let reasons: Vec<&str> = trend
        .suspects()
        .filter_map(|(_, t)| t.explanation.as_deref())
        .collect();
    for (i, reason) in reasons.iter().enumerate() {
        let text = if i == 0 {
            format!("  ⚠ leak suspect: {reason}")
        } else {
            format!("; {reason}")
        };
        parts.push(part(text, theme.alert()));
    }
    if reasons.is_empty() && short {
        parts.push(part(
            format!("  (a leak verdict needs {} of history)", span_text(needed)),
            theme.dim(),
        ));
    }
    parts
}

/// `+30`, `-2.5`, `+0.3`: whole numbers from 10 up.
fn rate(per_min: f64) -> String {
    if per_min.abs() >= 10.0 {
        format!("{per_min:+.0}")
    } else {
        format!("{per_min:+.1}")
    }
}

/// `total QP 1343 (all INIT: never connected)  CQ 2  MR 652 (2.5 GiB)`:
/// one part per type, the QPs with every state they are in.
fn totals<'a>(ctx: &Ctx, drill: &DrillScreen, theme: &Theme) -> Vec<Vec<Span<'a>>> {
    let Some(c) = &drill.consumer else {
        return Vec::new();
    };
    let mut parts = vec![part("total", theme.bold())];
    for (i, t) in drill.tabs.iter().enumerate() {
        let n = c.counts.get(*t);
        let sep = if i == 0 { " " } else { "  " };
        let mut spans = vec![Span::raw(format!("{sep}{} {n}", t.label()))];
        if *t == ResourceType::Qp
            && let Some(states) = qp_state_summary(&c.qp_states)
        {
            let style = if c.error_qps() > 0 {
                theme.alert()
            } else {
                theme.dim()
            };
            // How long the oldest has been there: a pile of INIT QPs an
            // hour old is a leak, a second old a job starting.
            let oldest = drill
                .ages
                .oldest(*t, drill.at)
                .map(|a| format!(", oldest {}", age_text(a.ms, a.lower_bound)))
                .unwrap_or_default();
            spans.push(Span::styled(format!(" ({states}{oldest})"), style));
        }
        if *t == ResourceType::Mr && c.mr_bytes > 0 {
            spans.push(Span::raw(format!(" ({})", bytes(c.mr_bytes))));
        }
        parts.push(spans);
    }
    parts.push(part(
        format!("  ({})", ctx.filter.scope_label()),
        theme.dim(),
    ));
    let listed = drill.listed.get(drill.tab);
    let total = c.counts.get(drill.tab);
    if listed != total {
        parts.push(part(
            format!("  listed {listed} of {total} {}", drill.tab.label()),
            theme.dim(),
        ));
    }
    parts
}
