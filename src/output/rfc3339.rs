//! RFC 3339 timestamps in UTC from Unix time, for `--json` and the report
//! header. Always UTC (`Z`) so output does not depend on the host's time zone.

use crate::model::UnixMs;

/// `2026-11-29T17:00:00.123Z` from Unix milliseconds.
pub fn from_unix_ms(at: UnixMs) -> String {
    let ms = at.as_u64();
    let (date, time) = civil(ms / 1000);
    format!("{date}T{time}.{:03}Z", ms % 1000)
}

/// `2026-11-29T17:00:00Z` from Unix seconds.
pub(crate) fn from_unix_secs(secs: u64) -> String {
    let (date, time) = civil(secs);
    format!("{date}T{time}Z")
}

/// `2026-11-29 17:00:00 UTC`: the same instant, easier to read in a report.
pub(crate) fn readable_from_unix_ms(at: UnixMs) -> String {
    let (date, time) = civil(at.as_u64() / 1000);
    format!("{date} {time} UTC")
}

/// Splits Unix seconds into `YYYY-MM-DD` and `HH:MM:SS`.
fn civil(secs: u64) -> (String, String) {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!("{:02}:{:02}:{:02}", rem / 3600, (rem % 3600) / 60, rem % 60),
    )
}

/// Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, restricted to dates after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // Shift the epoch to 0000-03-01 so leap days fall at the end of a year.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097; // day of era, 0..=146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // 0..=399
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // 0..=365
    let mp = (5 * doy + 2) / 153; // month from March, 0..=11
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: u64 = 86_400;

    #[test]
    fn epoch() {
        assert_eq!(from_unix_ms(UnixMs(0)), "1970-01-01T00:00:00.000Z");
        assert_eq!(from_unix_secs(0), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn milliseconds_are_zero_padded() {
        assert_eq!(
            from_unix_ms(UnixMs(1_795_971_600_123)),
            "2026-11-29T17:00:00.123Z"
        );
        assert_eq!(
            from_unix_ms(UnixMs(1_795_971_600_007)),
            "2026-11-29T17:00:00.007Z"
        );
    }

    #[test]
    fn leap_day_of_a_leap_year() {
        // 2024-02-29 is day 19782 since the epoch.
        assert_eq!(from_unix_secs(19_782 * DAY), "2024-02-29T00:00:00Z");
        assert_eq!(from_unix_secs(19_783 * DAY - 1), "2024-02-29T23:59:59Z");
        assert_eq!(from_unix_secs(19_783 * DAY), "2024-03-01T00:00:00Z");
    }

    #[test]
    fn century_rules() {
        // 2000 is a leap year (divisible by 400): 2000-02-29 is day 11016.
        assert_eq!(from_unix_secs(11_016 * DAY), "2000-02-29T00:00:00Z");
        // 2100 is not: the day after 2100-02-28 is 2100-03-01.
        assert_eq!(from_unix_secs(47_540 * DAY), "2100-02-28T00:00:00Z");
        assert_eq!(from_unix_secs(47_541 * DAY), "2100-03-01T00:00:00Z");
    }

    #[test]
    fn year_boundaries() {
        assert_eq!(from_unix_secs(1_704_067_199), "2023-12-31T23:59:59Z");
        assert_eq!(from_unix_secs(1_704_067_200), "2024-01-01T00:00:00Z");
        // 2024 has 366 days.
        assert_eq!(
            from_unix_secs(1_704_067_200 + 366 * DAY),
            "2025-01-01T00:00:00Z"
        );
    }

    #[test]
    fn readable_form() {
        assert_eq!(
            readable_from_unix_ms(UnixMs(1_795_971_600_123)),
            "2026-11-29 17:00:00 UTC"
        );
    }

    #[test]
    fn far_future_does_not_panic() {
        let _ = from_unix_ms(UnixMs(u64::MAX));
    }
}
