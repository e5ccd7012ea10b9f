//! What a pane shows for a port at a glance: throughput against the link
//! rate, and which error or congestion counters moved in the last interval.

use super::CounterRead;
use super::catalog::{CounterClass, Direction, describe, is_health_signal};
use super::rates::Rates;

/// Error and congestion counters (driver or PMA) that rose from `prev` to
/// `cur`, by name, sorted.
pub fn moved(prev: &CounterRead, cur: &CounterRead) -> Vec<String> {
    let mut out: Vec<String> = [(&prev.hw, &cur.hw), (&prev.pma, &cur.pma)]
        .into_iter()
        .flat_map(|(before, now)| {
            now.iter().filter_map(move |(name, &value)| {
                let rose = before.get(name).is_some_and(|&b| value > b);
                (rose && is_health_signal(name)).then(|| name.clone())
            })
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Per-second traffic of a port, derived from its rates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Throughput {
    /// Bytes per second, where the port counts bytes (PMA `port_*_data`).
    pub tx_bytes: Option<f64>,
    pub rx_bytes: Option<f64>,
    /// Packets per second (PMA, or the driver's `sent_pkts`/`rcvd_pkts`).
    pub tx_packets: Option<f64>,
    pub rx_packets: Option<f64>,
    /// The busier direction's bits per second over the link rate (0..1).
    pub utilisation: Option<f64>,
}

impl Throughput {
    /// PMA counters win over driver counters for the same direction: they
    /// are the standard ones and count every packet of the port.
    pub fn from_rates(rates: &Rates, link_rate_mbps: Option<u64>) -> Throughput {
        let mut t = Throughput::default();
        for (name, &rate) in rates.hw.iter().chain(rates.pma.iter()) {
            let Some(d) = describe(name) else { continue };
            match d.class {
                CounterClass::Bytes {
                    direction,
                    unit_bytes,
                } => {
                    let v = rate * unit_bytes as f64;
                    match direction {
                        Direction::Tx => t.tx_bytes = Some(v),
                        Direction::Rx => t.rx_bytes = Some(v),
                    }
                }
                CounterClass::Packets { direction } => match direction {
                    Direction::Tx => t.tx_packets = Some(rate),
                    Direction::Rx => t.rx_packets = Some(rate),
                },
                _ => {}
            }
        }
        let busiest = match (t.tx_bytes, t.rx_bytes) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        t.utilisation = match (busiest, link_rate_mbps) {
            (Some(bytes), Some(mbps)) if mbps > 0 => Some(bytes * 8.0 / (mbps as f64 * 1e6)),
            _ => None,
        };
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::UnixMs;
    use crate::model::counters::rates_between;
    use std::collections::BTreeMap;

    fn map(kv: &[(&str, u64)]) -> BTreeMap<String, u64> {
        kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn only_error_and_congestion_counters_that_rose_are_moved() {
        let prev = CounterRead {
            at_ms: UnixMs(0),
            hw: map(&[("out_of_sequence", 3), ("np_cnp_sent", 9), ("sent_pkts", 1)]),
            pma: map(&[("link_downed", 0)]),
        };
        let cur = CounterRead {
            at_ms: UnixMs(1000),
            hw: map(&[
                ("out_of_sequence", 5),
                ("np_cnp_sent", 9),
                ("sent_pkts", 99),
            ]),
            pma: map(&[("link_downed", 1)]),
        };
        assert_eq!(moved(&prev, &cur), vec!["link_downed", "out_of_sequence"]);
    }

    #[test]
    fn bytes_come_from_pma_words_and_utilisation_from_the_link_rate() {
        let prev = CounterRead {
            at_ms: UnixMs(0),
            hw: map(&[("sent_pkts", 0)]),
            pma: map(&[("port_xmit_data", 0), ("port_rcv_data", 0)]),
        };
        let cur = CounterRead {
            at_ms: UnixMs(1000),
            hw: map(&[("sent_pkts", 10)]),
            pma: map(&[("port_xmit_data", 312_500_000), ("port_rcv_data", 1)]),
        };
        let t = Throughput::from_rates(&rates_between(&prev, &cur), Some(100_000));
        assert_eq!(t.tx_bytes, Some(1.25e9));
        assert_eq!(t.rx_bytes, Some(4.0));
        assert_eq!(t.tx_packets, Some(10.0));
        assert_eq!(t.utilisation, Some(0.1));
    }

    #[test]
    fn without_byte_counters_there_is_no_utilisation() {
        let prev = CounterRead {
            at_ms: UnixMs(0),
            hw: map(&[("sent_pkts", 0), ("rcvd_pkts", 0)]),
            pma: BTreeMap::new(),
        };
        let cur = CounterRead {
            at_ms: UnixMs(2000),
            hw: map(&[("sent_pkts", 10), ("rcvd_pkts", 4)]),
            pma: BTreeMap::new(),
        };
        let t = Throughput::from_rates(&rates_between(&prev, &cur), Some(10_000));
        assert_eq!((t.tx_packets, t.rx_packets), (Some(5.0), Some(2.0)));
        assert_eq!((t.tx_bytes, t.utilisation), (None, None));
    }
}
