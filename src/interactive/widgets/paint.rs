//! Bounds-checked writes into the frame buffer, so no size ever panics.
//! A text wider than its room is cut between words and marked `…` here,
//! the one place every line goes through, so no screen shows a word the
//! edge broke.

use crate::interactive::layout::TableArea;
use crate::interactive::widgets::fit::{Part, cut_at_word, cut_spans, fit_parts, spans_width};
use crate::interactive::widgets::format::pad;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Writes `text` at (`x`, `y`), at most `width` cells (cut between words
/// with `…` when wider, and at the buffer's edge), clipped to the buffer.
pub(crate) fn put(buf: &mut Buffer, x: u16, y: u16, text: &str, width: u16, style: Style) -> u16 {
    let area = buf.area;
    if y < area.y || y >= area.bottom() || x < area.x || x >= area.right() {
        return x;
    }
    let width = width.min(area.right() - x);
    // Blanks past the edge (padding) are no text to cut.
    if Span::raw(text.trim_end()).width() > usize::from(width) {
        let cut = cut_at_word(text, usize::from(width));
        return buf.set_stringn(x, y, cut, usize::from(width), style).0;
    }
    buf.set_stringn(x, y, text, usize::from(width), style).0
}

/// Writes one column title into a table's header row: padded to the column,
/// right-aligned for numbers.
pub(crate) fn put_header_cell(
    buf: &mut Buffer,
    area: &TableArea,
    (x, width): (u16, u16),
    title: &str,
    right: bool,
    style: Style,
) {
    let text = pad(title, usize::from(width), right);
    put(buf, area.header.x + x, area.header.y, &text, width, style);
}

/// Writes `text` on the first line of `area` (an empty list's "nothing here").
pub(crate) fn put_line(buf: &mut Buffer, area: Rect, text: &str, style: Style) -> u16 {
    put(buf, area.x, area.y, text, area.width, style)
}

/// Writes styled spans left to right within `area`'s first line.
pub(crate) fn put_spans(buf: &mut Buffer, area: Rect, spans: &[Span<'_>]) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let area = area.intersection(buf.area);
    if area.is_empty() {
        return;
    }
    // Blanks past the edge (padding) are no text to cut.
    let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
    let blanks = text.chars().rev().take_while(|c| *c == ' ').count();
    let spans = if spans_width(spans).saturating_sub(blanks) > usize::from(area.width) {
        cut_spans(spans.to_vec(), usize::from(area.width))
    } else {
        spans.to_vec()
    };
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}

/// Applies `style` to a whole area (row highlight), clipped to the buffer.
pub(crate) fn style_area(buf: &mut Buffer, area: Rect, style: Style) {
    let area = area.intersection(buf.area);
    if !area.is_empty() {
        buf.set_style(area, style);
    }
}

/// A title line: `─ Title ─────…` with optional extra spans after it.
pub(crate) fn title_line(
    buf: &mut Buffer,
    area: Rect,
    title: Span<'_>,
    extra: &[Span<'_>],
    rule: Style,
) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    // What does not fit goes whole, the last extra first; a title that
    // alone is too wide is cut between words, with a mark.
    let width = usize::from(area.width);
    let title_room = width.saturating_sub(3);
    let title = Span::styled(cut_at_word(&title.content, title_room), title.style);
    let mut parts = vec![Part::new(vec![Span::styled("─ ", rule), title])];
    let n = extra.len();
    for (i, e) in extra.iter().enumerate() {
        let cost = u8::try_from(n - i).unwrap_or(u8::MAX);
        parts.push(Part::new(vec![e.clone()]).drop_at(cost));
    }
    let mut spans = fit_parts(parts, width.saturating_sub(1));
    spans.push(Span::styled(" ", rule));
    put_spans(buf, area, &spans);
    let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
    let used = u16::try_from(used).unwrap_or(u16::MAX);
    if used < area.width {
        let rest = usize::from(area.width - used);
        put(
            buf,
            area.x + used,
            area.y,
            &"─".repeat(rest),
            area.width - used,
            rule,
        );
    }
}
