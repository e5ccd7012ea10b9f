//! The counter keys of a port in the `--json` document (docs/json.md,
//! "Port counters"): totals and rates under the kernel's names, the derived
//! throughput and the error/congestion counters that moved.

use super::view::OrderedMap;
use crate::model::counters::PortCounters;
use crate::model::{Port, UnixMs};
use serde::Serialize;

/// Flattened into each port; every key is present (`null`/empty when the
/// port has no counters), so readers need no existence checks.
#[derive(Debug, Default, Serialize)]
pub struct PortCountersView {
    /// Driver counters by kernel name (`rdma -j statistic show` keys).
    pub counters: OrderedMap<u64>,
    /// `netlink`, `sysfs` or `demo`: where `counters` came from.
    pub counters_source: Option<&'static str>,
    /// sysfs `counters/` (PMA) by file name, raw values.
    pub sysfs_counters: OrderedMap<u64>,
    /// Unix ms of the read the totals come from.
    pub counters_read_at_ms: Option<UnixMs>,
    /// Per second since the previous read; `null` on the first read.
    pub rates: Option<OrderedMap<f64>>,
    pub sysfs_rates: Option<OrderedMap<f64>>,
    /// Seconds between the two reads the rates come from.
    pub rates_interval_s: Option<f64>,
    /// Counters that went down since the previous read (no rate for them).
    pub counter_resets: Vec<String>,
    pub link_rate: Option<String>,
    pub link_rate_mbps: Option<u64>,
    pub throughput: Option<ThroughputView>,
    /// Error and congestion counters that rose since the previous read.
    pub health: Vec<String>,
    /// Why counters or rates are missing, in words.
    pub counter_notes: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct ThroughputView {
    pub tx_bytes_per_s: Option<f64>,
    pub rx_bytes_per_s: Option<f64>,
    pub tx_packets_per_s: Option<f64>,
    pub rx_packets_per_s: Option<f64>,
    /// Busier direction's bits/s over the link rate, 0..1.
    pub utilisation: Option<f64>,
}

pub fn port_counters(port: &Port) -> PortCountersView {
    match &port.counters {
        Some(c) => view(c),
        None => PortCountersView {
            counter_notes: vec!["counters were not read".to_string()],
            ..PortCountersView::default()
        },
    }
}

fn totals(map: &std::collections::BTreeMap<String, u64>) -> OrderedMap<u64> {
    OrderedMap(map.iter().map(|(k, v)| (k.clone(), *v)).collect())
}

fn per_second(map: &std::collections::BTreeMap<String, f64>) -> OrderedMap<f64> {
    OrderedMap(map.iter().map(|(k, v)| (k.clone(), *v)).collect())
}

fn view(c: &PortCounters) -> PortCountersView {
    let rates = c.rates();
    let mut notes = c.notes.clone();
    if c.previous.is_none() {
        notes.push("first read: totals only, rates from the next read on".to_string());
    }
    if let Some(note) = rates.as_ref().and_then(|r| r.note.clone()) {
        notes.push(note);
    }
    let comparable = rates.as_ref().filter(|r| r.note.is_none());
    PortCountersView {
        counters: totals(&c.read.hw),
        counters_source: c.source.map(|s| s.name()),
        sysfs_counters: totals(&c.read.pma),
        counters_read_at_ms: Some(c.read.at_ms),
        rates: comparable.map(|r| per_second(&r.hw)),
        sysfs_rates: comparable.map(|r| per_second(&r.pma)),
        rates_interval_s: comparable.map(|r| r.interval_s),
        counter_resets: rates.as_ref().map(|r| r.resets.clone()).unwrap_or_default(),
        link_rate: c.link_rate.clone(),
        link_rate_mbps: c.link_rate_mbps,
        throughput: comparable.map(|_| {
            let t = c.throughput().unwrap_or_default();
            ThroughputView {
                tx_bytes_per_s: t.tx_bytes,
                rx_bytes_per_s: t.rx_bytes,
                tx_packets_per_s: t.tx_packets,
                rx_packets_per_s: t.rx_packets,
                utilisation: t.utilisation,
            }
        }),
        health: c.moved(),
        counter_notes: notes,
    }
}
