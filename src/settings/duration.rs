//! Durations as people type them: what Prometheus accepts (`1m30s`, `500ms`,
//! `2s`, `1h`, `1d`), plus a bare number of seconds (`1.5`). One parser for the
//! command line and the config file, so both accept and refuse the same text.

use std::time::Duration;

/// The forms every duration error lists.
pub(crate) const DURATION_FORMS: &str = "e.g. 500ms, 2s, 1m30s, 1h, 1.5 (seconds)";

/// Below a millisecond the kernel cannot even answer.
const MIN_SECONDS: f64 = 0.001;
/// Above a day is a typo (and would overflow nothing useful).
const MAX_SECONDS: f64 = 86_400.0;

/// Parses one duration; it must be at least 1ms and at most 24h.
///
/// A duration is one or more `<number><unit>` parts (`1h30m`, `1m 30s`), each
/// unit at most once and from the largest down, or a bare number of seconds.
/// Units: `ms`, `s` (`sec`, `secs`), `m` (`min`), `h`, `d`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    if trimmed.starts_with('-') {
        return Err(not_positive(text));
    }
    let parts = split_parts(trimmed).ok_or_else(|| invalid(text))?;
    let mut seconds = 0.0;
    let mut last_rank = usize::MAX;
    for (number, unit) in &parts {
        let value: f64 = number.parse().map_err(|_| invalid(text))?;
        let (rank, per_unit) = match (unit.as_str(), parts.len()) {
            ("", 1) => (0, 1.0),
            ("", _) => return Err(invalid(text)),
            (unit, _) => unit_seconds(unit).ok_or_else(|| invalid(text))?,
        };
        // `30s1m` or `1s2s` is a slip of the fingers, not a duration.
        if rank >= last_rank && parts.len() > 1 {
            return Err(invalid(text));
        }
        last_rank = rank;
        seconds += value * per_unit;
    }
    if !seconds.is_finite() {
        return Err(invalid(text));
    }
    if seconds <= 0.0 {
        return Err(not_positive(text));
    }
    if seconds < MIN_SECONDS {
        return Err(format!(
            "invalid duration {text:?}: must be at least 1ms ({DURATION_FORMS})"
        ));
    }
    if seconds > MAX_SECONDS {
        return Err(format!(
            "invalid duration {text:?}: must be at most 24h ({DURATION_FORMS})"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Parses a point in time from a start (`--demo-at`): a duration as
/// [`parse_duration`] reads it, or zero (`0s`, `0`, `0m`), the start itself.
pub fn parse_offset(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    let zero = !trimmed.starts_with('-')
        && split_parts(trimmed).is_some_and(|parts| {
            parts.iter().all(|(number, unit)| {
                number.parse::<f64>() == Ok(0.0)
                    && (unit.is_empty() || unit_seconds(unit).is_some())
            })
        });
    if zero {
        return Ok(Duration::ZERO);
    }
    parse_duration(text).map_err(|e| e.replace("greater than zero", "zero or more"))
}

/// Splits `1m 30s` into `[("1", "m"), ("30", "s")]`; `None` when some part
/// has no number.
fn split_parts(text: &str) -> Option<Vec<(String, String)>> {
    let mut parts = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if number_end == 0 {
            return None;
        }
        let (number, after) = rest.split_at(number_end);
        let after = after.trim_start();
        let unit_end = after
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_end);
        parts.push((number.to_string(), unit.to_ascii_lowercase()));
        rest = after.trim_start();
    }
    if parts.is_empty() { None } else { Some(parts) }
}

/// A unit's rank (larger units rank higher) and its length in seconds.
fn unit_seconds(unit: &str) -> Option<(usize, f64)> {
    match unit {
        "ms" => Some((1, 0.001)),
        "s" | "sec" | "secs" => Some((2, 1.0)),
        "m" | "min" => Some((3, 60.0)),
        "h" => Some((4, 3600.0)),
        "d" => Some((5, 86_400.0)),
        _ => None,
    }
}

fn invalid(text: &str) -> String {
    format!("invalid duration {text:?}: expected a number and a unit, {DURATION_FORMS}")
}

fn not_positive(text: &str) -> String {
    format!("invalid duration {text:?}: must be greater than zero ({DURATION_FORMS})")
}

/// The shortest text `parse_duration` reads back as `d` (whole
/// milliseconds): `2s`, `1m30s`, `500ms`.
pub fn format_duration(d: Duration) -> String {
    let mut ms = d.as_millis();
    if ms == 0 {
        return "0s".to_string();
    }
    let mut out = String::new();
    for (unit, size) in [("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1)] {
        if ms >= size {
            out.push_str(&format!("{}{unit}", ms / size));
            ms %= size;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offset_may_be_zero_but_not_negative() {
        for zero in ["0", "0s", "0m", " 0ms ", "0.0s"] {
            assert_eq!(parse_offset(zero), Ok(Duration::ZERO), "{zero}");
        }
        assert_eq!(parse_offset("44s"), Ok(Duration::from_secs(44)));
        assert_eq!(parse_offset("10m"), Ok(Duration::from_secs(600)));
        for bad in ["-1s", "-0s", "x", "0x", ""] {
            assert!(parse_offset(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_with_units() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration(" 250 ms "), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("2S"), Ok(Duration::from_secs(2)));
    }

    #[test]
    fn prometheus_style_compound_durations() {
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("1m 30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1s500ms"), Ok(Duration::from_millis(1500)));
        assert_eq!(
            parse_duration("2h45m10s"),
            Ok(Duration::from_secs(2 * 3600 + 45 * 60 + 10))
        );
    }

    #[test]
    fn compound_durations_go_from_large_to_small_units() {
        for bad in ["30s1m", "1s2s", "1m30", "30 1m"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("500ms"), "{bad}: {err}");
        }
    }

    #[test]
    fn durations_must_be_positive() {
        for bad in ["0", "0s", "0.0", "-1", "-2s", "0ms", "0m0s"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("greater than zero"), "{bad}: {err}");
        }
    }

    #[test]
    fn durations_reject_garbage() {
        for bad in [
            "", "fast", "2x", "1..5", "s", "1.5.2s", "nan", "inf", "2 s s", "1e3s",
        ] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("500ms"), "{bad}: {err}");
        }
    }

    #[test]
    fn durations_have_sane_bounds() {
        assert!(parse_duration("0.0001").is_err());
        assert!(parse_duration("25h").is_err());
        assert!(parse_duration("1d1s").is_err());
        assert!(parse_duration("1e400").is_err());
        let huge = format!("{}s", "9".repeat(400));
        assert!(parse_duration(&huge).is_err());
    }

    #[test]
    fn formatting_reads_back() {
        for d in [
            Duration::from_millis(500),
            Duration::from_secs(2),
            Duration::from_secs(90),
            Duration::from_secs(15),
            Duration::from_millis(3_601_001),
        ] {
            assert_eq!(parse_duration(&format_duration(d)), Ok(d), "{d:?}");
        }
        assert_eq!(format_duration(Duration::from_secs(90)), "1m30s");
        assert_eq!(format_duration(Duration::from_secs(15)), "15s");
    }
}
