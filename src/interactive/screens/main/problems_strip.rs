//! The problems strip at the top of the main screen: what is wrong on the
//! host, most severe first, one line each, read from the model's ranked list
//! (`Insights::problems`, `model/problems/`); nothing here decides what is a
//! problem. The strip takes as many lines as the list needs, up to a share of
//! the body that grows with the terminal; at 24 rows it is one summary line.
//! Enter on an entry opens its subject (`opens`).

use crate::interactive::screens::device::DeviceScreen;
use crate::interactive::screens::drill::DrillScreen;
use crate::interactive::screens::error_qps::ErrorQpScreen;
use crate::interactive::screens::message::MessageScreen;
use crate::interactive::screens::port_counters::PortCountersScreen;
use crate::interactive::screens::{Ctx, Screen};
use crate::interactive::widgets::cursor::{Cursor, visible_offset};
use crate::interactive::widgets::fit::cut_at_word;
use crate::interactive::widgets::paint::{put_spans, style_area};
use crate::interactive::widgets::sparkline::age_text;
use crate::interactive::widgets::theme::Theme;
use crate::model::filter::Filter;
use crate::model::problems::{Opens, Problem, Severity};
use crate::model::{Level, UnixMs};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

/// Body rows at and below which the strip is one summary line (a 24-row
/// terminal has 21).
const SUMMARY_BODY_ROWS: u16 = 21;
/// Rows the panes under the strip keep however long the list is.
const PANES_KEEP: u16 = 8;

/// The strip's height for `n` problems in a body of `body_rows`: none
/// without problems, one line on small terminals, else one line per
/// problem up to a fifth of the body (at least 2 lines).
pub(crate) fn strip_height(body_rows: u16, n: usize) -> u16 {
    if n == 0 || body_rows == 0 {
        return 0;
    }
    let share = if body_rows <= SUMMARY_BODY_ROWS {
        1
    } else {
        (body_rows / 5)
            .max(2)
            .min(body_rows.saturating_sub(PANES_KEEP))
            .max(1)
    };
    share.min(u16::try_from(n).unwrap_or(u16::MAX))
}

/// `critical`, `warning`, `notice`; four letters on a narrow strip.
fn severity_word(s: Severity, narrow: bool) -> &'static str {
    match (s, narrow) {
        (Severity::Critical, false) => "critical",
        (Severity::Warning, false) => "warning ",
        (Severity::Notice, false) => "notice  ",
        (Severity::Critical, true) => "crit",
        (Severity::Warning, true) => "warn",
        (Severity::Notice, true) => "note",
    }
}

fn severity_style(s: Severity, theme: &Theme) -> ratatui::style::Style {
    match s {
        Severity::Critical => theme.level(Level::Critical),
        Severity::Warning => theme.level(Level::Warn),
        Severity::Notice => theme.bold(),
    }
}

/// One entry: `critical  40 s  mlx5_1 port 1: out_of_sequence keeps rising…`,
/// the why cut between words to what is left of `width` after `tail`.
fn entry<'a>(p: &Problem, at: UnixMs, width: usize, tail: &str, theme: &Theme) -> Vec<Span<'a>> {
    let narrow = width < 60;
    let sev = severity_word(p.severity, narrow);
    let age = age_text(at.since(p.since_ms), false);
    let head = format!("{sev} {age:>5}  ");
    let room = width.saturating_sub(head.chars().count() + tail.chars().count());
    let why = cut_at_word(&p.why, room);
    let mut spans = vec![
        Span::styled(format!("{sev} "), severity_style(p.severity, theme)),
        Span::styled(format!("{age:>5}  "), theme.dim()),
        Span::styled(why, theme.plain()),
    ];
    if !tail.is_empty() {
        spans.push(Span::styled(tail.to_string(), theme.dim()));
    }
    spans
}

/// Draws the strip: the entries that fit, the selected one marked while
/// the strip has the focus, and the last line saying how many more `a` lists.
pub(crate) fn draw(
    buf: &mut Buffer,
    area: Rect,
    problems: &[Problem],
    cursor: Cursor,
    focused: bool,
    ctx: &Ctx,
    theme: &Theme,
) {
    if area.height == 0 || problems.is_empty() {
        return;
    }
    let width = usize::from(area.width);
    let at = ctx.insights.at_ms;
    let lines = usize::from(area.height);
    let n = problems.len();
    if lines < n {
        // The rows that fit, scrolled to the selection; the last line says
        // how many more there are.
        let shown = lines;
        let offset = visible_offset(cursor, n, shown);
        for (i, p) in problems.iter().enumerate().skip(offset).take(shown) {
            let row = i - offset;
            let y = area.y + u16::try_from(row).unwrap_or(0);
            let last = row + 1 == shown;
            let more = n - (offset + shown);
            let tail = if last && more > 0 {
                format!("  +{more} more (a)")
            } else {
                String::new()
            };
            let line = Rect::new(area.x, y, area.width, 1);
            put_spans(buf, line, &entry(p, at, width, &tail, theme));
            if focused && i == cursor.selected {
                style_area(buf, line, theme.selected(true));
            }
        }
        return;
    }
    for (i, p) in problems.iter().enumerate() {
        let y = area.y + u16::try_from(i).unwrap_or(0);
        let line = Rect::new(area.x, y, area.width, 1);
        put_spans(buf, line, &entry(p, at, width, "", theme));
        if focused && i == cursor.selected {
            style_area(buf, line, theme.selected(true));
        }
    }
}

/// The screen a problem opens: its device, its port's counters, its
/// owner's drill-down, that owner's ERROR QPs; a box with the whole line
/// for a problem about the host.
pub(crate) fn open(p: &Problem, filter: &Filter) -> Box<dyn Screen> {
    match &p.opens {
        Opens::Device { device } => Box::new(DeviceScreen::new(device.clone())),
        Opens::PortCounters { device, port } => {
            Box::new(PortCountersScreen::new(device.clone(), *port))
        }
        Opens::Owner { owner } => Box::new(DrillScreen::new(owner.clone(), filter)),
        Opens::ErrorQps { owner } => Box::new(ErrorQpScreen::for_owner(owner.clone())),
        Opens::Nothing => Box::new(MessageScreen::new(
            format!("{} {}", p.severity.name(), p.kind.name()),
            vec![p.why.clone()],
        )),
    }
}

/// `c` on a problem: its port, or its device's first port.
pub(crate) fn counters_of(p: &Problem, ctx: &Ctx) -> Option<Result<(String, u32), String>> {
    let device = p.subject.device()?;
    if let Some(port) = p.subject.port() {
        return Some(Ok((device.to_string(), port)));
    }
    Some(crate::interactive::screens::port_counters::first_port_of(
        ctx, device,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_summary_line_at_24_rows_and_a_growing_share_above() {
        assert_eq!(strip_height(21, 0), 0);
        assert_eq!(strip_height(21, 7), 1);
        assert_eq!(strip_height(9, 7), 1);
        assert_eq!(strip_height(37, 7), 7);
        assert_eq!(strip_height(37, 3), 3);
        assert_eq!(strip_height(57, 20), 11);
        assert_eq!(strip_height(27, 7), 5);
    }
}
