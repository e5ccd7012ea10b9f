//! One usage gauge in a cell: a bar, `used/max` and percent when the limit
//! is known, just `used` when it is not. Shrinks to fit the cell.

use super::theme::Theme;
use crate::app::Thresholds;
use crate::model::UsageEntry;
use crate::units::{count, percent};
use ratatui::text::Span;

const PARTIAL: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/// A bar `width` cells wide filled to `ratio` (clamped to 0..=1), in eighths.
pub fn bar(ratio: f64, width: usize) -> (String, String) {
    let ratio = if ratio.is_finite() {
        ratio.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let eighths = (ratio * (width * 8) as f64).round() as usize;
    let full = eighths / 8;
    let rest = eighths % 8;
    let mut filled = "█".repeat(full);
    let mut used = full;
    if rest > 0 && used < width {
        filled.push(PARTIAL[rest]);
        used += 1;
    }
    (filled, "░".repeat(width.saturating_sub(used)))
}

/// The spans of one gauge cell, at most `width` characters.
pub fn gauge<'a>(
    entry: Option<&UsageEntry>,
    width: usize,
    thresholds: &Thresholds,
    theme: &Theme,
) -> Vec<Span<'a>> {
    let Some(entry) = entry else {
        return vec![Span::styled("-", theme.dim())];
    };
    let Some(ratio) = entry.ratio() else {
        // No known limit: the count alone, no bar pretending to a scale.
        return vec![Span::raw(count(entry.current))];
    };
    let style = theme.level(thresholds.level(ratio));
    let pct = percent(ratio);
    let numbers = format!(
        "{}/{}",
        count(entry.current),
        count(entry.max.unwrap_or_default())
    );
    let full_text = format!("{numbers} {pct:>4}");
    let candidates = [full_text, format!("{pct:>4}")];
    for text in candidates {
        let text_w = text.chars().count();
        if text_w > width {
            continue;
        }
        let bar_w = width.saturating_sub(text_w + 1);
        let mut spans = Vec::new();
        if bar_w >= 3 {
            let (filled, track) = bar(ratio, bar_w);
            spans.push(Span::styled(filled, style));
            spans.push(Span::styled(track, theme.gauge_track()));
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(text, style));
        return spans;
    }
    vec![Span::styled(percent(ratio), style)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(spans: &[Span<'_>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    fn entry(current: u64, max: Option<u64>) -> UsageEntry {
        UsageEntry {
            current,
            max,
            max_source: None,
        }
    }

    #[test]
    fn bars_fill_in_eighths() {
        assert_eq!(bar(0.5, 4), ("██".to_string(), "░░".to_string()));
        assert_eq!(bar(1.0 / 16.0, 2), ("▏".to_string(), "░".to_string()));
        assert_eq!(bar(7.0, 3).0, "███");
        assert_eq!(bar(f64::NAN, 2).1, "░░");
    }

    #[test]
    fn wide_cells_show_bar_numbers_and_percent() {
        let t = Theme::new(false);
        let s = gauge(
            Some(&entry(812, Some(1024))),
            20,
            &Thresholds::default(),
            &t,
        );
        assert_eq!(text(&s), "████▊░ 812/1024  79%");
        assert_eq!(text(&s).chars().count(), 20);
    }

    #[test]
    fn narrow_cells_keep_the_percent() {
        let t = Theme::new(false);
        let s = gauge(Some(&entry(812, Some(1024))), 5, &Thresholds::default(), &t);
        assert_eq!(text(&s), " 79%");
    }

    #[test]
    fn unknown_limits_show_only_the_count() {
        let t = Theme::new(false);
        let s = gauge(Some(&entry(12_345, None)), 20, &Thresholds::default(), &t);
        assert_eq!(text(&s), "12345");
    }
}
