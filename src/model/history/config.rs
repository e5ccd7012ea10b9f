//! How much history is kept, the trend window and the alert thresholds.

use super::alerts::AlertThresholds;
use super::trend::TrendRules;
use crate::model::Millis;
use crate::model::problems::ProblemRules;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq)]
pub struct HistoryConfig {
    /// How far back points are kept.
    pub retention: Duration,
    /// The span trends and leak verdicts look at (at most `retention`).
    pub window: Duration,
    /// The shortest observation a leak verdict is given on.
    pub min_span: Duration,
    /// The smallest net growth over the window that can be a leak.
    pub min_growth: u64,
    /// Owners tracked at most.
    pub max_owners: usize,
    /// Points per series at most (the resolution is `retention / max_points`).
    pub max_points: usize,
    pub alerts: AlertThresholds,
    /// The problem rules' thresholds (`--warn`/`--crit` among them);
    /// `alerts.error_qp_linger` is their linger.
    pub problems: ProblemRules,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            retention: Duration::from_secs(600),
            window: Duration::from_secs(300),
            min_span: Duration::from_secs(60),
            min_growth: 3,
            max_owners: 512,
            max_points: 600,
            alerts: AlertThresholds::default(),
            problems: ProblemRules::default(),
        }
    }
}

impl HistoryConfig {
    pub fn retention_ms(&self) -> Millis {
        Millis::from(self.retention).max(Millis(1))
    }

    /// The trend window, never longer than what is kept.
    pub fn window_ms(&self) -> Millis {
        Millis::from(self.window).clamp(Millis(1), self.retention_ms())
    }

    pub(super) fn resolution_ms(&self) -> Millis {
        Millis((self.retention_ms().as_u64() / self.max_points.max(1) as u64).max(1))
    }

    pub fn rules(&self) -> TrendRules {
        TrendRules {
            min_span_ms: Millis::from(self.min_span).min(self.window_ms()),
            min_growth: self.min_growth,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_never_exceeds_the_retention() {
        let config = HistoryConfig {
            retention: Duration::from_secs(60),
            ..HistoryConfig::default()
        };
        assert_eq!(config.window_ms(), Millis(60_000));
        assert_eq!(config.rules().min_span_ms, Millis(60_000));
        assert_eq!(config.resolution_ms(), Millis(100));
    }
}
