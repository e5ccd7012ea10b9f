//! Fitting lines made of parts into a width without cutting them mid-word:
//! a part is shortened or dropped by priority (the header's time before its
//! host, the footer's interval hint before `q quit`), a sentence is cut at
//! a word boundary and marked `…`, and parts wrap onto more lines when a
//! screen has the rows.

use ratatui::text::Span;

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

/// `text` in at most `width` columns: whole, or cut after the last word that
/// fits and marked `…` (a single word longer than the width is cut inside).
pub(crate) fn cut_at_word(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let room: String = text.chars().take(width - 1).collect();
    // The room ends at a word's end when the next character is a blank.
    let word_ends = text.chars().nth(width - 1).is_some_and(char::is_whitespace);
    let kept = match room.rfind(' ') {
        _ if word_ends => room.trim_end_matches([' ', ',', ';', ':', '·']),
        Some(i) if i > 0 => room[..i].trim_end_matches([' ', ',', ';', ':', '·']),
        _ => room.as_str(),
    };
    format!("{kept}…")
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
