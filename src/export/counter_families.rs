//! NIC counter metrics: every counter a port reports, raw, as a Prometheus
//! counter (rates are PromQL's job), the well-known ones again under
//! conventional names with units, and the link rate as a gauge.

use super::catalog::{self, Family};
use super::device_labels::DeviceLabels;
use super::exposition::Writer;
use crate::model::counters::bound::{bound_counters, counter_owner};
use crate::model::counters::{CounterClass, Direction, PortCounters, describe};
use crate::model::{Device, Snapshot};
use crate::output::json::owner_ref;
use std::collections::HashMap;

pub(crate) const PORT_HW_COUNTER: Family = catalog::counter(
    "restop_port_hw_stat_total",
    &["device", "port", "counter", "netns"],
    "A driver counter of an RDMA port, raw, named as `rdma statistic show` names it (STAT_GET, \
     or sysfs hw_counters/ on kernels without it); see docs/counters.md.",
);
pub(crate) const PORT_PMA_COUNTER: Family = catalog::counter(
    "restop_port_pma_stat_total",
    &["device", "port", "counter", "netns"],
    "A standard PMA counter of an RDMA port from sysfs counters/, raw, named as its file \
     (port_xmit_data and port_rcv_data count 4-byte words).",
);
pub(crate) const PORT_TRANSMIT_BYTES: Family = catalog::counter(
    "restop_port_transmit_bytes_total",
    &["device", "port", "netns"],
    "Bytes an RDMA port sent (PMA port_xmit_data x 4), where the port counts bytes.",
);
pub(crate) const PORT_RECEIVE_BYTES: Family = catalog::counter(
    "restop_port_receive_bytes_total",
    &["device", "port", "netns"],
    "Bytes an RDMA port received (PMA port_rcv_data x 4), where the port counts bytes.",
);
pub(crate) const PORT_TRANSMIT_PACKETS: Family = catalog::counter(
    "restop_port_transmit_packets_total",
    &["device", "port", "netns"],
    "Packets an RDMA port sent (PMA port_xmit_packets, else the driver's sent_pkts).",
);
pub(crate) const PORT_RECEIVE_PACKETS: Family = catalog::counter(
    "restop_port_receive_packets_total",
    &["device", "port", "netns"],
    "Packets an RDMA port received (PMA port_rcv_packets, else the driver's rcvd_pkts).",
);
pub(crate) const PORT_LINK_RATE: Family = catalog::gauge(
    "restop_port_link_rate_bytes_per_second",
    &["device", "port", "netns"],
    "Link speed of an RDMA port (sysfs rate), in bytes per second.",
);

pub(crate) const QP_BOUND_COUNTER: Family = catalog::counter(
    "restop_qp_bound_stat_total",
    &[
        "device",
        "port",
        "counter_id",
        "mode",
        "pid",
        "name",
        "counter",
        "netns",
    ],
    "A counter an admin bound QPs to (rdma statistic qp show), raw, by counter id and the \
     owner it was allocated for (pid and name empty when unknown; no pid with \
     --no-pid-label); only where QPs are bound.",
);

/// The unit (bytes or 1 per packet) a counter class has for one conventional family.
type UnitOf = fn(CounterClass) -> Option<u64>;

pub(crate) fn write_counters(w: &mut Writer, devices: &[&Device]) {
    let ports: Vec<(DeviceLabels, String, &PortCounters)> = devices
        .iter()
        .flat_map(|d| {
            d.ports.iter().filter_map(|p| {
                p.counters
                    .as_ref()
                    .map(|c| (DeviceLabels::of(d), p.index.to_string(), c))
            })
        })
        .collect();
    for (dev, port, c) in &ports {
        for (name, v) in &c.read.hw {
            let labels = [("port", port.as_str()), ("counter", name.as_str())];
            w.device_sample(&PORT_HW_COUNTER, dev, &labels, *v);
        }
    }
    for (dev, port, c) in &ports {
        for (name, v) in &c.read.pma {
            let labels = [("port", port.as_str()), ("counter", name.as_str())];
            w.device_sample(&PORT_PMA_COUNTER, dev, &labels, *v);
        }
    }
    let conventional = |want: UnitOf, c: &PortCounters| {
        // PMA first: the standard counters count every packet of the port.
        c.read
            .pma
            .iter()
            .chain(c.read.hw.iter())
            .find_map(|(name, v)| {
                let unit = want(describe(name)?.class)?;
                Some(v.saturating_mul(unit))
            })
    };
    let families: [(&'static Family, UnitOf); 4] = [
        (&PORT_TRANSMIT_BYTES, |c| bytes(c, Direction::Tx)),
        (&PORT_RECEIVE_BYTES, |c| bytes(c, Direction::Rx)),
        (&PORT_TRANSMIT_PACKETS, |c| packets(c, Direction::Tx)),
        (&PORT_RECEIVE_PACKETS, |c| packets(c, Direction::Rx)),
    ];
    for (family, want) in families {
        for (dev, port, c) in &ports {
            if let Some(v) = conventional(want, c) {
                w.device_sample(family, dev, &[("port", port)], v);
            }
        }
    }
    for (dev, port, c) in &ports {
        if let Some(mbps) = c.link_rate_mbps {
            let rate = mbps as f64 * 1e6 / 8.0;
            w.device_sample(&PORT_LINK_RATE, dev, &[("port", port)], rate);
        }
    }
    super::netdev::write_netdevs(w, devices);
}

/// The QP-bound counters, labelled by counter id, port and owner; without `pid_label`
/// (`--no-pid-label`) `pid` is left out, as in the per-owner families.
///
/// Samples whose labels coincide are summed, as the per-owner families sum owners with
/// the same labels: a scrape with two samples of one series is rejected whole by
/// Prometheus. Without `pid`, a counter id the kernel lists for two tasks is one series.
pub(crate) fn write_bound_counters(w: &mut Writer, snapshot: &Snapshot, pid_label: bool) {
    let mut series: Vec<(DeviceLabels, [String; 6], u64)> = Vec::new();
    let mut index: HashMap<(DeviceLabels, [String; 6]), usize> = HashMap::new();
    for b in bound_counters(snapshot) {
        let device = snapshot
            .device(b.device_index)
            .map_or(DeviceLabels::no_device(), DeviceLabels::of);
        let owner = counter_owner(b.counter, snapshot).map(|o| owner_ref(snapshot, &o));
        let pid = owner
            .as_ref()
            .and_then(|o| o.pid)
            .filter(|_| pid_label)
            .map(|p| p.to_string())
            .unwrap_or_default();
        let name = owner.map(|o| o.name).unwrap_or_default();
        for (counter, v) in &b.counter.counters {
            let labels = [
                b.port.to_string(),
                b.counter.id.to_string(),
                b.counter.mode.clone().unwrap_or_default(),
                pid.clone(),
                name.clone(),
                counter.clone(),
            ];
            let key = (device.clone(), labels);
            match index.get(&key) {
                Some(&i) => {
                    if let Some((_, _, sum)) = series.get_mut(i) {
                        *sum = sum.saturating_add(*v);
                    }
                }
                None => {
                    index.insert(key.clone(), series.len());
                    series.push((key.0, key.1, *v));
                }
            }
        }
    }
    const NAMES: [&str; 6] = ["port", "counter_id", "mode", "pid", "name", "counter"];
    for (device, values, v) in &series {
        let pairs: Vec<(&str, &str)> = NAMES
            .iter()
            .zip(values)
            .filter(|(label, _)| pid_label || **label != "pid")
            .map(|(label, value)| (*label, value.as_str()))
            .collect();
        w.device_sample(&QP_BOUND_COUNTER, device, &pairs, *v);
    }
}

fn bytes(class: CounterClass, want: Direction) -> Option<u64> {
    match class {
        CounterClass::Bytes {
            direction,
            unit_bytes,
        } if direction == want => Some(unit_bytes),
        _ => None,
    }
}

fn packets(class: CounterClass, want: Direction) -> Option<u64> {
    match class {
        CounterClass::Packets { direction } if direction == want => Some(1),
        _ => None,
    }
}
