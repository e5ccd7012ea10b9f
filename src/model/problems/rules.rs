//! The thresholds of the problem rules, with defaults that raise nothing on
//! a healthy host, idle or busy (docs/user-guide.md, "Problems"; the counter
//! rates in docs/counters.md). The counter rule's own thresholds (rising
//! reads, 1/s for errors, 100/s for congestion) stay in
//! `history/counter_rates.rs`, which raises the counter alerts these escalate.

use crate::model::limits::Thresholds;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq)]
pub struct ProblemRules {
    /// `--warn`/`--crit`: where usage of a limit is a warning, a critical.
    pub limits: Thresholds,
    /// QPs in ERR/SQE younger than this are not listed (a QP moved to ERR
    /// before it is destroyed is normal teardown), unless restop found them
    /// already broken and cannot tell their age.
    pub error_qp_notice_after: Duration,
    /// `--err-linger`: from this age on, QPs in ERR/SQE are a warning.
    pub error_qp_linger: Duration,
    /// From this age on, a critical.
    pub error_qp_critical_after: Duration,
    /// An error counter rising this fast (per second) is critical.
    pub error_critical_per_s: f64,
    /// A congestion counter rising this fast (per second) is a storm: a warning.
    pub congestion_storm_per_s: f64,
    /// A process whose count rose by at least this much over the trend
    /// window, rising almost only, is a rising owner (a notice).
    pub rising_min_growth: i64,
    /// How steadily: rises against falls (`TypeTrend::monotonicity`).
    pub rising_monotonicity: f64,
    /// A RoCE port's netdev receiving (or sending) pause frames this fast,
    /// per second over every priority, is in a pause storm: a warning.
    pub pause_storm_per_s: f64,
    /// From this rate on, a critical.
    pub pause_critical_per_s: f64,
    /// A netdev discarding this many packets a second (its discard and drop
    /// counters together) is a warning.
    pub netdev_discards_per_s: f64,
}

impl Default for ProblemRules {
    fn default() -> Self {
        ProblemRules {
            limits: Thresholds::default(),
            error_qp_notice_after: Duration::from_secs(10),
            error_qp_linger: Duration::from_secs(60),
            error_qp_critical_after: Duration::from_secs(300),
            error_critical_per_s: 100.0,
            congestion_storm_per_s: 1_000.0,
            rising_min_growth: 30,
            rising_monotonicity: 0.9,
            pause_storm_per_s: 1_000.0,
            pause_critical_per_s: 10_000.0,
            netdev_discards_per_s: 1.0,
        }
    }
}
