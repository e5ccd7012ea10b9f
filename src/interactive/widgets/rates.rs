//! How counter rates are written: short, of bounded width, with their unit,
//! so a cell says what it counts (`12.5 GB/s`, `98.2 kp/s`, `0 p/s`).
//! Decimal (SI) prefixes, as link rates are (200 Gb/s is 25 GB/s).

/// A per-second figure with SI prefixes: `0`, `7.5`, `980`, `12.5k`, `1.2M`,
/// `345G`; at most 5 characters for any finite value below 1e18.
pub fn si(value: f64) -> String {
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
        let text = format!("{v:.1}");
        text.strip_suffix(".0").unwrap_or(&text).to_string()
    } else {
        format!("{v:.0}")
    };
    (number, pick.1)
}

/// Bytes per second: `12.5 GB/s`.
pub fn bytes_per_s(value: f64) -> String {
    let (number, prefix) = si_parts(value);
    format!("{number} {prefix}B/s")
}

/// Packets per second: `98.2 kp/s`.
pub fn packets_per_s(value: f64) -> String {
    let (number, prefix) = si_parts(value);
    format!("{number} {prefix}p/s")
}

/// Any counter's rate: `12.5k/s`.
pub fn per_s(value: f64) -> String {
    format!("{}/s", si(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_short_with_their_unit() {
        assert_eq!(si(0.0), "0");
        assert_eq!(si(-3.0), "0");
        assert_eq!(si(f64::NAN), "0");
        assert_eq!(si(0.5), "0.5");
        assert_eq!(si(7.0), "7");
        assert_eq!(si(980.4), "980");
        assert_eq!(si(12_500.0), "12.5k");
        assert_eq!(si(999_990.0), "1M");
        assert_eq!(si(345e9), "345G");
        assert_eq!(bytes_per_s(25e9), "25 GB/s");
        assert_eq!(packets_per_s(98_200.0), "98.2 kp/s");
        assert_eq!(per_s(3.0), "3/s");
    }

    #[test]
    fn every_rate_fits_nine_cells() {
        let mut v = 0.1;
        while v < 1e17 {
            assert!(bytes_per_s(v).chars().count() <= 9, "{}", bytes_per_s(v));
            assert!(
                packets_per_s(v).chars().count() <= 9,
                "{}",
                packets_per_s(v)
            );
            v *= 1.37;
        }
    }
}
