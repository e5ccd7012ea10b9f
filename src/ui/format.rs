//! Short number formats for tight columns.
// Bytes, counts and durations as the tables print them. Kept private to the
// UI so every screen writes numbers the same way.

/// IEC bytes: `512 B`, `4.0 KiB`, `1.5 GiB` (at most 9 characters).
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Counts in at most 5 characters: `812`, `12.3k`, `262k`, `1.2M`.
pub fn count(n: u64) -> String {
    if n < 10_000 {
        return n.to_string();
    }
    let (value, suffix) = if n < 1_000_000 {
        (n as f64 / 1e3, "k")
    } else if n < 1_000_000_000 {
        (n as f64 / 1e6, "M")
    } else {
        (n as f64 / 1e9, "G")
    };
    if value >= 100.0 {
        format!("{value:.0}{suffix}")
    } else {
        format!("{value:.1}{suffix}")
    }
}

/// A ratio as a whole percentage (`79%`); over-limit values stay visible.
pub fn percent(ratio: f64) -> String {
    if !ratio.is_finite() {
        return "?%".to_string();
    }
    format!("{:.0}%", (ratio * 100.0).floor())
}

/// `250ms`, `2s`, `1.5s`, `2m`, `1h`.
pub fn duration_ms(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        if ms % 1_000 == 0 {
            format!("{}s", ms / 1_000)
        } else {
            format!("{:.1}s", ms as f64 / 1_000.0)
        }
    } else if ms < 3_600_000 {
        format!("{}m", ms / 60_000)
    } else {
        format!("{}h", ms / 3_600_000)
    }
}

/// A duration given in microseconds, for collection times.
pub fn duration_us(us: u64) -> String {
    if us < 1_000 {
        format!("{us}µs")
    } else {
        duration_ms(us / 1_000)
    }
}

/// Cuts `text` to `width` characters, marking the cut with `…`.
pub fn fit(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('…');
    out
}

/// Pads (or cuts) to exactly `width` characters.
pub fn pad(text: &str, width: usize, right: bool) -> String {
    let t = fit(text, width);
    if right {
        format!("{t:>width$}")
    } else {
        format!("{t:<width$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_use_iec_units() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(4096), "4.0 KiB");
        assert_eq!(bytes(3 * 1024 * 1024 * 1024 / 2), "1.5 GiB");
        assert_eq!(bytes(500 * 1024 * 1024 * 1024), "500 GiB");
        assert!(bytes(u64::MAX).len() <= 9);
    }

    #[test]
    fn counts_stay_short() {
        assert_eq!(count(812), "812");
        assert_eq!(count(9_999), "9999");
        assert_eq!(count(12_345), "12.3k");
        assert_eq!(count(262_144), "262k");
        assert_eq!(count(1_234_567), "1.2M");
        assert!(count(u64::MAX).len() <= 6);
    }

    #[test]
    fn durations() {
        assert_eq!(duration_ms(250), "250ms");
        assert_eq!(duration_ms(2_000), "2s");
        assert_eq!(duration_ms(1_500), "1.5s");
        assert_eq!(duration_ms(120_000), "2m");
        assert_eq!(duration_us(35_000), "35ms");
    }

    #[test]
    fn percent_floors_and_shows_overflow() {
        assert_eq!(percent(0.799), "79%");
        assert_eq!(percent(1.25), "125%");
    }

    #[test]
    fn fit_marks_cuts() {
        assert_eq!(fit("train.py", 5), "trai…");
        assert_eq!(pad("ab", 4, true), "  ab");
    }
}
