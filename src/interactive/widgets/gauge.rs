//! Usage gauges: a bar, `used/max` and percent when the limit is known, just
//! `used` when it is not. All gauges of one column share one plan (bar width,
//! text width) so bars and percentages line up from device to device.

use crate::interactive::widgets::format::pad;
use crate::interactive::widgets::sparkline::sparkline;
use crate::interactive::widgets::theme::Theme;
use crate::model::UsageEntry;
use crate::model::limits::Thresholds;
use crate::units::{count, percent};
use ratatui::text::Span;

const PARTIAL: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/// Narrowest bar worth drawing.
#[cfg(test)]
const MIN_BAR: usize = 2;

/// Narrowest sparkline that leaves room to `used/max` next to it.
#[cfg(test)]
const MIN_SPARKLINE: usize = 6;

/// A bar `width` cells wide filled to `ratio` (clamped to 0..=1), in eighths:
/// the filled part and the empty track.
pub(crate) fn bar(ratio: f64, width: usize) -> (String, String) {
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

/// The numbers of one gauge: `used/max pct` (`full`) or `pct`; `used` alone
/// when no limit is known; `-` when the kernel reported nothing.
pub(crate) fn gauge_text(entry: Option<&UsageEntry>, full: bool) -> String {
    let Some(entry) = entry else {
        return "-".to_string();
    };
    match entry.ratio() {
        None => count(entry.current),
        Some(ratio) if full => format!(
            "{}/{} {:>5}",
            count(entry.current),
            count(entry.max.unwrap_or_default()),
            percent(ratio)
        ),
        Some(ratio) => format!("{:>5}", percent(ratio)),
    }
}

/// How every gauge of a column is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GaugePlan {
    pub full: bool,
    pub bar: usize,
    pub text: usize,
}

/// Chooses the richest layout in which every entry of the column fits
/// `width`. The devices grid plans its gauges itself (`devices_grid.rs`);
/// this one is kept for the tests of `gauge` below.
#[cfg(test)]
fn plan(entries: &[Option<&UsageEntry>], width: usize) -> GaugePlan {
    plan_for(entries, width, false)
}

/// The same; with `bar_without_limit`, columns without any limit get room for
/// a bar too (where sparklines take the bars' place).
#[cfg(test)]
fn plan_for(entries: &[Option<&UsageEntry>], width: usize, bar_without_limit: bool) -> GaugePlan {
    let widest = |full: bool| {
        entries
            .iter()
            .map(|e| gauge_text(*e, full).chars().count())
            .max()
            .unwrap_or(1)
    };
    let any_ratio =
        bar_without_limit || entries.iter().any(|e| e.and_then(|e| e.ratio()).is_some());
    for full in [true, false] {
        let text = widest(full);
        if text <= width {
            let spare = width - text;
            let bar = if any_ratio && spare > MIN_BAR {
                spare - 1
            } else {
                0
            };
            // A sparkline needs some width to say anything: it takes the
            // room of `used/max` when that would leave it too little.
            if full && bar_without_limit && bar < MIN_SPARKLINE && widest(false) < text {
                continue;
            }
            return GaugePlan { full, bar, text };
        }
    }
    GaugePlan {
        full: false,
        bar: 0,
        text: width,
    }
}

/// The spans of one gauge laid out by `plan`.
pub(crate) fn gauge<'a>(
    entry: Option<&UsageEntry>,
    plan: GaugePlan,
    thresholds: &Thresholds,
    theme: &Theme,
) -> Vec<Span<'a>> {
    let text = pad(&gauge_text(entry, plan.full), plan.text, true);
    let ratio = entry.and_then(|e| e.ratio());
    let Some(ratio) = ratio else {
        let blank = if plan.bar > 0 { plan.bar + 1 } else { 0 };
        let style = if entry.is_some() {
            theme.plain()
        } else {
            theme.dim()
        };
        return vec![Span::raw(" ".repeat(blank)), Span::styled(text, style)];
    };
    let style = theme.level(thresholds.level(ratio));
    let mut spans = Vec::new();
    if plan.bar > 0 {
        let (filled, track) = bar(ratio, plan.bar);
        spans.push(Span::styled(filled, style));
        spans.push(Span::styled(track, theme.gauge_track()));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled(text, style));
    spans
}

/// A gauge whose bar is a sparkline of the count over the trend window,
/// coloured by the current level.
pub(crate) fn trend_gauge<'a>(
    entry: Option<&UsageEntry>,
    plan: GaugePlan,
    series: &[u64],
    thresholds: &Thresholds,
    theme: &Theme,
) -> Vec<Span<'a>> {
    if plan.bar == 0 || entry.is_none() {
        return gauge(entry, plan, thresholds, theme);
    }
    let text = pad(&gauge_text(entry, plan.full), plan.text, true);
    let style = match entry.and_then(|e| e.ratio()) {
        Some(ratio) => theme.level(thresholds.level(ratio)),
        None => theme.plain(),
    };
    vec![
        Span::styled(sparkline(series, plan.bar), style),
        Span::raw(" "),
        Span::styled(text, style),
    ]
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
    fn wide_columns_show_bar_numbers_and_percent() {
        let e = entry(812, Some(1024));
        let p = plan(&[Some(&e)], 20);
        assert_eq!(
            p,
            GaugePlan {
                full: true,
                bar: 5,
                text: 14
            }
        );
        let s = gauge(Some(&e), p, &Thresholds::default(), &Theme::new(false));
        assert_eq!(text(&s), "████░ 812/1024   79%");
    }

    #[test]
    fn one_plan_aligns_a_column() {
        let a = entry(1711, Some(2048));
        let b = entry(1, Some(4096));
        let p = plan(&[Some(&a), Some(&b)], 20);
        let t = Theme::new(false);
        let ta = text(&gauge(Some(&a), p, &Thresholds::default(), &t));
        let tb = text(&gauge(Some(&b), p, &Thresholds::default(), &t));
        assert_eq!(ta.chars().count(), tb.chars().count());
        assert_eq!(ta.find('%'), tb.find('%'));
    }

    #[test]
    fn narrow_columns_keep_the_percent() {
        let e = entry(812, Some(1024));
        let p = plan(&[Some(&e)], 8);
        assert!(!p.full);
        let s = gauge(Some(&e), p, &Thresholds::default(), &Theme::new(false));
        assert_eq!(text(&s), "█▋   79%");
    }

    #[test]
    fn unknown_limits_show_only_the_count() {
        let e = entry(12_345, None);
        let p = plan(&[Some(&e)], 20);
        assert_eq!(p.bar, 0);
        let s = gauge(Some(&e), p, &Thresholds::default(), &Theme::new(false));
        assert_eq!(text(&s).trim(), "12345");
    }
}
