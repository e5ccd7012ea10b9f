//! The `trends` object of a batch JSON document (docs/json.md, "Trends"):
//! growth rates and leak verdicts per owner and type, ERROR-QP ages, and the
//! alerts the history raises. A pure function of the history and the snapshot.

use super::rfc3339;
use crate::model::consumers::{Consumer, consumers};
use crate::model::error_qps::error_qps;
use crate::model::filter::Filter;
use crate::model::history::{Alert, AlertKind, History, OwnerTrend, QpKey};
use crate::model::{OwnerKey, Snapshot};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Serialize)]
pub struct TrendsView {
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
pub struct OwnerTrendView {
    /// `process`, `kernel` or `unattributed`.
    pub kind: &'static str,
    pub pid: Option<u32>,
    pub start_time: Option<u64>,
    pub name: String,
    pub leak_suspect: bool,
    pub types: BTreeMap<&'static str, TypeTrendView>,
}

#[derive(Debug, Serialize)]
pub struct TypeTrendView {
    pub current: u64,
    pub rate_per_min: f64,
    pub growth: i64,
    pub monotonicity: f64,
    pub span_s: f64,
    pub leak_suspect: bool,
    pub explanation: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ErrorQpAgeView {
    pub device: String,
    pub port: Option<u32>,
    pub lqpn: u32,
    pub state: String,
    pub pid: Option<u32>,
    pub start_time: Option<u64>,
    pub owner: String,
    pub first_seen: String,
    pub first_seen_ms: u64,
    pub age_s: f64,
    pub age_is_lower_bound: bool,
    pub previous_state: Option<String>,
    pub lingering: bool,
}

#[derive(Debug, Serialize)]
pub struct TrendWarningView {
    pub kind: &'static str,
    pub message: String,
    pub pid: Option<u32>,
    pub device: Option<String>,
    pub since: Option<String>,
}

/// The `trends` value for `snapshot` (the latest pushed into `history`),
/// under the same filters as the rest of the document.
pub fn trend_fields(history: &History, snapshot: &Snapshot, filter: &Filter) -> serde_json::Value {
    serde_json::to_value(trends_view(history, snapshot, filter)).unwrap_or(serde_json::Value::Null)
}

pub fn trends_view(history: &History, snapshot: &Snapshot, filter: &Filter) -> TrendsView {
    let now = snapshot.meta.collected_at_ms;
    let config = history.config();
    let rows = consumers(snapshot, filter);
    let owners: Vec<OwnerTrendView> = rows
        .iter()
        .filter_map(|c| {
            history
                .owner_trend_at(&c.owner, now)
                .map(|t| owner_view(c, &t))
        })
        .collect();
    let admitted: BTreeSet<&OwnerKey> = rows.iter().map(|c| &c.owner).collect();
    let linger_ms = u64::try_from(config.alerts.error_qp_linger.as_millis()).unwrap_or(u64::MAX);
    let error_qps = error_qps(snapshot, filter)
        .iter()
        .filter_map(|e| {
            let key = QpKey {
                device: e.device.clone(),
                port: e.qp.port,
                lqpn: e.qp.lqpn,
                owner: e.qp.owner.clone(),
            };
            let entry = history.error_entry(&key)?;
            let age_ms = now.saturating_sub(entry.first_seen_ms);
            let process = match &e.qp.owner {
                OwnerKey::Process(k) => Some(*k),
                _ => None,
            };
            Some(ErrorQpAgeView {
                device: e.device.clone(),
                port: e.qp.port,
                lqpn: e.qp.lqpn,
                state: e.qp.state.to_string(),
                pid: process.map(|k| k.pid),
                start_time: process.map(|k| k.start_time),
                owner: e.owner_name.clone(),
                first_seen: rfc3339::from_unix_ms(entry.first_seen_ms),
                first_seen_ms: entry.first_seen_ms,
                age_s: age_ms as f64 / 1000.0,
                age_is_lower_bound: entry.since_history_start,
                previous_state: entry.previous_state.map(|s| s.to_string()),
                lingering: age_ms >= linger_ms,
            })
        })
        .collect();
    let warnings = history
        .alerts_at(&config.alerts, now)
        .iter()
        .filter(|a| shows_alert(a, filter, &admitted))
        .map(warning_view)
        .collect();
    TrendsView {
        window_s: config.window_ms() as f64 / 1000.0,
        retention_s: config.retention_ms() as f64 / 1000.0,
        covered_s: history.covered_ms() as f64 / 1000.0,
        owners,
        error_qps,
        warnings,
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
                        span_s: tt.span_ms as f64 / 1000.0,
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

/// The same filters as the document: a `--pid` keeps only that process's
/// alerts, a `--dev` drops other devices', and a leak suspect must be a row
/// the filters admit.
fn shows_alert(alert: &Alert, filter: &Filter, admitted: &BTreeSet<&OwnerKey>) -> bool {
    if let Some(pid) = filter.pid
        && alert.owner.as_ref().and_then(OwnerKey::pid) != Some(pid)
    {
        return false;
    }
    if let Some(device) = &alert.device
        && !filter.shows_device(device)
    {
        return false;
    }
    match alert.kind {
        AlertKind::LeakSuspect => alert.owner.as_ref().is_some_and(|o| admitted.contains(o)),
        AlertKind::ErrorQpLingering | AlertKind::UnreleasedAfterExit => true,
    }
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
