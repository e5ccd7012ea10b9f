//! Simulated time. The demo never reads the wall clock: every snapshot's time
//! follows from the number of collections and the step, so runs replay exactly.

use crate::model::UnixMs;

/// The simulation starts at 2026-01-01T00:00:00Z (Unix milliseconds).
pub(super) const EPOCH_MS: u64 = 1_767_225_600_000;

/// The simulated host booted 13 days and 4 hours before the epoch.
const BOOT_MS: u64 = EPOCH_MS - (13 * 24 + 4) * 3_600_000;

/// `USER_HZ`: `/proc/<pid>/stat` start times are in these ticks since boot.
const CLOCK_TICKS_PER_SEC: u64 = 100;

/// A moment in simulated time, in milliseconds relative to the epoch
/// (negative for processes that were already running when the demo starts).
pub(super) type SimMs = i64;

/// Unix milliseconds of a simulated moment.
pub(super) fn unix_ms(at: SimMs) -> UnixMs {
    UnixMs(EPOCH_MS.saturating_add_signed(at))
}

/// `starttime` as `/proc/<pid>/stat` reports it for a process started at `at`.
pub(super) fn start_ticks(at: SimMs) -> u64 {
    unix_ms(at).as_u64().saturating_sub(BOOT_MS) / (1000 / CLOCK_TICKS_PER_SEC)
}

/// Start time in seconds since the Unix epoch, as `ProcessInfo::started_at` holds it.
pub(super) fn started_at_secs(at: SimMs) -> u64 {
    unix_ms(at).as_u64() / 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_is_new_year_2026() {
        // 56 years of 365 days plus 14 leap days since 1970.
        assert_eq!(EPOCH_MS / 1000, (56 * 365 + 14) * 86_400);
    }

    #[test]
    fn start_ticks_count_from_boot() {
        assert_eq!(start_ticks(0), (13 * 24 + 4) * 3_600 * 100);
        assert_eq!(start_ticks(1_500) - start_ticks(0), 150);
        assert!(start_ticks(-60_000) < start_ticks(0));
    }
}
