//! Growth of one count over a time window: a rate robust to noise and the
//! leak-suspect verdict, with the sentence that explains it.
//!
//! The rule (docs/leaks.md): over the window, a count is a *leak suspect* when
//! it grew by at least `min_growth`, rose at least three times, never fell by
//! more than a tenth of what it rose (and fell at most once for every four
//! rises), no single rise made more than half of the growth, and it rose in
//! both halves of the observed span. That rejects a one-off step (a pool
//! allocated at start-up), a sawtooth (allocate, free), and noise around a
//! level, while keeping a staircase that never comes back down.

use crate::model::{Millis, ResourceType};

/// Points a sparkline series has (the UI picks what fits).
pub const SERIES_POINTS: usize = 24;

/// At most this many points enter the Theil–Sen estimate (their pairwise
/// slopes are O(n²)); longer windows are thinned evenly.
const THEIL_SEN_POINTS: usize = 32;

/// The fewest points a verdict is given on.
const VERDICT_POINTS: usize = 5;

/// What the verdict needs besides the points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrendRules {
    /// Shortest observed span (first to last point) a verdict is given on.
    pub min_span_ms: Millis,
    /// Smallest net growth over the window that can be a leak.
    pub min_growth: u64,
}

impl TrendRules {
    /// Whether `points` points spanning `span_ms` are enough for a verdict:
    /// when they are not, no count over them can be a leak suspect.
    pub fn observed_long_enough(&self, points: usize, span_ms: Millis) -> bool {
        span_ms >= self.min_span_ms && points >= VERDICT_POINTS
    }
}

/// How one count of one owner moved over the trend window.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeTrend {
    /// Objects per minute (Theil–Sen slope: the median of pairwise slopes, so a
    /// few outliers or one step do not make a rate).
    pub rate_per_min: f64,
    pub leak_suspect: bool,
    /// Why it is a leak suspect: "+312 MRs in 5 min, never decreased".
    pub explanation: Option<String>,
    /// The count over the window at evenly spaced times (oldest first), for sparklines.
    pub series: Vec<u64>,
    /// Last value minus first value in the window.
    pub growth: i64,
    /// (rises − falls) / (rises + falls): 1 never decreased, −1 never increased,
    /// 0 flat or as much down as up.
    pub monotonicity: f64,
    /// Time from the first to the last point in the window.
    pub span_ms: Millis,
    /// The latest value.
    pub current: u64,
}

impl TypeTrend {
    fn flat(current: u64) -> TypeTrend {
        TypeTrend {
            rate_per_min: 0.0,
            leak_suspect: false,
            explanation: None,
            series: vec![current],
            growth: 0,
            monotonicity: 0.0,
            span_ms: Millis::ZERO,
            current,
        }
    }
}

/// The trend of `points` ((Unix ms, value), oldest first, already cut to the window).
pub(super) fn analyze(t: ResourceType, points: &[(u64, u64)], rules: &TrendRules) -> TypeTrend {
    let (Some(&(first_t, first_v)), Some(&(last_t, last_v))) = (points.first(), points.last())
    else {
        return TypeTrend::flat(0);
    };
    if points.len() < 2 || points.iter().all(|(_, v)| *v == first_v) {
        let mut flat = TypeTrend::flat(last_v);
        flat.span_ms = Millis(last_t.saturating_sub(first_t));
        flat.series = series(points);
        return flat;
    }
    let span_ms = Millis(last_t.saturating_sub(first_t));
    let steps = Steps::of(points);
    let growth = i128::from(last_v) - i128::from(first_v);
    let growth = i64::try_from(growth).unwrap_or(if growth > 0 { i64::MAX } else { i64::MIN });
    let moved = steps.rise.saturating_add(steps.fall);
    let monotonicity = if moved == 0 {
        0.0
    } else {
        (steps.rise as f64 - steps.fall as f64) / moved as f64
    };
    let rate_per_min = theil_sen_per_ms(points) * 60_000.0;

    let long_enough = rules.observed_long_enough(points.len(), span_ms);
    let grew = growth > 0 && growth.unsigned_abs() >= rules.min_growth.max(1);
    // Near-monotone: what came back down is small and rare.
    let near_monotone = steps.fall.saturating_mul(10) <= steps.rise
        && u64::from(steps.falls).saturating_mul(4) <= u64::from(steps.rises);
    // Not a one-off step: several rises, none dominant, in both halves.
    let spread = steps.rises >= 3
        && steps.largest_rise.saturating_mul(2) <= steps.rise
        && rose_in_both_halves(points);
    let leak_suspect = long_enough && grew && near_monotone && spread && rate_per_min > 0.0;
    let explanation = leak_suspect.then(|| explain(t, growth, span_ms, &steps));
    TypeTrend {
        rate_per_min,
        leak_suspect,
        explanation,
        series: series(points),
        growth,
        monotonicity,
        span_ms,
        current: last_v,
    }
}

/// Rises and falls between consecutive points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Steps {
    rise: u64,
    fall: u64,
    rises: u32,
    falls: u32,
    largest_rise: u64,
}

impl Steps {
    fn of(points: &[(u64, u64)]) -> Steps {
        let mut s = Steps::default();
        for pair in points.windows(2) {
            let (a, b) = (pair[0].1, pair[1].1);
            if b > a {
                let d = b - a;
                s.rise = s.rise.saturating_add(d);
                s.rises = s.rises.saturating_add(1);
                s.largest_rise = s.largest_rise.max(d);
            } else if a > b {
                s.fall = s.fall.saturating_add(a - b);
                s.falls = s.falls.saturating_add(1);
            }
        }
        s
    }
}

/// True when the count rose somewhere in the first half of the observed span
/// and somewhere in the second: growth that keeps going, not a start-up burst.
fn rose_in_both_halves(points: &[(u64, u64)]) -> bool {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return false;
    };
    let mid = first.0 + (last.0 - first.0) / 2;
    let mut early = false;
    let mut late = false;
    for pair in points.windows(2) {
        if pair[1].1 > pair[0].1 {
            // A rise belongs to the half its later point falls in.
            if pair[1].0 <= mid {
                early = true;
            } else {
                late = true;
            }
        }
    }
    early && late
}

/// Theil–Sen slope in units per millisecond: the median of the slopes between
/// every pair of (at most `THEIL_SEN_POINTS` evenly chosen) points.
pub(super) fn theil_sen_per_ms(points: &[(u64, u64)]) -> f64 {
    let chosen = thin(points, THEIL_SEN_POINTS);
    let mut slopes = Vec::with_capacity(chosen.len() * chosen.len() / 2);
    for (i, a) in chosen.iter().enumerate() {
        for b in chosen.iter().skip(i + 1) {
            if b.0 > a.0 {
                slopes.push((b.1 as f64 - a.1 as f64) / (b.0 - a.0) as f64);
            }
        }
    }
    median(&mut slopes).unwrap_or(0.0)
}

fn median(values: &mut [f64]) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mid = n / 2;
    let (_, upper, _) = values.select_nth_unstable_by(mid, f64::total_cmp);
    let upper = *upper;
    if n % 2 == 1 {
        return Some(upper);
    }
    let lower = values[..mid]
        .iter()
        .copied()
        .max_by(f64::total_cmp)
        .unwrap_or(upper);
    Some((lower + upper) / 2.0)
}

/// At most `k` points of `points`, evenly spaced by position, first and last kept.
fn thin(points: &[(u64, u64)], k: usize) -> Vec<(u64, u64)> {
    let n = points.len();
    if n <= k || k < 2 {
        return points.to_vec();
    }
    (0..k)
        .filter_map(|i| points.get(i * (n - 1) / (k - 1)).copied())
        .collect()
}

/// The value at `SERIES_POINTS` evenly spaced times from the first point to
/// the last (each the latest value at or before that time).
pub(super) fn series(points: &[(u64, u64)]) -> Vec<u64> {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Vec::new();
    };
    if points.len() == 1 || last.0 == first.0 {
        return vec![last.1];
    }
    let span = last.0 - first.0;
    let steps = (SERIES_POINTS - 1) as u64;
    let mut out = Vec::with_capacity(SERIES_POINTS);
    let mut j = 0;
    for i in 0..=steps {
        let at = first.0 + span * i / steps;
        while j + 1 < points.len() && points[j + 1].0 <= at {
            j += 1;
        }
        out.push(points[j].1);
    }
    out
}

fn explain(t: ResourceType, growth: i64, span_ms: Millis, steps: &Steps) -> String {
    let what = plural(t, growth.unsigned_abs());
    let head = format!("+{growth} {what} in {}", span_text(span_ms));
    match steps.falls {
        0 => format!("{head}, never decreased"),
        1 => format!("{head}, one dip of {}", steps.fall),
        n => format!("{head}, {n} small dips (-{} in all)", steps.fall),
    }
}

/// "MRs", "QPs", "CM IDs", ... for `n` objects of type `t`.
pub fn plural(t: ResourceType, n: u64) -> String {
    let one = n == 1;
    let word = match t {
        ResourceType::Ctx => return if one { "context" } else { "contexts" }.to_string(),
        ResourceType::CmId => "CM ID",
        other => other.label(),
    };
    if one {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

/// A span as people say it: "45 s", "1 min 30 s", "5 min", "2 h 10 min".
pub fn span_text(span: Millis) -> String {
    let secs = span.as_u64().saturating_add(500) / 1000;
    if secs < 60 {
        return format!("{secs} s");
    }
    if secs < 120 {
        let rest = secs - 60;
        return if rest == 0 {
            "1 min".to_string()
        } else {
            format!("1 min {rest} s")
        };
    }
    let mins = (secs + 30) / 60;
    if mins < 120 {
        return format!("{mins} min");
    }
    let (h, m) = (mins / 60, mins % 60);
    if m == 0 {
        format!("{h} h")
    } else {
        format!("{h} h {m} min")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: TrendRules = TrendRules {
        min_span_ms: Millis(30_000),
        min_growth: 3,
    };

    /// One point every `step_ms` from t = 0 with these values.
    fn every(step_ms: u64, values: &[u64]) -> Vec<(u64, u64)> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u64 * step_ms, *v))
            .collect()
    }

    #[test]
    fn theil_sen_ignores_one_outlier() {
        let mut values: Vec<u64> = (0..30).map(|i| 100 + i).collect();
        values[10] = 10_000;
        let slope = theil_sen_per_ms(&every(1000, &values)) * 1000.0;
        assert!((slope - 1.0).abs() < 1e-9, "{slope}");
    }

    #[test]
    fn median_of_even_and_odd() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&mut []), None);
    }

    #[test]
    fn staircase_growth_is_a_suspect_with_its_reason() {
        // +3 every other second for a minute.
        let values: Vec<u64> = (0..61).map(|i| 500 + 3 * (i / 2)).collect();
        let trend = analyze(ResourceType::Mr, &every(1000, &values), &RULES);
        assert!(trend.leak_suspect);
        assert_eq!(trend.growth, 90);
        assert!(
            (trend.rate_per_min - 90.0).abs() < 3.5,
            "{}",
            trend.rate_per_min
        );
        assert_eq!(
            trend.explanation.as_deref(),
            Some("+90 MRs in 1 min, never decreased")
        );
        assert_eq!(trend.monotonicity, 1.0);
    }

    #[test]
    fn too_short_an_observation_gives_no_verdict() {
        let values: Vec<u64> = (0..20).map(|i| 10 + i).collect();
        let trend = analyze(ResourceType::Qp, &every(1000, &values), &RULES);
        assert!(!trend.leak_suspect, "19 s observed, 30 s needed");
        assert!(trend.rate_per_min > 0.0);
    }

    #[test]
    fn a_step_is_not_a_leak() {
        let mut values = vec![0u64; 5];
        values.extend([400, 800, 1000]);
        values.extend(vec![1000; 50]);
        let trend = analyze(ResourceType::Mr, &every(1000, &values), &RULES);
        assert!(!trend.leak_suspect);
        assert_eq!(trend.growth, 1000);
    }

    #[test]
    fn a_sawtooth_is_not_a_leak() {
        let values: Vec<u64> = (0..120).map(|i| 10 + (i % 20) * 5).collect();
        let trend = analyze(ResourceType::Qp, &every(1000, &values), &RULES);
        assert!(!trend.leak_suspect);
    }

    #[test]
    fn one_small_dip_is_tolerated_and_said() {
        let mut values: Vec<u64> = (0..60).map(|i| 100 + i).collect();
        values[30] -= 3;
        let trend = analyze(ResourceType::Qp, &every(1000, &values), &RULES);
        assert!(trend.leak_suspect);
        assert_eq!(
            trend.explanation.as_deref(),
            Some("+59 QPs in 59 s, one dip of 2")
        );
    }

    #[test]
    fn flat_series_are_cheap_and_zero() {
        let trend = analyze(ResourceType::Qp, &every(1000, &[7; 100]), &RULES);
        assert_eq!(trend.rate_per_min, 0.0);
        assert!(!trend.leak_suspect);
        assert_eq!(trend.current, 7);
        assert_eq!(trend.span_ms, Millis(99_000));
    }

    #[test]
    fn series_samples_evenly_and_keeps_the_last_value() {
        let values: Vec<u64> = (0..100).collect();
        let s = series(&every(1000, &values));
        assert_eq!(s.len(), SERIES_POINTS);
        assert_eq!(s.first(), Some(&0));
        assert_eq!(s.last(), Some(&99));
        assert!(s.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn words_for_people() {
        assert_eq!(span_text(Millis(45_400)), "45 s");
        assert_eq!(span_text(Millis(90_000)), "1 min 30 s");
        assert_eq!(span_text(Millis(298_000)), "5 min");
        assert_eq!(span_text(Millis(7_800_000)), "2 h 10 min");
        assert_eq!(plural(ResourceType::CmId, 2), "CM IDs");
        assert_eq!(plural(ResourceType::Ctx, 1), "context");
        assert_eq!(plural(ResourceType::Mr, 312), "MRs");
    }
}
