//! NIC counter metrics: every counter a port reports, raw, as a Prometheus
//! counter (rates are PromQL's job), the well-known ones again under
//! conventional names with units, and the link rate as a gauge.

use super::catalog::{self, Family};
use super::exposition::Writer;
use crate::model::counters::bound::{bound_counters, counter_owner};
use crate::model::counters::{CounterClass, Direction, PortCounters, describe};
use crate::model::{Device, Snapshot};
use crate::output::json::owner_ref;

pub const PORT_HW_COUNTER: Family = catalog::counter(
    "restop_port_hw_stat_total",
    &["device", "port", "counter"],
    "A driver counter of an RDMA port, raw, named as `rdma statistic show` names it (STAT_GET, \
     or sysfs hw_counters/ on kernels without it); see docs/counters.md.",
);
pub const PORT_PMA_COUNTER: Family = catalog::counter(
    "restop_port_pma_stat_total",
    &["device", "port", "counter"],
    "A standard PMA counter of an RDMA port from sysfs counters/, raw, named as its file \
     (port_xmit_data and port_rcv_data count 4-byte words).",
);
pub const PORT_TRANSMIT_BYTES: Family = catalog::counter(
    "restop_port_transmit_bytes_total",
    &["device", "port"],
    "Bytes an RDMA port sent (PMA port_xmit_data x 4), where the port counts bytes.",
);
pub const PORT_RECEIVE_BYTES: Family = catalog::counter(
    "restop_port_receive_bytes_total",
    &["device", "port"],
    "Bytes an RDMA port received (PMA port_rcv_data x 4), where the port counts bytes.",
);
pub const PORT_TRANSMIT_PACKETS: Family = catalog::counter(
    "restop_port_transmit_packets_total",
    &["device", "port"],
    "Packets an RDMA port sent (PMA port_xmit_packets, else the driver's sent_pkts).",
);
pub const PORT_RECEIVE_PACKETS: Family = catalog::counter(
    "restop_port_receive_packets_total",
    &["device", "port"],
    "Packets an RDMA port received (PMA port_rcv_packets, else the driver's rcvd_pkts).",
);
pub const PORT_LINK_RATE: Family = catalog::gauge(
    "restop_port_link_rate_bytes_per_second",
    &["device", "port"],
    "Link speed of an RDMA port (sysfs rate), in bytes per second.",
);

pub const QP_BOUND_COUNTER: Family = catalog::counter(
    "restop_qp_bound_stat_total",
    &[
        "device",
        "port",
        "counter_id",
        "mode",
        "pid",
        "name",
        "counter",
    ],
    "A counter an admin bound QPs to (rdma statistic qp show), raw, by counter id and the \
     owner it was allocated for (pid and name empty when unknown); only where QPs are bound.",
);

/// In the order they are written.
pub const FAMILIES: [Family; 8] = [
    PORT_HW_COUNTER,
    PORT_PMA_COUNTER,
    PORT_TRANSMIT_BYTES,
    PORT_RECEIVE_BYTES,
    PORT_TRANSMIT_PACKETS,
    PORT_RECEIVE_PACKETS,
    PORT_LINK_RATE,
    QP_BOUND_COUNTER,
];

/// The unit (bytes or 1 per packet) a counter class has for one conventional family.
type UnitOf = fn(CounterClass) -> Option<u64>;

pub fn write_counters(w: &mut Writer, devices: &[&Device]) {
    let ports: Vec<(&str, String, &PortCounters)> = devices
        .iter()
        .flat_map(|d| {
            d.ports.iter().filter_map(|p| {
                p.counters
                    .as_ref()
                    .map(|c| (d.name.as_str(), p.index.to_string(), c))
            })
        })
        .collect();
    for (dev, port, c) in &ports {
        for (name, v) in &c.read.hw {
            w.sample(&PORT_HW_COUNTER, &[dev, port, name], *v);
        }
    }
    for (dev, port, c) in &ports {
        for (name, v) in &c.read.pma {
            w.sample(&PORT_PMA_COUNTER, &[dev, port, name], *v);
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
                w.sample(family, &[dev, port], v);
            }
        }
    }
    for (dev, port, c) in &ports {
        if let Some(mbps) = c.link_rate_mbps {
            w.sample(&PORT_LINK_RATE, &[dev, port], mbps as f64 * 1e6 / 8.0);
        }
    }
}

/// The QP-bound counters, labelled by counter id, port and owner.
pub fn write_bound_counters(w: &mut Writer, snapshot: &Snapshot) {
    for b in bound_counters(snapshot) {
        let port = b.port.to_string();
        let id = b.counter.id.to_string();
        let mode = b.counter.mode.clone().unwrap_or_default();
        let owner = counter_owner(b.counter, snapshot).map(|o| owner_ref(snapshot, &o));
        let pid = owner
            .as_ref()
            .and_then(|o| o.pid)
            .map(|p| p.to_string())
            .unwrap_or_default();
        let name = owner.map(|o| o.name).unwrap_or_default();
        for (counter, v) in &b.counter.counters {
            w.sample(
                &QP_BOUND_COUNTER,
                &[b.device, &port, &id, &mode, &pid, &name, counter],
                *v,
            );
        }
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
