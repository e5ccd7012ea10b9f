//! The `trends` object of a batch JSON document (docs/json.md, "Trends"):
//! growth rates and leak verdicts per owner and type, ERROR-QP ages, and the
//! alerts the history raises: the document's form of `History::insights`.

use super::rfc3339;
use crate::model::consumers::{Consumer, consumers};
use crate::model::error_qps::ErrorQp;
use crate::model::filter::Filter;
use crate::model::history::{Alert, ErrorAge, History, Insights, OwnerTrend};
use crate::model::{Millis, OwnerKey, Snapshot, UnixMs};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Serialize)]
pub(crate) struct TrendsView {
    /// The trend window, in seconds.
    pub window_s: f64,
    pub retention_s: f64,
    /// How much history there is (first to latest snapshot), in seconds.
    pub covered_s: f64,
    pub owners: Vec<OwnerTrendView>,
    pub error_qps: Vec<ErrorQpAgeView>,
    pub warnings: Vec<TrendWarningView>,
}

#[derive(Debug, Serialize)]
pub(crate) struct OwnerTrendView {
    /// `process`, `kernel` or `unattributed`.
    pub kind: &'static str,
    pub pid: Option<u32>,
    pub start_time: Option<u64>,
    pub name: String,
    pub leak_suspect: bool,
    pub types: BTreeMap<&'static str, TypeTrendView>,
}

#[derive(Debug, Serialize)]
pub(crate) struct TypeTrendView {
    pub current: u64,
    pub rate_per_min: f64,
    pub growth: i64,
    pub monotonicity: f64,
    pub span_s: f64,
    pub leak_suspect: bool,
    pub explanation: Option<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct ErrorQpAgeView {
    pub device: String,
    pub port: Option<u32>,
    pub lqpn: u32,
    pub state: String,
    pub pid: Option<u32>,
    pub start_time: Option<u64>,
    pub owner: String,
    pub first_seen: String,
    pub first_seen_ms: UnixMs,
    pub age_s: f64,
    pub age_is_lower_bound: bool,
    pub previous_state: Option<String>,
    pub lingering: bool,
}

#[derive(Debug, Serialize)]
pub(crate) struct TrendWarningView {
    pub kind: &'static str,
    pub message: String,
    pub pid: Option<u32>,
    pub device: Option<String>,
    pub since: Option<String>,
}

/// The `trends` value for `snapshot` (the latest pushed into `history`),
/// under the same filters as the rest of the document.
pub fn trend_fields(history: &History, snapshot: &Snapshot, filter: &Filter) -> serde_json::Value {
    let view = trends_view(&history.insights(snapshot, filter), snapshot, filter);
    serde_json::to_value(view).unwrap_or(serde_json::Value::Null)
}

/// The document's form of `insights`: owners in the order of the
/// consumers the filters admit, ERROR QPs with a known age, alerts.
pub(crate) fn trends_view(insights: &Insights, snapshot: &Snapshot, filter: &Filter) -> TrendsView {
    let owners = consumers(snapshot, filter)
        .iter()
        .filter_map(|c| insights.owner(&c.owner).map(|t| owner_view(c, t)))
        .collect();
    let error_qps = insights
        .error_qps
        .iter()
        .filter_map(|e| e.age.map(|age| error_qp_view(&e.qp, &age)))
        .collect();
    TrendsView {
        window_s: seconds(insights.window_ms),
        retention_s: seconds(insights.retention_ms),
        covered_s: seconds(insights.covered_ms),
        owners,
        error_qps,
        warnings: insights.alerts.iter().map(warning_view).collect(),
    }
}

fn seconds(span: Millis) -> f64 {
    span.as_secs_f64()
}

fn error_qp_view(e: &ErrorQp, age: &ErrorAge) -> ErrorQpAgeView {
    let process = match &e.qp.owner {
        OwnerKey::Process(k) => Some(*k),
        _ => None,
    };
    ErrorQpAgeView {
        device: e.device.clone(),
        port: e.qp.port,
        lqpn: e.qp.lqpn,
        state: e.qp.state.to_string(),
        pid: process.map(|k| k.pid),
        start_time: process.map(|k| k.start_time),
        owner: e.owner_name.clone(),
        first_seen: rfc3339::from_unix_ms(age.first_seen_ms),
        first_seen_ms: age.first_seen_ms,
        age_s: seconds(age.ms),
        age_is_lower_bound: age.lower_bound,
        previous_state: age.previous.map(|s| s.to_string()),
        lingering: age.lingering,
    }
}

fn owner_view(c: &Consumer, trend: &OwnerTrend) -> OwnerTrendView {
    let (kind, process) = match &c.owner {
        OwnerKey::Process(k) => ("process", Some(*k)),
        OwnerKey::Kernel(_) => ("kernel", None),
        OwnerKey::Unattributed => ("unattributed", None),
    };
    OwnerTrendView {
        kind,
        pid: process.map(|k| k.pid),
        start_time: process.map(|k| k.start_time),
        name: c.name.clone(),
        leak_suspect: trend.leak_suspect(),
        types: trend
            .types
            .iter()
            .map(|(t, tt)| {
                (
                    t.name(),
                    TypeTrendView {
                        current: tt.current,
                        rate_per_min: round2(tt.rate_per_min),
                        growth: tt.growth,
                        monotonicity: round2(tt.monotonicity),
                        span_s: seconds(tt.span_ms),
                        leak_suspect: tt.leak_suspect,
                        explanation: tt.explanation.clone(),
                    },
                )
            })
            .collect(),
    }
}

/// Two decimals: enough for a rate, stable to read and to diff.
fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn warning_view(alert: &Alert) -> TrendWarningView {
    TrendWarningView {
        kind: alert.kind.name(),
        message: alert.message.clone(),
        pid: alert.owner.as_ref().and_then(OwnerKey::pid),
        device: alert.device.clone(),
        since: alert.since_ms.map(rfc3339::from_unix_ms),
    }
}
