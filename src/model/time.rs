//! Time as restop records it: instants in Unix milliseconds ([`UnixMs`]) and
//! spans in milliseconds ([`Millis`]), each a distinct type so an age is
//! never passed where a point in time is wanted. Both serialize as the plain
//! number they wrap, so JSON documents and recordings keep their format.
//! [`now`] is the one reading of the wall clock.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A point in time: milliseconds since the Unix epoch (UTC).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct UnixMs(pub u64);

/// A span of time in milliseconds (an age, an interval, a window).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Millis(pub u64);

/// The wall clock now; the epoch itself if the clock is before it.
pub fn now() -> UnixMs {
    UnixMs::from_system_time(SystemTime::now())
}

impl UnixMs {
    pub(crate) fn from_system_time(t: SystemTime) -> UnixMs {
        UnixMs(
            t.duration_since(UNIX_EPOCH)
                .map_or(0, |d| Millis::from(d).0),
        )
    }

    pub fn as_u64(self) -> u64 {
        self.0
    }

    /// The time from `earlier` to this one; zero if `earlier` is later.
    pub fn since(self, earlier: UnixMs) -> Millis {
        Millis(self.0.saturating_sub(earlier.0))
    }

    pub fn plus(self, span: Millis) -> UnixMs {
        UnixMs(self.0.saturating_add(span.0))
    }

    pub fn minus(self, span: Millis) -> UnixMs {
        UnixMs(self.0.saturating_sub(span.0))
    }

    /// This instant moved by `ms` (back when negative), saturating.
    pub(crate) fn plus_signed(self, ms: i64) -> UnixMs {
        UnixMs(self.0.saturating_add_signed(ms))
    }
}

impl Millis {
    pub const ZERO: Millis = Millis(0);

    pub fn from_secs(secs: u64) -> Millis {
        Millis(secs.saturating_mul(1000))
    }

    pub fn as_u64(self) -> u64 {
        self.0
    }

    /// Whole seconds, rounded down.
    pub fn as_secs(self) -> u64 {
        self.0 / 1000
    }

    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }

    /// This span times `num / den` (a playback speed), saturating; a zero
    /// `den` counts as one.
    pub fn scale(self, num: u64, den: u64) -> Millis {
        Millis(self.0.saturating_mul(num) / den.max(1))
    }

    /// This span less `other`; zero if `other` is longer.
    pub fn saturating_sub(self, other: Millis) -> Millis {
        Millis(self.0.saturating_sub(other.0))
    }

    pub(crate) fn as_duration(self) -> Duration {
        Duration::from_millis(self.0)
    }
}

/// Whole milliseconds; a span too long for a `u64` of them is the longest one.
impl From<Duration> for Millis {
    fn from(d: Duration) -> Millis {
        Millis(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }
}

impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for UnixMs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_as_the_bare_number() {
        assert_eq!(
            serde_json::to_string(&UnixMs(1_700_000_000_123)).unwrap(),
            "1700000000123"
        );
        assert_eq!(serde_json::from_str::<UnixMs>("42").unwrap(), UnixMs(42));
        assert_eq!(serde_json::to_string(&Millis(5)).unwrap(), "5");
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(UnixMs(10).since(UnixMs(25)), Millis(0));
        assert_eq!(UnixMs(25).since(UnixMs(10)), Millis(15));
        assert_eq!(UnixMs(u64::MAX).plus(Millis(1)), UnixMs(u64::MAX));
        assert_eq!(UnixMs(1).minus(Millis(5)), UnixMs(0));
        assert_eq!(UnixMs(10).plus_signed(-25), UnixMs(0));
        assert_eq!(UnixMs(10).plus_signed(5), UnixMs(15));
        assert_eq!(Millis(1000).scale(4, 8), Millis(500));
        assert_eq!(Millis(u64::MAX).scale(4, 1), Millis(u64::MAX));
        assert_eq!(Millis(5).saturating_sub(Millis(9)), Millis::ZERO);
        assert_eq!(Millis::from_secs(3).as_secs(), 3);
        assert_eq!(Millis::from(Duration::from_micros(2500)), Millis(2));
        assert_eq!(Millis(1500).as_duration(), Duration::from_millis(1500));
    }

    #[test]
    fn now_is_after_2020_and_the_epoch_is_zero() {
        assert!(now() > UnixMs(1_577_836_800_000));
        assert_eq!(UnixMs::from_system_time(UNIX_EPOCH), UnixMs(0));
        let before = UNIX_EPOCH - Duration::from_secs(1);
        assert_eq!(UnixMs::from_system_time(before), UnixMs(0));
    }
}
