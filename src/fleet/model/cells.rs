//! How the fleet's facts read as text: a host row's worst usage, NIC health, scrape age and top
//! consumer, a consumer's name and value. One reading for `--once` and the full-screen view, so
//! both write a fact alike.

use super::reading::{Consumer, Metric};
use super::rows::HostRow;
use crate::units::clean;

/// `96% qp mlx5_3`, or `-` when no limit is known.
pub(crate) fn usage_text(row: &HostRow) -> String {
    row.worst_usage.as_ref().map_or("-".to_string(), |u| {
        format!("{:.0}% {} {}", u.ratio * 100.0, u.rtype.name(), u.device)
    })
}

/// `1c2w0n` (critical, warning, notice problems), or `-` when there are none.
pub(crate) fn nic_text(row: &HostRow) -> String {
    if row.nic.critical + row.nic.warning + row.nic.notice == 0 {
        "-".to_string()
    } else {
        format!(
            "{}c{}w{}n",
            row.nic.critical, row.nic.warning, row.nic.notice
        )
    }
}

/// The last scrape's age in seconds (`4s`), or `-` when never scraped.
pub(crate) fn age_text(row: &HostRow) -> String {
    row.scrape_age
        .map_or("-".to_string(), |a| format!("{}s", a.0 / 1000))
}

/// The device count, or `-` when unknown.
pub(crate) fn devices_text(row: &HostRow) -> String {
    row.devices.map_or("-".to_string(), |d| d.to_string())
}

/// The owner with the most QPs: `train.py (21408) 571 qp`.
pub(crate) fn top_consumer_text(row: &HostRow) -> String {
    row.top_consumer.as_ref().map_or(String::new(), |c| {
        format!("{} {} qp", consumer_name(c), value_text(c.metric, c.value))
    })
}

/// Why a host has its status, every reason in one line.
pub(crate) fn why_text(row: &HostRow) -> String {
    clean(&row.why.join("; "))
}

/// A consumer as one name: `train.py (21408)`, `ml/llama-3`, `ml`; control characters cleaned.
pub(crate) fn consumer_name(c: &Consumer) -> String {
    let label = match (c.pod.is_empty(), c.name.is_empty()) {
        (_, false) if !c.pid.is_empty() => format!("{} ({})", c.name, c.pid),
        (_, false) => c.name.clone(),
        (false, true) => format!("{}/{}", c.namespace, c.pod),
        (true, true) => c.namespace.clone(),
    };
    clean(&label)
}

/// A consumer's value: bytes with IEC units for MR bytes, a count otherwise.
pub(crate) fn value_text(metric: Metric, value: f64) -> String {
    match metric {
        Metric::MrBytes => crate::units::bytes(value as u64),
        Metric::Objects(_) => crate::units::count(value as u64),
    }
}
