//! What the interactive view starts with: its reading of the settings
//! groups it shows (source interval, filters, report, interactive, trends),
//! built in one place from [`Settings`]. Every default is the settings' own:
//! `AppConfig::default()` is what a run with no options and no config file
//! starts with. It sits beside `app/`, not inside it, because the screens
//! read it too and must not name the application (`walls.rs`).

use crate::model::consumers::{SortDirection, SortKey};
use crate::model::filter::Filter;
use crate::model::history::HistoryConfig;
use crate::model::owner_group::OwnerGroup;
use crate::settings::Settings;
use std::time::Duration;

/// Gauge colours follow the same thresholds as the `limit` warnings.
pub use crate::model::limits::{Level, Thresholds};
pub use crate::settings::ThemeKind;

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
    /// Draw with ASCII only (`--ascii`, a non-UTF-8 locale).
    pub ascii: bool,
    /// How much history is kept, the trend window and the alert thresholds.
    pub history: HistoryConfig,
    /// `--record FILE`: the header says the recording runs, with the file's size.
    pub record: Option<std::path::PathBuf>,
}

impl AppConfig {
    /// The view's start from the settings' source, filter, report,
    /// interactive and trends groups.
    pub fn new(settings: &Settings) -> AppConfig {
        let Settings {
            source,
            filter,
            report,
            interactive,
            trends,
            ..
        } = settings;
        AppConfig {
            interval: source.interval,
            filter: filter.clone(),
            sort: report.sort,
            direction: report.direction,
            group: report.group,
            thresholds: report.thresholds,
            color: interactive.color,
            mouse: interactive.mouse,
            theme: interactive.theme,
            read_only: interactive.read_only,
            ascii: interactive.ascii,
            history: trends.clone(),
            record: settings.record.clone(),
        }
    }
}

impl Default for AppConfig {
    /// The settings' defaults, not a copy of them.
    fn default() -> Self {
        AppConfig::new(&Settings::default())
    }
}

/// The direction a sort column starts in (`SortKey::natural_direction`).
pub(crate) fn default_direction(key: SortKey) -> SortDirection {
    key.natural_direction()
}

/// The intervals `+` and `-` step through.
pub(crate) const INTERVAL_STEPS_MS: [u64; 11] = [
    100, 250, 500, 1_000, 2_000, 3_000, 5_000, 10_000, 15_000, 30_000, 60_000,
];

/// The next longer interval (`+`), or the longest.
pub(crate) fn longer_interval(current: Duration) -> Duration {
    let ms = current.as_millis();
    let next = INTERVAL_STEPS_MS
        .iter()
        .copied()
        .find(|s| u128::from(*s) > ms)
        .unwrap_or(INTERVAL_STEPS_MS[INTERVAL_STEPS_MS.len() - 1]);
    Duration::from_millis(next)
}

/// The next shorter interval (`-`), or the shortest.
pub(crate) fn shorter_interval(current: Duration) -> Duration {
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
    fn the_defaults_are_the_settings_defaults() {
        let settings = Settings::default();
        let config = AppConfig::default();
        assert_eq!(config.interval, crate::settings::DEFAULT_INTERVAL);
        assert_eq!(config.interval, settings.source.interval);
        assert_eq!(config.history, settings.trends);
        assert_eq!(config.sort, settings.report.sort);
        assert_eq!(config.group, settings.report.group);
        assert_eq!(config.theme, settings.interactive.theme);
    }

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
