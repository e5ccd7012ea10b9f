//! NIC counters of one port: what was read, where from, and what it means.
//!
//! A snapshot carries each port's latest read *and the read before it*, so
//! rates are a pure function of the snapshot ([`PortCounters::rates`]):
//! every view, a recording and its replay all get the same numbers from
//! the reads' own timestamps. Values are kept exactly as the kernel gave
//! them (`port_xmit_data` stays in 4-byte words); only derived figures
//! ([`Throughput`]) convert units.

pub mod bound;
pub(crate) mod catalog;
pub(crate) mod health;
pub(crate) mod netdev;
pub(crate) mod rates;

pub use catalog::{CounterClass, Direction, describe};
pub use health::{Throughput, moved};
pub use rates::{Rates, rates_between};

use crate::model::UnixMs;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where a port's driver counters (`hw`) came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterSource {
    /// `STAT_GET` (`rdma statistic show`).
    Netlink,
    /// `/sys/class/infiniband/<dev>/ports/<p>/hw_counters/` (kernels without `STAT_GET`).
    Sysfs,
    /// The simulated demo host.
    Demo,
}

impl CounterSource {
    pub fn name(self) -> &'static str {
        match self {
            CounterSource::Netlink => "netlink",
            CounterSource::Sysfs => "sysfs",
            CounterSource::Demo => "demo",
        }
    }
}

/// One read of a port's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterRead {
    /// When this read was taken.
    pub at_ms: UnixMs,
    /// Driver counters, named as `rdma statistic show` names them.
    #[serde(default)]
    pub hw: BTreeMap<String, u64>,
    /// The standard PMA counters from sysfs `counters/`, named as their
    /// files, raw (`port_xmit_data`/`port_rcv_data` in 4-byte words).
    #[serde(default)]
    pub pma: BTreeMap<String, u64>,
}

/// A port's counters in one snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortCounters {
    /// Where `read.hw` came from; `None` when the port has no driver counters.
    pub source: Option<CounterSource>,
    /// Link speed in Mb/s, from sysfs `rate`.
    pub link_rate_mbps: Option<u64>,
    /// The `rate` file as the kernel wrote it ("100 Gb/sec (4X EDR)").
    pub link_rate: Option<String>,
    pub read: CounterRead,
    /// The previous read of the same port (same device index and name), if any.
    pub previous: Option<CounterRead>,
    /// Why something is missing (no driver counters, unreadable files), in words.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Counters an admin bound QPs of this port to (`rdma statistic qp show`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bound: Vec<bound::BoundCounter>,
    /// Why the bound counters could not be read, when they could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound_note: Option<String>,
    /// The port's netdev and its Ethernet counters (RoCE and iWARP ports
    /// whose netdev is in this network namespace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netdev: Option<netdev::NetdevCounters>,
}

impl PortCounters {
    /// Per-second rates since the previous read; `None` on the first read.
    pub fn rates(&self) -> Option<Rates> {
        self.previous
            .as_ref()
            .map(|prev| rates_between(prev, &self.read))
    }

    /// Error and congestion counters that rose since the previous read.
    pub fn moved(&self) -> Vec<String> {
        self.previous
            .as_ref()
            .map(|prev| moved(prev, &self.read))
            .unwrap_or_default()
    }

    /// Bytes and packets per second and link utilisation, where known.
    pub fn throughput(&self) -> Option<Throughput> {
        self.rates()
            .map(|r| Throughput::from_rates(&r, self.link_rate_mbps))
    }
}

/// Mb/s from a sysfs `rate` file ("100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)").
pub(crate) fn parse_link_rate_mbps(text: &str) -> Option<u64> {
    let mut words = text.split_whitespace();
    let number: f64 = words.next()?.parse().ok()?;
    let unit = words.next()?;
    let scale = match unit {
        u if u.starts_with("Gb") => 1000.0,
        u if u.starts_with("Mb") => 1.0,
        _ => return None,
    };
    let mbps = number * scale;
    (0.0..1e12).contains(&mbps).then_some(mbps.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_rates_parse_as_sysfs_writes_them() {
        assert_eq!(parse_link_rate_mbps("100 Gb/sec (4X EDR)"), Some(100_000));
        assert_eq!(parse_link_rate_mbps("2.5 Gb/sec (1X SDR)"), Some(2_500));
        assert_eq!(parse_link_rate_mbps("10 Mb/sec"), Some(10));
        assert_eq!(parse_link_rate_mbps("fast"), None);
        assert_eq!(parse_link_rate_mbps(""), None);
        assert_eq!(parse_link_rate_mbps("-1 Gb/sec"), None);
    }

    #[test]
    fn the_first_read_has_no_rates() {
        let c = PortCounters::default();
        assert!(c.rates().is_none());
        assert!(c.moved().is_empty());
        assert!(c.throughput().is_none());
    }
}
