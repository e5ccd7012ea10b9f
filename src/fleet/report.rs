//! The fleet once: the `--once` text report and the `--json` document, both pure functions of
//! a [`FleetState`] and the rules, over the same rows and lists the full-screen view reads.

use super::model::cells::{
    age_text, consumer_name, devices_text, nic_text, top_consumer_text, usage_text, value_text,
    why_text,
};
use super::model::cluster::ClusterErrorQps;
use super::model::reading::Suspect;
use super::model::{
    Consumer, ConsumerKind, FleetState, HostRow, Metric, RowRules, cluster_error_qps,
    cluster_suspects, host_rows, top_consumers,
};
use crate::model::{ResourceType, UnixMs};
use crate::units::clean;
use serde::Serialize;
use std::fmt::Write;

/// The metrics a cluster list is shown for, in order.
pub(crate) fn metrics() -> impl Iterator<Item = Metric> {
    ResourceType::ALL
        .into_iter()
        .map(Metric::Objects)
        .chain([Metric::MrBytes])
}

/// The `--json` document (docs/fleet.md).
#[derive(Debug, Serialize)]
pub(crate) struct FleetDocument {
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_at: Option<UnixMs>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_time: Option<UnixMs>,
    pub stale: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub notes: Vec<String>,
    pub hosts: Vec<HostRow>,
    /// kind (`process`, `pod`, `namespace`) → metric (`qp`, ..., `mr_bytes`) → top consumers.
    pub top_consumers: Vec<ConsumerList>,
    pub error_qps: Vec<ClusterErrorQps>,
    pub leak_suspects: Vec<Suspect>,
}

#[derive(Debug, Serialize)]
pub(crate) struct ConsumerList {
    pub kind: ConsumerKind,
    #[serde(serialize_with = "metric_name")]
    pub metric: Metric,
    pub consumers: Vec<Consumer>,
}

fn metric_name<S: serde::Serializer>(m: &Metric, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(m.name())
}

pub(crate) fn document(
    state: &FleetState,
    source: &str,
    rules: &RowRules,
    top: usize,
) -> FleetDocument {
    let Some(reading) = &state.reading else {
        return FleetDocument {
            source: source.into(),
            read_at: None,
            server_time: None,
            stale: true,
            error: state.error.clone(),
            notes: Vec::new(),
            hosts: Vec::new(),
            top_consumers: Vec::new(),
            error_qps: Vec::new(),
            leak_suspects: Vec::new(),
        };
    };
    let lists = ConsumerKind::ALL
        .into_iter()
        .flat_map(|kind| metrics().map(move |metric| (kind, metric)))
        .map(|(kind, metric)| ConsumerList {
            kind,
            metric,
            consumers: top_consumers(reading, kind, metric, top),
        })
        .filter(|l| !l.consumers.is_empty())
        .collect();
    FleetDocument {
        source: source.into(),
        read_at: Some(reading.read_at),
        server_time: reading.server_time,
        stale: state.is_stale(),
        error: state.error.clone(),
        notes: reading.notes.clone(),
        hosts: host_rows(reading, rules, state.is_stale()),
        top_consumers: lists,
        error_qps: cluster_error_qps(reading),
        leak_suspects: cluster_suspects(reading),
    }
}

/// The `--once` report.
pub(crate) fn render_once(doc: &FleetDocument) -> String {
    let mut out = String::new();
    let ok = doc
        .hosts
        .iter()
        .filter(|h| h.status.label() == "ok")
        .count();
    let _ = writeln!(
        out,
        "restop fleet: {} — {} hosts, {} ok, {} need a look{}",
        doc.source,
        doc.hosts.len(),
        ok,
        doc.hosts.len() - ok,
        if doc.stale {
            " — STALE (last good data)"
        } else {
            ""
        }
    );
    if let Some(error) = &doc.error {
        let _ = writeln!(out, "refresh failed: {error}");
    }
    for note in &doc.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out.push('\n');
    hosts_table(&mut out, &doc.hosts);
    for list in &doc.top_consumers {
        if !matches!(
            list.metric,
            Metric::Objects(ResourceType::Qp) | Metric::MrBytes
        ) {
            continue;
        }
        let _ = writeln!(
            out,
            "\nTop {} by {}",
            list.kind.plural(),
            list.metric.name()
        );
        for c in list.consumers.iter().take(5) {
            let host = if c.host.is_empty() {
                "-"
            } else {
                c.host.as_str()
            };
            let _ = writeln!(
                out,
                "  {:>10}  {:<40}  {}",
                value_text(list.metric, c.value),
                consumer_name(c),
                host
            );
        }
    }
    if !doc.error_qps.is_empty() {
        let _ = writeln!(out, "\nERROR QPs");
        for e in &doc.error_qps {
            let age = e
                .oldest_age_seconds
                .map_or(String::new(), |a| format!("  oldest {a:.0}s"));
            let _ = writeln!(out, "  {:>6}  {} {}{age}", e.count, e.host, e.device);
        }
    }
    if !doc.leak_suspects.is_empty() {
        let _ = writeln!(out, "\nLeak suspects");
        for s in &doc.leak_suspects {
            let _ = writeln!(out, "  {} {} ({}) {}", s.host, s.name, s.pid, s.rtype);
        }
    }
    out
}

fn hosts_table(out: &mut String, rows: &[HostRow]) {
    let width = rows
        .iter()
        .map(|r| r.host.len())
        .max()
        .unwrap_or(4)
        .clamp(4, 40);
    let _ = writeln!(
        out,
        "{:<7} {:<width$} {:>4} {:>22} {:>6} {:>5} {:>8} {:>6}  TOP CONSUMER / WHY",
        "STATUS", "HOST", "DEVS", "WORST USAGE", "ERRQP", "LEAKS", "NIC", "AGE",
    );
    for r in rows {
        let tail = if r.status.label() == "ok" {
            top_consumer_text(r)
        } else {
            why_text(r)
        };
        let _ = writeln!(
            out,
            "{:<7} {:<width$} {:>4} {:>22} {:>6} {:>5} {:>8} {:>6}  {}",
            r.status.label(),
            clean(&r.host),
            devices_text(r),
            usage_text(r),
            r.error_qps,
            r.leak_suspects,
            nic_text(r),
            age_text(r),
            tail
        );
    }
}
