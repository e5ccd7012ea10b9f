//! The counter keys of a port in the `--json` document (docs/json.md,
//! "Port counters"): totals and rates under the kernel's names, the derived
//! throughput and the error/congestion counters that moved.
//!
//! The `--once` report's COUNTERS section is `output/text/port_counters.rs`:
//! the same reading of a port's counters in the other format, hence the same
//! name (as `interactive/rows/port_counters.rs` is the full-screen view's).

use super::document::OrderedMap;
use crate::model::counters::PortCounters;
use crate::model::counters::bound::{BoundCounter, counter_owner, qp_owner};
use crate::model::counters::netdev::NetdevCounters;
use crate::model::{Device, OwnerKey, Port, ReportedOwner, Snapshot, UnixMs};
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
    /// Counters an admin bound QPs of this port to (`rdma statistic qp show`).
    pub bound_counters: Vec<BoundCounterView>,
    /// Why `bound_counters` could not be read; `null` when they were (an
    /// empty list then means nothing is bound).
    pub bound_counters_note: Option<String>,
    /// The port's netdev and its Ethernet counters; `null` where the port
    /// has none (InfiniBand) or counters were not read.
    pub netdev_counters: Option<NetdevView>,
}

/// A port's netdev (docs/json.md, "The netdev of a port").
#[derive(Debug, Serialize)]
pub struct NetdevView {
    pub name: String,
    pub ifindex: Option<u32>,
    pub read_at_ms: Option<UnixMs>,
    /// `/sys/class/net/<netdev>/statistics/`, by file name.
    pub statistics: OrderedMap<u64>,
    pub carrier_changes: Option<u64>,
    /// The standard ethtool groups (`pause.rx_frames`, `eth-mac.<name>`, ...).
    pub standard: OrderedMap<u64>,
    /// The driver's `ethtool -S`, by name.
    pub driver: OrderedMap<u64>,
    /// Every pause counter: direction, priority (`0`-`7` or `global`), total.
    pub pause: Vec<PauseView>,
    /// What moved since the previous read; `null` on the first read.
    pub health: Option<NetdevHealthView>,
    /// What is not available, in words.
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct PauseView {
    pub direction: &'static str,
    pub priority: String,
    pub frames: u64,
    pub counter: String,
}

#[derive(Debug, Serialize)]
pub struct NetdevHealthView {
    pub interval_s: f64,
    pub rx_pause_per_s: f64,
    pub tx_pause_per_s: f64,
    /// Pause frames per second by priority and direction, only those that moved.
    pub pause_per_s: Vec<PauseRateView>,
    /// Discard and drop counters that rose, per second.
    pub discards_per_s: OrderedMap<f64>,
    /// Error counters that rose, per second.
    pub errors_per_s: OrderedMap<f64>,
    /// Carrier changes since the previous read (a flap is two).
    pub carrier_changes: u64,
    pub resets: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct PauseRateView {
    pub direction: &'static str,
    pub priority: String,
    pub per_s: f64,
}

fn direction(d: crate::model::counters::Direction) -> &'static str {
    match d {
        crate::model::counters::Direction::Rx => "rx",
        crate::model::counters::Direction::Tx => "tx",
    }
}

pub(super) fn netdev_view(n: &NetdevCounters) -> NetdevView {
    let has_read = !n.read.stats.is_empty() || n.read.carrier_changes.is_some();
    NetdevView {
        name: n.name.clone(),
        ifindex: n.ifindex,
        read_at_ms: has_read.then_some(n.read.at_ms),
        statistics: totals(&n.read.stats),
        carrier_changes: n.read.carrier_changes,
        standard: totals(&n.read.standard),
        driver: totals(&n.read.driver),
        pause: n
            .read
            .pause()
            .into_iter()
            .map(|c| PauseView {
                direction: direction(c.direction),
                priority: c.priority.label(),
                frames: c.frames,
                counter: c.counter,
            })
            .collect(),
        health: n.health().map(|h| NetdevHealthView {
            interval_s: h.interval_s,
            rx_pause_per_s: h.rx_pause_per_s,
            tx_pause_per_s: h.tx_pause_per_s,
            pause_per_s: h
                .pause
                .iter()
                .map(|(p, d, r)| PauseRateView {
                    direction: direction(*d),
                    priority: p.label(),
                    per_s: *r,
                })
                .collect(),
            discards_per_s: OrderedMap(h.discards.clone()),
            errors_per_s: OrderedMap(h.errors.clone()),
            carrier_changes: h.carrier_changes,
            resets: h.resets,
        }),
        notes: n.notes.clone(),
    }
}

/// One QP-bound counter: `counter_id` and `mode` as `rdma statistic qp show`
/// prints them, the task it was allocated for, its QPs with their owners.
#[derive(Debug, Serialize)]
pub struct BoundCounterView {
    pub counter_id: u32,
    pub mode: Option<String>,
    /// The kernel's `pid` of the counter (a thread id), or `null`.
    pub pid: Option<u32>,
    /// The kernel module it was allocated for, or `null`.
    pub kernel_owner: Option<String>,
    /// The owner as a row of the document (`processes`/`kernel`), when known.
    pub owner: Option<OwnerRefView>,
    pub qps: Vec<BoundQpView>,
    /// Its counters by kernel name.
    pub counters: OrderedMap<u64>,
}

#[derive(Debug, Serialize)]
pub struct BoundQpView {
    pub lqpn: u32,
    pub owner: Option<OwnerRefView>,
}

/// Which row of the document owns something: a process's pid and name, or
/// a kernel module.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct OwnerRefView {
    pub pid: Option<u32>,
    pub name: String,
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

pub(super) fn port_counters(snapshot: &Snapshot, device: &Device, port: &Port) -> PortCountersView {
    match &port.counters {
        Some(c) => PortCountersView {
            bound_counters: c
                .bound
                .iter()
                .map(|b| bound_view(snapshot, device.index, b))
                .collect(),
            bound_counters_note: c.bound_note.clone(),
            ..view(c)
        },
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
        bound_counters: Vec::new(),
        bound_counters_note: None,
        netdev_counters: c.netdev.as_ref().map(netdev_view),
    }
}

fn bound_view(snapshot: &Snapshot, device_index: u32, b: &BoundCounter) -> BoundCounterView {
    let (pid, kernel_owner) = match &b.reported {
        ReportedOwner::Task(tid) => (Some(*tid), None),
        ReportedOwner::Kernel(name) => (None, Some(name.clone())),
        ReportedOwner::Missing => (None, None),
    };
    BoundCounterView {
        counter_id: b.id,
        mode: b.mode.clone(),
        pid,
        kernel_owner,
        owner: counter_owner(b, snapshot).map(|o| owner_ref(snapshot, &o)),
        qps: b
            .qps
            .iter()
            .map(|q| BoundQpView {
                lqpn: *q,
                owner: qp_owner(*q, device_index, b, snapshot).map(|o| owner_ref(snapshot, &o)),
            })
            .collect(),
        counters: totals(&b.counters),
    }
}

/// The pid and display name of an owner, as the `processes` rows name it.
pub(crate) fn owner_ref(snapshot: &Snapshot, owner: &OwnerKey) -> OwnerRefView {
    match owner {
        OwnerKey::Process(key) => OwnerRefView {
            pid: Some(key.pid),
            name: snapshot
                .processes
                .iter()
                .find(|p| p.key == *key)
                .map(|p| p.display_name())
                .unwrap_or_default(),
        },
        OwnerKey::Kernel(name) => OwnerRefView {
            pid: None,
            name: format!("[{name}]"),
        },
        OwnerKey::Unattributed => OwnerRefView {
            pid: None,
            name: "(unattributed)".to_string(),
        },
    }
}
