//! The devices table's rows: devices in PF-then-VF order with their usage,
//! and each port's traffic and health as the counters model states them
//! (rates and moved counters come from `model::counters`, alerts from the
//! counter history; nothing is computed here but the per-device sums).

use crate::model::counters::{PortCounters, Throughput};
use crate::model::device::{error_qps_by_device, grouped_order};
use crate::model::filter::Filter;
use crate::model::history::counter_rates::CounterAlert;
use crate::model::{Port, PortState, ResourceType, Snapshot, UsageEntry};

/// Where a device sits in the PF/VF tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tree {
    /// A device with no parent shown.
    Root,
    /// A VF under the PF above it; `last` when it is the PF's last VF.
    Vf { last: bool },
}

/// A PF whose VFs the pane folds into its row, or shows under it once opened
/// (`v`), when not every device fits (`screens/main/trouble.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    /// How many VFs the PF has.
    pub vfs: usize,
    /// Shown under the PF (`v` opened it); folded into its row otherwise.
    pub open: bool,
    /// Of those VFs, how many are in trouble (usage past a threshold,
    /// counters that moved, a port not ACTIVE).
    pub troubled: usize,
}

/// What a port's counters can say this snapshot.
#[derive(Clone, Debug, PartialEq)]
pub enum Traffic {
    /// No counters for this port, and why (never shown as zeros).
    Unavailable(String),
    /// The first read: totals, no rates yet.
    FirstRead,
    /// Two reads that cannot be compared (the clock went back), and why.
    NoRates(String),
    /// Per-second traffic since the previous read.
    Rates(Throughput),
}

impl Traffic {
    pub fn throughput(&self) -> Option<&Throughput> {
        match self {
            Traffic::Rates(t) => Some(t),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct PortSummary {
    pub index: u32,
    pub state: Option<PortState>,
    pub netdev: Option<String>,
    /// The sysfs `rate` text ("200 Gb/sec (4X HDR)").
    pub link_rate: Option<String>,
    pub traffic: Traffic,
    /// Error and congestion counters that rose in the last interval.
    pub moved: Vec<String>,
    /// Of those and any others, the counters the history alerts on.
    pub alerting: Vec<String>,
}

impl PortSummary {
    pub fn new(port: &Port, device: &str, alerts: &[CounterAlert]) -> PortSummary {
        let alerting = alerts
            .iter()
            .filter(|a| a.device == device && a.port == port.index)
            .map(|a| a.counter.clone())
            .collect();
        PortSummary {
            index: port.index,
            state: port.state,
            netdev: port.netdev.clone(),
            link_rate: port.counters.as_ref().and_then(|c| c.link_rate.clone()),
            traffic: traffic_of(port.counters.as_ref()),
            moved: port
                .counters
                .as_ref()
                .map(|c| {
                    // The netdev's pause storm, discards or flap first: on a
                    // RoCE port they explain the RDMA counters that follow.
                    let mut moved: Vec<String> = c
                        .netdev
                        .as_ref()
                        .and_then(|n| n.health())
                        .map(|h| h.words())
                        .unwrap_or_default();
                    moved.extend(c.moved());
                    moved
                })
                .unwrap_or_default(),
            alerting,
        }
    }
}

fn traffic_of(counters: Option<&PortCounters>) -> Traffic {
    let Some(c) = counters else {
        return Traffic::Unavailable("counters not read".to_string());
    };
    let empty = c.read.hw.is_empty() && c.read.pma.is_empty();
    if empty {
        let why = c
            .notes
            .first()
            .cloned()
            .unwrap_or_else(|| "the port reports no counters".to_string());
        return Traffic::Unavailable(why);
    }
    match c.rates() {
        None => Traffic::FirstRead,
        Some(r) if r.note.is_some() => Traffic::NoRates(r.note.unwrap_or_default()),
        Some(_) => c.throughput().map_or(Traffic::FirstRead, Traffic::Rates),
    }
}

/// A device's traffic over its ports, for its one row in the table.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceTraffic {
    pub traffic: Traffic,
    /// Moved counters; prefixed `pN:` on devices with several ports.
    pub moved: Vec<String>,
    /// Some moved counter is also alerting (keeps rising).
    pub alerting: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeviceRow {
    pub name: String,
    pub tree: Tree,
    pub ports: Vec<PortSummary>,
    /// Usage per visible type; `None` when the kernel's summary had no entry.
    pub usage: Vec<(ResourceType, Option<UsageEntry>)>,
    /// Object dumps that failed on this device (shown as a marker).
    pub dump_errors: usize,
    /// Queue pairs in ERR or SQE on it (a folded PF: on it and its VFs).
    pub error_qps: u64,
    /// The device's network namespace when it is not restop's own, as a short
    /// tag: the pod whose namespace it is, else its container, else its name.
    pub netns: Option<String>,
    /// Set on a PF whose VFs are folded or opened (only when not all devices
    /// fit); `None` in the plain tree.
    pub fold: Option<Fold>,
}

impl DeviceRow {
    /// The ports' traffic summed (utilisation: the busiest port), their
    /// moved counters together.
    pub fn traffic(&self) -> DeviceTraffic {
        let several = self.ports.len() > 1;
        let mut moved = Vec::new();
        // A folded PF says first how many of its VFs are in trouble.
        if let Some(f) = self.fold.filter(|f| !f.open && f.troubled > 0) {
            moved.push(format!("{} of {} VFs", f.troubled, f.vfs));
        }
        for p in &self.ports {
            for m in &p.moved {
                moved.push(if several {
                    format!("p{}:{m}", p.index)
                } else {
                    m.clone()
                });
            }
        }
        let alerting = self.ports.iter().any(|p| !p.alerting.is_empty());
        let known: Vec<&Throughput> = self
            .ports
            .iter()
            .filter_map(|p| p.traffic.throughput())
            .collect();
        let traffic = if known.is_empty() {
            self.ports
                .iter()
                .map(|p| p.traffic.clone())
                .find(|t| *t == Traffic::FirstRead)
                .or_else(|| self.ports.first().map(|p| p.traffic.clone()))
                .unwrap_or_else(|| Traffic::Unavailable("no ports".to_string()))
        } else {
            Traffic::Rates(sum(&known))
        };
        DeviceTraffic {
            traffic,
            moved,
            alerting,
        }
    }
}

fn sum(parts: &[&Throughput]) -> Throughput {
    let add = |f: fn(&Throughput) -> Option<f64>| {
        parts
            .iter()
            .filter_map(|t| f(t))
            .fold(None, |acc: Option<f64>, v| Some(acc.unwrap_or(0.0) + v))
    };
    Throughput {
        tx_bytes: add(|t| t.tx_bytes),
        rx_bytes: add(|t| t.rx_bytes),
        tx_packets: add(|t| t.tx_packets),
        rx_packets: add(|t| t.rx_packets),
        utilisation: parts
            .iter()
            .filter_map(|t| t.utilisation)
            .fold(None, |acc: Option<f64>, v| {
                Some(acc.map_or(v, |a| a.max(v)))
            }),
    }
}

/// Rows for the devices table, honouring the device and type filters;
/// `alerts` are the counter history's (which counters keep rising).
pub(crate) fn device_rows(
    snapshot: &Snapshot,
    filter: &Filter,
    alerts: &[CounterAlert],
) -> Vec<DeviceRow> {
    let types = filter.visible_types();
    let ordered: Vec<_> = grouped_order(&snapshot.devices)
        .into_iter()
        .filter(|d| filter.shows_device(&d.name))
        .collect();
    let shown_names: Vec<&str> = ordered.iter().map(|d| d.name.as_str()).collect();
    let error_qps = error_qps_by_device(snapshot);
    ordered
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let under_shown_pf = d.pf.as_deref().is_some_and(|pf| shown_names.contains(&pf));
            let tree = if under_shown_pf {
                let next_is_sibling = ordered
                    .get(i + 1)
                    .is_some_and(|n| n.pf.is_some() && n.pf == d.pf);
                Tree::Vf {
                    last: !next_is_sibling,
                }
            } else {
                Tree::Root
            };
            DeviceRow {
                name: d.name.clone(),
                tree,
                ports: d
                    .ports
                    .iter()
                    .map(|p| PortSummary::new(p, &d.name, alerts))
                    .collect(),
                usage: types
                    .iter()
                    .map(|t| (*t, d.usage.get(*t).copied()))
                    .collect(),
                dump_errors: d.objects.errors.len(),
                error_qps: error_qps.get(&d.index).copied().unwrap_or(0),
                netns: d.netns.as_ref().map(netns_tag),
                fold: None,
            }
        })
        .collect()
}

/// A namespace in a word or two: the pod (without its Kubernetes namespace),
/// the container's short id, or what `ip netns` calls it.
pub(crate) fn netns_tag(ns: &crate::model::DeviceNetns) -> String {
    let owner = ns.owner.as_ref();
    if let Some(pod) = owner.and_then(|o| o.pod.as_deref()) {
        return pod.rsplit('/').next().unwrap_or(pod).to_string();
    }
    match owner.and_then(|o| o.container.as_deref()) {
        Some(container) => container.to_string(),
        None => ns.label(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::counters::CounterRead;
    use std::collections::BTreeMap;

    fn port(index: u32, counters: Option<PortCounters>) -> Port {
        Port {
            index,
            state: Some(PortState::Active),
            phys_state: None,
            netdev: None,
            netdev_index: None,
            counters,
        }
    }

    fn read(at_ms: u64, kv: &[(&str, u64)]) -> CounterRead {
        CounterRead {
            at_ms: crate::model::UnixMs(at_ms),
            hw: kv.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            pma: BTreeMap::new(),
        }
    }

    fn counters(prev: Option<&[(&str, u64)]>, cur: &[(&str, u64)]) -> PortCounters {
        PortCounters {
            read: read(2_000, cur),
            previous: prev.map(|p| read(1_000, p)),
            ..PortCounters::default()
        }
    }

    fn row(ports: Vec<Port>, alerts: &[CounterAlert]) -> DeviceRow {
        DeviceRow {
            name: "rxe0".to_string(),
            tree: Tree::Root,
            ports: ports
                .iter()
                .map(|p| PortSummary::new(p, "rxe0", alerts))
                .collect(),
            usage: Vec::new(),
            dump_errors: 0,
            error_qps: 0,
            netns: None,
            fold: None,
        }
    }

    #[test]
    fn missing_or_empty_counters_are_unavailable_with_the_reason() {
        let r = row(vec![port(1, None)], &[]);
        assert!(matches!(r.traffic().traffic, Traffic::Unavailable(_)));
        let mut empty = PortCounters::default();
        empty
            .notes
            .push("no driver counters: EOPNOTSUPP".to_string());
        let r = row(vec![port(1, Some(empty))], &[]);
        assert_eq!(
            r.traffic().traffic,
            Traffic::Unavailable("no driver counters: EOPNOTSUPP".to_string())
        );
    }

    #[test]
    fn the_first_read_is_pending_and_the_next_has_rates() {
        let r = row(
            vec![port(1, Some(counters(None, &[("sent_pkts", 5)])))],
            &[],
        );
        assert_eq!(r.traffic().traffic, Traffic::FirstRead);
        let c = counters(Some(&[("sent_pkts", 5)]), &[("sent_pkts", 15)]);
        let r = row(vec![port(1, Some(c))], &[]);
        let t = r.traffic();
        assert_eq!(t.traffic.throughput().unwrap().tx_packets, Some(10.0));
        assert!(t.moved.is_empty());
    }

    #[test]
    fn several_ports_sum_and_name_their_moved_counters_by_port() {
        let a = counters(
            Some(&[("sent_pkts", 0), ("out_of_seq_request", 0)]),
            &[("sent_pkts", 10), ("out_of_seq_request", 2)],
        );
        let b = counters(Some(&[("sent_pkts", 0)]), &[("sent_pkts", 30)]);
        let alert = CounterAlert {
            device: "rxe0".to_string(),
            port: 1,
            counter: "out_of_seq_request".to_string(),
            per_s: 2.0,
            message: String::new(),
        };
        let r = row(vec![port(1, Some(a)), port(2, Some(b))], &[alert]);
        let t = r.traffic();
        assert_eq!(t.traffic.throughput().unwrap().tx_packets, Some(40.0));
        assert_eq!(t.moved, vec!["p1:out_of_seq_request".to_string()]);
        assert!(t.alerting);
        assert_eq!(r.ports[0].alerting, vec!["out_of_seq_request".to_string()]);
    }
}
