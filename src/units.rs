//! How numbers are written for people: byte sizes, counts, percentages and
//! durations. Shared by the `--once` report and the interactive view so the
//! same quantity always reads the same way.
//!
//! Every formatter keeps its output short and of bounded width so tables can
//! size their columns without measuring every possible value:
//! - [`bytes`]: at most 8 characters (`1023 KiB`, `99.5 GiB`, `512 B`);
//! - [`count`]: at most 6 characters (exact up to 999999, then `1.2M`, `16.8M`, `345M`, `1.0G`);
//! - [`percent`]: at most 5 characters for ratios up to 9.99 (`<0.1%`, `0.8%`, `42%`);
//! - [`duration`]: `450 µs`, `2.5 ms`, `12 ms`, `1.5 s`, `2m 05s`;
//! - rates ([`bytes_per_s`], [`bits_per_s`], [`packets_per_s`], [`per_s`]):
//!   at most 9 characters (`12.5 GB/s`, `100 Gb/s`, `98.2 kp/s`, `12.5k/s`).
//!
//! One unit convention for rates everywhere (docs/counters.md, "Units"):
//! decimal (SI) prefixes, bytes per second for traffic and bits per second
//! against the link rate, as link rates are written (200 Gb/s is 25 GB/s).
//! Sizes of memory (MR bytes) stay in IEC units (`bytes`). Every front end
//! writes a rate through these functions, so `--once --rates` and the live
//! view say `11.1 GB/s` for the same port.

use std::time::Duration;

const IEC_UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

/// A byte size in IEC units: `512 B`, `4 KiB`, `1.5 GiB`, `123 MiB`.
///
/// One decimal below 100 of a unit (dropped when it is `.0`), whole numbers
/// from 100 up; a value that would round to 1024 moves to the next unit.
pub(crate) fn bytes(n: u64) -> String {
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < IEC_UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    // 1023.97 KiB would print as "1024 KiB": show it as the next unit instead.
    if value.round() >= 1024.0 && unit + 1 < IEC_UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{} {}", one_decimal_below_100(value), IEC_UNITS[unit])
}

/// An object count: exact up to 999999 (it fits, and operators compare exact
/// numbers against limits), then one decimal below 100 of a unit (`1.2M`,
/// `16.8M`) and whole numbers above (`345M`), with SI suffixes M, G, T, P, E.
pub(crate) fn count(n: u64) -> String {
    if n < 1_000_000 {
        return n.to_string();
    }
    const SCALES: [(f64, &str); 5] = [
        (1e6, "M"),
        (1e9, "G"),
        (1e12, "T"),
        (1e15, "P"),
        (1e18, "E"),
    ];
    let n = n as f64;
    let mut pick = SCALES[0];
    for scale in SCALES {
        // Move up when the value would print as 1000 or more of this suffix
        // (999.6M is "1.0G", not "1000M").
        if n >= scale.0 * 0.9995 {
            pick = scale;
        }
    }
    let value = n / pick.0;
    if value < 99.95 {
        format!("{value:.1}{}", pick.1)
    } else {
        format!("{value:.0}{}", pick.1)
    }
}

/// A ratio (0.0 = 0%, 1.0 = 100%) as a percentage.
///
/// One decimal below 10%, whole numbers above. Never rounds a non-zero value
/// to `0%` (it is `<0.1%`) nor a value below the limit to `100%` (it is `99%`),
/// so "empty" and "full" are only printed when they are true.
pub(crate) fn percent(ratio: f64) -> String {
    if !ratio.is_finite() || ratio <= 0.0 {
        return "0%".to_string();
    }
    let pct = ratio * 100.0;
    if pct < 0.05 {
        return "<0.1%".to_string();
    }
    if pct < 9.95 {
        return format!("{pct:.1}%");
    }
    if ratio < 1.0 && pct.round() >= 100.0 {
        return "99%".to_string();
    }
    format!("{pct:.0}%")
}

/// A duration: `450 µs`, `2.5 ms`, `12 ms`, `1.5 s`, `12 s`, `2m 05s`, `3h 07m`.
pub(crate) fn duration(d: Duration) -> String {
    let us = d.as_micros();
    if us < 1_000 {
        return format!("{us} µs");
    }
    let ms = us as f64 / 1_000.0;
    if ms < 999.5 {
        return format!("{} ms", one_decimal_below_10(ms));
    }
    let secs = us as f64 / 1_000_000.0;
    if secs < 59.95 {
        return format!("{} s", one_decimal_below_10(secs));
    }
    let whole = d.as_secs() + u64::from(d.subsec_millis() >= 500);
    if whole < 3600 {
        return format!("{}m {:02}s", whole / 60, whole % 60);
    }
    format!("{}h {:02}m", whole / 3600, (whole % 3600) / 60)
}

fn one_decimal_below_100(value: f64) -> String {
    if value < 99.95 {
        trim_zero_decimal(format!("{value:.1}"))
    } else {
        format!("{value:.0}")
    }
}

fn one_decimal_below_10(value: f64) -> String {
    if value < 9.95 {
        trim_zero_decimal(format!("{value:.1}"))
    } else {
        format!("{value:.0}")
    }
}

/// `4.0` reads better as `4` (page sizes, whole seconds).
fn trim_zero_decimal(text: String) -> String {
    match text.strip_suffix(".0") {
        Some(whole) => whole.to_string(),
        None => text,
    }
}

/// A per-second figure with SI prefixes: `0`, `7.5`, `980`, `12.5k`, `1.2M`,
/// `345G`; at most 5 characters for any finite value below 1e18.
pub(crate) fn si(value: f64) -> String {
    let (number, prefix) = si_parts(value);
    format!("{number}{prefix}")
}

/// The number and its prefix apart: (`12.5`, `k`).
fn si_parts(value: f64) -> (String, &'static str) {
    if !value.is_finite() || value <= 0.0 {
        return ("0".to_string(), "");
    }
    const SCALES: [(f64, &str); 6] = [
        (1.0, ""),
        (1e3, "k"),
        (1e6, "M"),
        (1e9, "G"),
        (1e12, "T"),
        (1e15, "P"),
    ];
    let mut pick = SCALES[0];
    for scale in SCALES {
        // 999.96k is "1M", not "1000k".
        if value >= scale.0 * 0.9995 {
            pick = scale;
        }
    }
    let v = value / pick.0;
    let number = if pick.1.is_empty() && v >= 9.95 {
        format!("{v:.0}")
    } else if v < 99.95 {
        trim_zero_decimal(format!("{v:.1}"))
    } else {
        format!("{v:.0}")
    };
    (number, pick.1)
}

/// Bytes per second, decimal: `12.5 GB/s`.
pub(crate) fn bytes_per_s(value: f64) -> String {
    let (number, prefix) = si_parts(value);
    format!("{number} {prefix}B/s")
}

/// Bits per second, decimal, as link rates are written: `100 Gb/s`.
#[cfg(test)]
pub(crate) fn bits_per_s(value: f64) -> String {
    let (number, prefix) = si_parts(value);
    format!("{number} {prefix}b/s")
}

/// Packets per second: `98.2 kp/s`.
pub(crate) fn packets_per_s(value: f64) -> String {
    let (number, prefix) = si_parts(value);
    format!("{number} {prefix}p/s")
}

/// Any counter's rate: `12.5k/s`.
pub(crate) fn per_s(value: f64) -> String {
    format!("{}/s", si(value))
}

/// Replaces control characters (a process can put anything in its comm or
/// command line) so they cannot move the cursor or break a line.
pub(crate) fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// Cuts `text` to at most `width` characters, marking the cut with `…`.
/// Shared by the report and the interactive view so both cut names alike.
pub(crate) fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_use_iec_units() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1024), "1 KiB");
        assert_eq!(bytes(4096), "4 KiB");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(3 * 1024 * 1024 / 2 * 1024), "1.5 GiB");
        assert_eq!(bytes(150 * 1024 * 1024), "150 MiB");
        assert_eq!(bytes(99 * 1024 + 1000), "100 KiB");
    }

    #[test]
    fn bytes_never_print_1024_of_a_unit() {
        assert_eq!(bytes(1024 * 1024 - 1), "1 MiB");
        assert_eq!(bytes(1023 * 1024), "1023 KiB");
    }

    #[test]
    fn bytes_stay_within_eight_characters() {
        let mut n = 1u64;
        while n < u64::MAX / 3 {
            for m in [n, n * 3 - 1, n * 2 - 1] {
                assert!(bytes(m).chars().count() <= 8, "{m} -> {}", bytes(m));
            }
            n *= 2;
        }
        assert_eq!(bytes(u64::MAX), "16 EiB");
    }

    #[test]
    fn counts_are_exact_up_to_six_digits() {
        assert_eq!(count(0), "0");
        assert_eq!(count(131072), "131072");
        assert_eq!(count(999_999), "999999");
        assert_eq!(count(1_000_000), "1.0M");
        assert_eq!(count(1_250_000), "1.2M");
        assert_eq!(count(16_777_216), "16.8M");
        assert_eq!(count(345_000_000), "345M");
        assert_eq!(count(999_600_000), "1.0G");
        assert_eq!(count(2_000_000_000_000), "2.0T");
        assert!(count(u64::MAX).chars().count() <= 6);
    }

    #[test]
    fn percentages_never_lie_about_empty_or_full() {
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(0.000_01), "<0.1%");
        assert_eq!(percent(1024.0 / 131072.0), "0.8%");
        assert_eq!(percent(0.42), "42%");
        assert_eq!(percent(0.9999), "99%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(1.5), "150%");
        assert_eq!(percent(f64::NAN), "0%");
    }

    #[test]
    fn rates_are_decimal_with_their_unit() {
        assert_eq!(si(0.0), "0");
        assert_eq!(si(-3.0), "0");
        assert_eq!(si(f64::NAN), "0");
        assert_eq!(si(0.5), "0.5");
        assert_eq!(si(7.0), "7");
        assert_eq!(si(980.4), "980");
        assert_eq!(si(12_500.0), "12.5k");
        assert_eq!(si(999_990.0), "1M");
        assert_eq!(si(345e9), "345G");
        assert_eq!(bytes_per_s(11.1e9), "11.1 GB/s");
        assert_eq!(bytes_per_s(25e9), "25 GB/s");
        assert_eq!(bits_per_s(200e9), "200 Gb/s");
        assert_eq!(packets_per_s(98_200.0), "98.2 kp/s");
        assert_eq!(per_s(180.0), "180/s");
        assert_eq!(per_s(3.0), "3/s");
        let mut v = 0.1;
        while v < 1e17 {
            for text in [bytes_per_s(v), bits_per_s(v), packets_per_s(v)] {
                assert!(text.chars().count() <= 9, "{text}");
            }
            v *= 1.37;
        }
    }

    #[test]
    fn durations_pick_a_readable_unit() {
        assert_eq!(duration(Duration::from_micros(450)), "450 µs");
        assert_eq!(duration(Duration::from_micros(2_500)), "2.5 ms");
        assert_eq!(duration(Duration::from_millis(12)), "12 ms");
        assert_eq!(duration(Duration::from_millis(1_500)), "1.5 s");
        assert_eq!(duration(Duration::from_secs(2)), "2 s");
        assert_eq!(duration(Duration::from_secs(12)), "12 s");
        assert_eq!(duration(Duration::from_secs(125)), "2m 05s");
        assert_eq!(duration(Duration::from_secs(3 * 3600 + 7 * 60)), "3h 07m");
    }
}
