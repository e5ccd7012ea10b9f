//! Sparklines and the short texts of the history views: ages and signed
//! changes since the baseline.

use crate::model::Millis;
use crate::units::{bytes, duration};
use std::time::Duration;

const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// `values` (oldest first) as a line of block characters at most `width`
/// wide, right-aligned, scaled from their minimum over at least a tenth of
/// their maximum: jitter of a few objects in thousands only ripples at the
/// bottom, while real growth climbs to the top. A flat series is a flat line.
pub(crate) fn sparkline(values: &[u64], width: usize) -> String {
    if width == 0 || values.is_empty() {
        return " ".repeat(width);
    }
    let picked: Vec<u64> = if values.len() > width {
        // The last value of each of `width` equal chunks: the newest always shows.
        (1..=width)
            .filter_map(|i| values.get(i * values.len() / width - 1).copied())
            .collect()
    } else {
        values.to_vec()
    };
    let min = picked.iter().copied().min().unwrap_or(0);
    let max = picked.iter().copied().max().unwrap_or(0);
    let range = (max - min).max(max / 10).max(1);
    let line: String = picked
        .iter()
        .map(|v| {
            let level = u128::from(v - min) * 7 / u128::from(range);
            LEVELS[usize::try_from(level).unwrap_or(7).min(7)]
        })
        .collect();
    format!("{:>width$}", line)
}

/// An age in whole seconds: `0 s`, `45 s`, `2m 05s`, `1h 03m`; `≥` when it
/// is a lower bound (already so when restop started).
pub(crate) fn age_text(age: Millis, lower_bound: bool) -> String {
    let secs = age.as_secs();
    let text = if secs == 0 {
        "0 s".to_string()
    } else {
        duration(Duration::from_secs(secs))
    };
    if lower_bound {
        format!("≥{text}")
    } else {
        text
    }
}

/// A change in a count: `+12`, `-3`, `0`.
pub(crate) fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

/// A change in bytes: `+1.5 GiB`, `-4 KiB`, `0`.
pub(crate) fn signed_bytes(n: i64) -> String {
    match n {
        0 => "0".to_string(),
        n if n > 0 => format!("+{}", bytes(n.unsigned_abs())),
        n => format!("-{}", bytes(n.unsigned_abs())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparklines_scale_and_fit() {
        assert_eq!(sparkline(&[0, 7, 14], 3), "▁▄█");
        assert_eq!(sparkline(&[1000, 1010, 990], 3), "▁▂▁", "jitter ripples");
        assert_eq!(sparkline(&[100, 150, 200], 3), "▁▄█", "growth climbs");
        assert_eq!(sparkline(&[5, 5], 4), "  ▁▁");
        assert_eq!(sparkline(&(0..24).collect::<Vec<u64>>(), 8), "▁▂▃▄▅▆▇█");
        assert_eq!(sparkline(&[], 3), "   ");
        assert_eq!(sparkline(&[1, 2], 0), "");
    }

    #[test]
    fn texts() {
        assert_eq!(age_text(Millis(999), false), "0 s");
        assert_eq!(age_text(Millis(45_300), false), "45 s");
        assert_eq!(age_text(Millis(125_000), true), "≥2m 05s");
        assert_eq!(signed(12), "+12");
        assert_eq!(signed(-3), "-3");
        assert_eq!(signed(0), "0");
        assert_eq!(signed_bytes(1536 << 20), "+1.5 GiB");
        assert_eq!(signed_bytes(-4096), "-4 KiB");
    }
}
