//! Settings the application starts with.

use crate::model::consumers::{SortDirection, SortKey};
use crate::model::filter::Filter;
use crate::model::history::HistoryConfig;
use crate::model::owner_group::OwnerGroup;
use std::time::Duration;

/// Gauge colours follow the same thresholds as the `limit` warnings.
pub use crate::model::limits::{Level, Thresholds};

pub use crate::interactive::widgets::theme::ThemeKind;

#[derive(Clone, Debug, PartialEq)]
pub struct AppConfig {
    /// Collection interval at start.
    pub interval: Duration,
    /// Filters from the command line; the TUI's `/` filter sets `text`.
    pub filter: Filter,
    pub sort: SortKey,
    pub direction: SortDirection,
    /// The consumers table's rows at start: processes, containers or pods (`o` cycles).
    pub group: OwnerGroup,
    pub thresholds: Thresholds,
    /// Colours on; off for `NO_COLOR` / `--no-color` (only bold/reverse then).
    pub color: bool,
    /// Mouse capture on.
    pub mouse: bool,
    /// The palette (`--theme`).
    pub theme: ThemeKind,
    /// No signals to processes (`--read-only`): F9/K say so and send nothing.
    pub read_only: bool,
    /// How much history is kept, the trend window and the alert thresholds.
    pub history: HistoryConfig,
}

impl Default for AppConfig {
    fn default() -> Self {
        AppConfig {
            interval: Duration::from_secs(2),
            filter: Filter::default(),
            sort: SortKey::default(),
            direction: SortDirection::Descending,
            group: OwnerGroup::Process,
            thresholds: Thresholds::default(),
            color: true,
            mouse: true,
            theme: ThemeKind::Default,
            read_only: false,
            history: HistoryConfig::default(),
        }
    }
}

/// The direction a sort column starts in (`SortKey::natural_direction`).
pub fn default_direction(key: SortKey) -> SortDirection {
    key.natural_direction()
}

/// The intervals `+` and `-` step through.
pub const INTERVAL_STEPS_MS: [u64; 11] = [
    100, 250, 500, 1_000, 2_000, 3_000, 5_000, 10_000, 15_000, 30_000, 60_000,
];

/// The next longer interval (`+`), or the longest.
pub fn longer_interval(current: Duration) -> Duration {
    let ms = current.as_millis();
    let next = INTERVAL_STEPS_MS
        .iter()
        .copied()
        .find(|s| u128::from(*s) > ms)
        .unwrap_or(INTERVAL_STEPS_MS[INTERVAL_STEPS_MS.len() - 1]);
    Duration::from_millis(next)
}

/// The next shorter interval (`-`), or the shortest.
pub fn shorter_interval(current: Duration) -> Duration {
    let ms = current.as_millis();
    let next = INTERVAL_STEPS_MS
        .iter()
        .rev()
        .copied()
        .find(|s| u128::from(*s) < ms)
        .unwrap_or(INTERVAL_STEPS_MS[0]);
    Duration::from_millis(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_step_from_off_list_values() {
        assert_eq!(
            longer_interval(Duration::from_millis(1500)),
            Duration::from_secs(2)
        );
        assert_eq!(
            shorter_interval(Duration::from_millis(1500)),
            Duration::from_secs(1)
        );
        assert_eq!(
            shorter_interval(Duration::from_millis(100)),
            Duration::from_millis(100)
        );
        assert_eq!(
            longer_interval(Duration::from_secs(60)),
            Duration::from_secs(60)
        );
    }
}
