//! Metric families of a RoCE port's netdev: what restop reads that
//! node_exporter does not export by default (pause frames per priority, the
//! driver's PHY discards) and the one series that joins restop's ports to
//! node_exporter's `node_network_*{device="<netdev>"}` series
//! (`restop_netdev_info`). The netdev's sysfs statistics and carrier
//! changes are node_exporter's and are not exported twice (docs/exporter.md).

use super::catalog::{self, Family};
use super::device_labels::DeviceLabels;
use super::exposition::Writer;
use crate::model::Device;
use crate::model::counters::Direction;
use crate::model::counters::netdev::NetdevCounters;

pub(crate) const NETDEV_INFO: Family = catalog::gauge(
    "restop_netdev_info",
    &["device", "port", "netdev", "netns"],
    "1 for each RDMA port's netdev (RoCE, iWARP): joins restop's device and port to \
     node_exporter's node_network_* series, whose device label is the netdev.",
);
pub(crate) const NETDEV_PAUSE_FRAMES: Family = catalog::counter(
    "restop_netdev_pause_frames_total",
    &["device", "port", "netdev", "direction", "priority", "netns"],
    "Ethernet pause frames of an RDMA port's netdev: priority 0-7 for PFC (the driver's \
     ethtool -S, mlx5 rx_prio3_pause), global for 802.3x pause (ethtool netlink's pause \
     statistics); direction rx is what the peer asked this port to hold back.",
);
pub(crate) const NETDEV_DISCARDS: Family = catalog::counter(
    "restop_netdev_discards_total",
    &["device", "port", "netdev", "direction", "counter", "netns"],
    "Packets an RDMA port's netdev discarded, by the driver's ethtool -S counter \
     (mlx5 rx_discards_phy: no receive buffer at the PHY).",
);

fn direction(d: Direction) -> &'static str {
    match d {
        Direction::Rx => "rx",
        Direction::Tx => "tx",
    }
}

pub(crate) fn write_netdevs(w: &mut Writer, devices: &[&Device]) {
    let netdevs: Vec<(DeviceLabels, String, &NetdevCounters)> = devices
        .iter()
        .flat_map(|d| {
            d.ports.iter().filter_map(|p| {
                let n = p.counters.as_ref()?.netdev.as_ref()?;
                Some((DeviceLabels::of(d), p.index.to_string(), n))
            })
        })
        .collect();
    for (dev, port, n) in &netdevs {
        let labels = [("port", port.as_str()), ("netdev", n.name.as_str())];
        w.device_sample(&NETDEV_INFO, dev, &labels, 1u64);
    }
    for (dev, port, n) in &netdevs {
        for c in n.read.pause() {
            let priority = c.priority.label();
            let labels = [
                ("port", port.as_str()),
                ("netdev", n.name.as_str()),
                ("direction", direction(c.direction)),
                ("priority", priority.as_str()),
            ];
            w.device_sample(&NETDEV_PAUSE_FRAMES, dev, &labels, c.frames);
        }
    }
    for (dev, port, n) in &netdevs {
        for (d, counter, v) in n.read.driver_discards() {
            let labels = [
                ("port", port.as_str()),
                ("netdev", n.name.as_str()),
                ("direction", direction(d)),
                ("counter", counter),
            ];
            w.device_sample(&NETDEV_DISCARDS, dev, &labels, v);
        }
    }
}
