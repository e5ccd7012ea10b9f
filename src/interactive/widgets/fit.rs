//! Fitting lines made of parts into a width without cutting them mid-word:
//! a part is shortened or dropped by priority (the header's time before its
//! host, the footer's interval hint before `q quit`), a sentence is cut at
//! a word boundary and marked `…`, and parts wrap onto more lines when a
//! screen has the rows.

use ratatui::text::Span;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// One piece of a line and its shorter forms. Going from one form to the
/// next costs the priority given with it; the cheapest step is taken first
/// until the line fits. A dropped part is an empty last form.
#[derive(Clone, Debug)]
pub(crate) struct Part<'a> {
    forms: Vec<Vec<Span<'a>>>,
    /// `costs[i]`: what losing `forms[i]` for `forms[i + 1]` costs.
    costs: Vec<u8>,
}

impl<'a> Part<'a> {
    /// A part shown whole or not at all.
    pub(crate) fn new(spans: Vec<Span<'a>>) -> Part<'a> {
        Part {
            forms: vec![spans],
            costs: Vec::new(),
        }
    }

    /// A shorter form, taken at `cost`.
    pub(crate) fn or(mut self, spans: Vec<Span<'a>>, cost: u8) -> Part<'a> {
        self.forms.push(spans);
        self.costs.push(cost);
        self
    }

    /// Dropped entirely at `cost`.
    pub(crate) fn drop_at(self, cost: u8) -> Part<'a> {
        self.or(Vec::new(), cost)
    }
}

/// Display width of some spans.
pub(crate) fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(Span::width).sum()
}

/// The parts in order, each in the longest form that lets the line fit in
/// `width`, shortening the cheapest first. A line whose parts cannot all
/// shrink enough is returned in its shortest forms (the caller clips it).
pub(crate) fn fit_parts<'a>(parts: Vec<Part<'a>>, width: usize) -> Vec<Span<'a>> {
    let mut at = vec![0usize; parts.len()];
    let total = |at: &[usize]| -> usize {
        parts
            .iter()
            .zip(at)
            .map(|(p, i)| p.forms.get(*i).map_or(0, |f| spans_width(f)))
            .sum()
    };
    while total(&at) > width {
        let cheapest = parts
            .iter()
            .zip(&at)
            .enumerate()
            .filter_map(|(n, (p, i))| p.costs.get(*i).map(|c| (*c, n)))
            // Ties: the rightmost part goes first.
            .min_by_key(|(c, n)| (*c, usize::MAX - n));
        let Some((_, n)) = cheapest else {
            break;
        };
        if let Some(i) = at.get_mut(n) {
            *i += 1;
        }
    }
    parts
        .into_iter()
        .zip(at)
        .flat_map(|(p, i)| p.forms.into_iter().nth(i).unwrap_or_default())
        .collect()
}

/// `text` in at most `width` columns: whole, or cut after the last whole
/// word that fits and marked `…`; only a first word wider than the whole
/// room is cut inside (never through a wide character). Widths are display
/// columns, so CJK and other wide characters count two. Blanks and the
/// separators that join words (`,` `;` `:` `·`) are not left before the
/// mark. ASCII mode draws the mark as charset.rs maps it (`~`).
pub(crate) fn cut_at_word(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let room = width - 1;
    // The end of the last word that fits: a blank right after a word ends it.
    let mut used = 0usize;
    let mut word_end = None;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if c.is_whitespace() {
            if in_word {
                word_end = Some(i);
            }
            in_word = false;
        } else {
            in_word = true;
        }
        if used + w > room {
            break;
        }
        used += w;
    }
    let kept = match word_end {
        Some(end) => text[..end].trim_end_matches(SEPARATORS),
        None => "",
    };
    if !kept.trim().is_empty() {
        return format!("{kept}…");
    }
    // Not even the first word fits: cut inside it only when it is wider
    // than the whole room; when the blanks before it are what push it out,
    // they stay and the mark says what follows.
    let word = text.trim_start();
    let blanks = &text[..text.len() - word.len()];
    let first = word.split_whitespace().next().unwrap_or_default();
    if first.width() > room && blanks.width() < room {
        let after = room - blanks.width();
        return format!("{blanks}{}…", first_columns(word, after));
    }
    format!("{}…", first_columns(blanks, room))
}

/// What may end a kept prefix before `…` and is dropped there.
const SEPARATORS: [char; 5] = [' ', ',', ';', ':', '·'];

/// The longest prefix of `text` at most `width` columns wide.
fn first_columns(text: &str, width: usize) -> &str {
    let mut used = 0usize;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > width {
            return &text[..i];
        }
        used += w;
    }
    text
}

/// Greedy wrap of whole parts onto at most `max_lines` lines of `width`; a
/// part longer than a line is cut at a word. When the parts need more lines
/// than that, the last line ends in `…`. Leading blanks of a part that
/// starts a line are dropped.
pub(crate) fn wrap_parts<'a>(
    parts: Vec<Vec<Span<'a>>>,
    width: usize,
    max_lines: usize,
) -> Vec<Vec<Span<'a>>> {
    let mut lines: Vec<Vec<Span<'a>>> = Vec::new();
    let mut used = 0usize;
    let mut overflow = false;
    for part in parts {
        let w = spans_width(&part);
        if !lines.is_empty() && used + w <= width {
            if let Some(line) = lines.last_mut() {
                line.extend(part);
            }
            used += w;
            continue;
        }
        if lines.len() == max_lines {
            // The last line's room takes what of the part fits, cut at a word.
            let room = width.saturating_sub(used);
            if let Some(line) = lines.last_mut()
                && room >= MIN_CUT
            {
                line.extend(cut_spans(part, room));
            } else {
                overflow = true;
            }
            break;
        }
        let part = trim_start(part);
        let part = if spans_width(&part) > width {
            cut_spans(part, width)
        } else {
            part
        };
        used = spans_width(&part);
        lines.push(part);
    }
    if overflow && let Some(last) = lines.last_mut() {
        if spans_width(last) + 1 > width {
            let cut = cut_spans(std::mem::take(last), width.saturating_sub(1));
            *last = cut;
        }
        if !last.last().is_some_and(|s| s.content.ends_with('…')) {
            last.push(Span::raw("…"));
        }
    }
    lines
}

/// One line of spans on at most `max_lines` lines of `width`: a span stays
/// whole where it fits on a line, one wider than a line breaks between its
/// words; what still does not fit is cut between words with `…` on the
/// last line (`wrap_parts`). So a line wraps where the screen has the
/// rows and is cut only where it has not.
pub(crate) fn wrap_spans<'a>(
    spans: Vec<Span<'a>>,
    width: usize,
    max_lines: usize,
) -> Vec<Vec<Span<'a>>> {
    let mut parts = Vec::new();
    for span in spans {
        if span.width() <= width {
            parts.push(vec![span]);
            continue;
        }
        for word in words_of(&span.content) {
            parts.push(vec![Span::styled(word, span.style)]);
        }
    }
    wrap_parts(parts, width, max_lines)
}

/// `text` in pieces of one word each, every piece with the blanks before it.
fn words_of(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut piece = String::new();
    let mut after_word = false;
    for c in text.chars() {
        if c.is_whitespace() && after_word {
            out.push(std::mem::take(&mut piece));
        }
        after_word = !c.is_whitespace();
        piece.push(c);
    }
    if !piece.is_empty() {
        out.push(piece);
    }
    out
}

/// Room below which a part is not cut into the end of a full line.
const MIN_CUT: usize = 8;

/// Blanks and the separators that join parts (`; `, `· `) are not shown
/// at the start of a line.
fn trim_start(mut part: Vec<Span<'_>>) -> Vec<Span<'_>> {
    if let Some(first) = part.first_mut() {
        let trimmed = first
            .content
            .trim_start_matches([' ', ';', '·'])
            .to_string();
        first.content = trimmed.into();
    }
    part
}

/// The spans cut to `width` at a word of the span that crosses it.
pub(crate) fn cut_spans(part: Vec<Span<'_>>, width: usize) -> Vec<Span<'_>> {
    let mut out = Vec::new();
    let mut used = 0usize;
    for span in part {
        let w = span.width();
        if used + w <= width {
            used += w;
            out.push(span);
            continue;
        }
        let room = width.saturating_sub(used);
        if room > 1 {
            out.push(Span::styled(cut_at_word(&span.content, room), span.style));
        }
        break;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(spans: &[Span<'_>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn the_cheapest_part_goes_first_and_the_rest_stay_whole() {
        let parts = || {
            vec![
                Part::new(vec![Span::raw("restop")]),
                Part::new(vec![Span::raw("  host")]).drop_at(50),
                Part::new(vec![Span::raw("  at 2026-01-01 00:00:00")])
                    .or(vec![Span::raw("  at 00:00:00")], 10)
                    .drop_at(40),
                Part::new(vec![Span::raw("  kernel 6.8")]).drop_at(20),
            ]
        };
        assert_eq!(
            text(&fit_parts(parts(), 80)),
            "restop  host  at 2026-01-01 00:00:00  kernel 6.8"
        );
        assert_eq!(
            text(&fit_parts(parts(), 40)),
            "restop  host  at 00:00:00  kernel 6.8"
        );
        assert_eq!(text(&fit_parts(parts(), 26)), "restop  host  at 00:00:00");
        assert_eq!(text(&fit_parts(parts(), 12)), "restop  host");
        assert_eq!(text(&fit_parts(parts(), 3)), "restop");
    }

    #[test]
    fn sentences_are_cut_between_words() {
        assert_eq!(
            cut_at_word("7 objects on mlx5_1 have no owner", 20),
            "7 objects on mlx5_1…"
        );
        assert_eq!(cut_at_word("short", 20), "short");
        assert_eq!(cut_at_word("averyveryverylongword", 8), "averyve…");
        assert_eq!(cut_at_word("a, b", 3), "a…");
    }

    #[test]
    fn a_cut_keeps_the_last_whole_word_that_fits() {
        let meaning = "management packets dropped (VL15)";
        assert_eq!(cut_at_word(meaning, 16), "management…");
        assert_eq!(cut_at_word(meaning, 19), "management packets…");
        // The word ends right where the room does.
        assert_eq!(cut_at_word(meaning, 11), "management…");
        assert_eq!(cut_at_word(meaning, 10), "managemen…");
        assert_eq!(cut_at_word("2.0 s between reads", 14), "2.0 s between…");
        assert_eq!(cut_at_word("a; b · c", 6), "a; b…");
        assert_eq!(cut_at_word("abc", 1), "…");
        assert_eq!(cut_at_word("abc", 0), "");
        // Every cut fits its room.
        for w in 0..meaning.len() + 2 {
            assert!(cut_at_word(meaning, w).width() <= w, "{w}");
        }
    }

    #[test]
    fn only_a_word_wider_than_the_whole_room_is_cut_inside() {
        assert_eq!(
            cut_at_word("eth-mac.FrameCheckSequenceErrors netdev", 36),
            "eth-mac.FrameCheckSequenceErrors…"
        );
        assert_eq!(
            cut_at_word("eth-mac.FrameCheckSequenceErrors netdev", 12),
            "eth-mac.Fra…"
        );
        assert_eq!(cut_at_word("pytorch_train_worker", 9), "pytorch_…");
        // Blanks before a word are kept: a part cut onto the end of a line
        // does not run into the text before it.
        assert_eq!(cut_at_word("  pytorch_train_worker", 9), "  pytorc…");
        assert_eq!(cut_at_word("  container 1a2b3c", 10), "  …");
        assert_eq!(cut_at_word("   CTX 1", 3), "  …");
        for w in 0..12 {
            assert!(cut_at_word("   CTX 1  container", w).width() <= w, "{w}");
        }
    }

    #[test]
    fn wide_characters_count_two_columns_and_are_never_split() {
        // Six columns of CJK, two words.
        assert_eq!(cut_at_word("漢字 テスト", 7), "漢字…");
        assert_eq!(cut_at_word("漢字 テスト", 11), "漢字 テスト");
        // One word: cut inside, between characters, never through one.
        assert_eq!(cut_at_word("漢字漢字", 6), "漢字…");
        assert_eq!(cut_at_word("漢字漢字", 4), "漢…");
        assert_eq!(cut_at_word("漢字漢字", 2), "…");
        for w in 0..10 {
            assert!(cut_at_word("漢字漢字 テスト", w).width() <= w, "{w}");
        }
    }

    #[test]
    fn the_mark_is_ascii_in_ascii_mode() {
        use crate::interactive::widgets::charset::to_ascii;
        use crate::interactive::widgets::paint::put;
        use ratatui::buffer::Buffer;
        use ratatui::layout::Rect;
        let mut buf = Buffer::empty(Rect::new(0, 0, 16, 1));
        let text = "management packets dropped";
        put(&mut buf, 0, 0, text, 16, ratatui::style::Style::default());
        to_ascii(&mut buf);
        let line: String = (0..16).map(|x| buf[(x, 0)].symbol().to_string()).collect();
        assert_eq!(line, "management~     ");
    }

    #[test]
    fn spans_wrap_whole_and_a_span_wider_than_a_line_between_its_words() {
        let spans = || {
            vec![
                Span::raw("mlx5_0 port 1  ACTIVE ens1f0np0"),
                Span::raw("  200 Gb/sec (4X HDR)"),
                Span::raw("  from demo"),
                Span::raw("  1.0 s between reads"),
            ]
        };
        let lines =
            |w, n| -> Vec<String> { wrap_spans(spans(), w, n).iter().map(|l| text(l)).collect() };
        assert_eq!(
            lines(80, 2),
            [
                "mlx5_0 port 1  ACTIVE ens1f0np0  200 Gb/sec (4X HDR)  from demo",
                "1.0 s between reads"
            ]
        );
        // No second line: cut between words, with the mark.
        assert_eq!(
            lines(60, 1),
            ["mlx5_0 port 1  ACTIVE ens1f0np0  200 Gb/sec (4X HDR)  from…"]
        );
        // A span wider than the line breaks between its words.
        assert_eq!(lines(20, 6)[..2], ["mlx5_0 port 1", "ACTIVE ens1f0np0"]);
        assert!(
            lines(20, 6)
                .iter()
                .all(|l| l.width() <= 20 && !l.contains('…'))
        );
        assert_eq!(words_of("  a bc  d"), ["  a", " bc", "  d"]);
    }

    #[test]
    fn parts_wrap_whole_and_say_when_more_was_left_out() {
        let parts = || {
            ["QP 20%", "  CQ 4.4%", "  MR 16%", "  PD 11%"]
                .into_iter()
                .map(|t| vec![Span::raw(t)])
                .collect::<Vec<_>>()
        };
        let lines: Vec<String> = wrap_parts(parts(), 18, 3).iter().map(|l| text(l)).collect();
        assert_eq!(lines, ["QP 20%  CQ 4.4%", "MR 16%  PD 11%"]);
        let lines: Vec<String> = wrap_parts(parts(), 18, 1).iter().map(|l| text(l)).collect();
        assert_eq!(lines, ["QP 20%  CQ 4.4%…"]);
        let long = vec![
            vec![Span::raw("total")],
            vec![Span::raw(" QP 218 (all INIT: never connected)")],
        ];
        let lines: Vec<String> = wrap_parts(long, 24, 1).iter().map(|l| text(l)).collect();
        assert_eq!(lines, ["total QP 218 (all INIT…"]);
    }
}
