//! The counters screen's rows: every counter of one port with its value, its
//! rate since the previous read and its rate series from the history, and
//! what the catalog says it means. Rates, moved counters and alerts come
//! from `model::counters` and the counter history; this only sorts them.

use crate::model::counters::netdev::{NetdevCounters, Priority, is_discard};
use crate::model::counters::rates::{interval_between, per_second};
use crate::model::counters::{CounterClass, PortCounters, describe};
use crate::model::history::counter_rates::{CounterHistory, RateSeries};
use crate::model::{Port, Snapshot};
use std::cmp::Ordering;

/// Which table a counter is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// Driver counters (`rdma statistic show`, or sysfs `hw_counters/`).
    Driver,
    /// The standard PMA counters (sysfs `counters/`).
    Pma,
    /// The port's netdev: sysfs `statistics/`, the standard ethtool groups
    /// and the driver's `ethtool -S` (`model::counters::netdev`).
    Netdev,
}

/// How a row is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Plain,
    /// An error or congestion counter that rose in the last interval.
    Moved,
    /// One that keeps rising (the history's alert rule).
    Alerting,
    /// It went down since the previous read: no rate this interval.
    Reset,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CounterRow {
    pub name: String,
    pub origin: Origin,
    pub value: u64,
    /// Per second since the previous read; `None` on the first read or a reset.
    pub rate: Option<f64>,
    /// Rates over the history, oldest first (for the sparkline).
    pub series: Vec<f64>,
    pub class: Option<CounterClass>,
    pub meaning: Option<&'static str>,
    pub mark: Mark,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterSort {
    Name,
    Value,
    Rate,
}

impl CounterSort {
    pub const ALL: [CounterSort; 3] = [CounterSort::Name, CounterSort::Value, CounterSort::Rate];

    /// The usual direction: names A→Z, the biggest figures first.
    pub fn descending_by_default(self) -> bool {
        self != CounterSort::Name
    }
}

/// The port `device`/`port` of the snapshot, if it is there.
pub(crate) fn find_port<'a>(snapshot: &'a Snapshot, device: &str, port: u32) -> Option<&'a Port> {
    snapshot
        .devices
        .iter()
        .find(|d| d.name == device)?
        .ports
        .iter()
        .find(|p| p.index == port)
}

/// Every counter of the port, unsorted (driver counters, then PMA).
pub(crate) fn counter_rows(
    counters: &PortCounters,
    history: &CounterHistory,
    device: &str,
    port: u32,
) -> Vec<CounterRow> {
    let rates = counters.rates().filter(|r| r.note.is_none());
    let moved = counters.moved();
    let alerting: Vec<String> = history
        .alerts()
        .into_iter()
        .filter(|a| a.device == device && a.port == port)
        .map(|a| a.counter)
        .collect();
    let series = history.port(device, port);
    let mut rows = Vec::new();
    for (origin, values) in [
        (Origin::Driver, &counters.read.hw),
        (Origin::Pma, &counters.read.pma),
    ] {
        for (name, &value) in values {
            let (rate, reset) = match &rates {
                Some(r) => {
                    let table = if origin == Origin::Driver {
                        &r.hw
                    } else {
                        &r.pma
                    };
                    (table.get(name).copied(), r.resets.contains(name))
                }
                None => (None, false),
            };
            let history_of = series.and_then(|s| {
                let table = if origin == Origin::Driver {
                    &s.hw
                } else {
                    &s.pma
                };
                table.get(name)
            });
            let d = describe(name);
            let mark = if reset {
                Mark::Reset
            } else if alerting.contains(name) {
                Mark::Alerting
            } else if moved.contains(name) {
                Mark::Moved
            } else {
                Mark::Plain
            };
            rows.push(CounterRow {
                name: name.clone(),
                origin,
                value,
                rate,
                series: history_of.map(values_of).unwrap_or_default(),
                class: d.map(|d| d.class),
                meaning: d.map(|d| d.meaning),
                mark,
            });
        }
    }
    if let Some(n) = &counters.netdev {
        rows.extend(netdev_rows(n));
    }
    rows
}

/// The netdev's counters, marked as the netdev reading says: pause frames,
/// discards and errors that rose are `Moved`.
fn netdev_rows(n: &NetdevCounters) -> Vec<CounterRow> {
    let health = n.health();
    let pause = n.read.pause();
    let mut resets = Vec::new();
    let prev = n.previous.as_ref();
    let interval = prev.and_then(|p| interval_between(p.at_ms, n.read.at_ms).ok());
    let mut rows = Vec::new();
    let maps = [
        (&n.read.stats, prev.map(|p| &p.stats)),
        (&n.read.standard, prev.map(|p| &p.standard)),
        (&n.read.driver, prev.map(|p| &p.driver)),
    ];
    for (now, before) in maps {
        let rates = match (before, interval) {
            (Some(b), Some(i)) => per_second(b, now, i, &mut resets),
            _ => Default::default(),
        };
        for (name, &value) in now {
            let rate = rates.get(name).copied();
            let is_pause = pause.iter().find(|c| &c.counter == name);
            let rose = health.as_ref().is_some_and(|h| {
                h.discards
                    .iter()
                    .chain(h.errors.iter())
                    .any(|(n, _)| n == name)
            }) || (is_pause.is_some() && rate.is_some_and(|r| r > 0.0));
            let meaning = match is_pause.map(|c| c.priority) {
                Some(Priority::Pfc(_)) => Some("PFC pause frames of one priority"),
                Some(Priority::Global) => Some("802.3x pause frames of the link"),
                None if is_discard(name) => Some("packets discarded or dropped"),
                None => None,
            };
            let mark = if resets.contains(name) {
                Mark::Reset
            } else if rose {
                Mark::Moved
            } else {
                Mark::Plain
            };
            rows.push(CounterRow {
                name: name.clone(),
                origin: Origin::Netdev,
                value,
                rate,
                series: Vec::new(),
                class: None,
                meaning,
                mark,
            });
        }
    }
    if let Some(c) = n.read.carrier_changes {
        let before = prev.and_then(|p| p.carrier_changes);
        rows.push(CounterRow {
            name: "carrier_changes".to_string(),
            origin: Origin::Netdev,
            value: c,
            rate: match (before, interval) {
                (Some(b), Some(i)) if c >= b => Some((c - b) as f64 / i),
                _ => None,
            },
            series: Vec::new(),
            class: None,
            meaning: Some("link up/down transitions (a flap is two)"),
            mark: if health.is_some_and(|h| h.carrier_changes > 0) {
                Mark::Moved
            } else {
                Mark::Plain
            },
        });
    }
    rows
}

fn values_of(series: &RateSeries) -> Vec<f64> {
    series.iter().map(|(_, v)| *v).collect()
}

/// Sorts rows; ties (and rows without a rate) fall back to the name.
pub(crate) fn sort_rows(rows: &mut [CounterRow], by: CounterSort, descending: bool) {
    rows.sort_by(|a, b| {
        let primary = match by {
            CounterSort::Name => Ordering::Equal,
            CounterSort::Value => a.value.cmp(&b.value),
            CounterSort::Rate => a.rate.unwrap_or(-1.0).total_cmp(&b.rate.unwrap_or(-1.0)),
        };
        let primary = if descending {
            primary.reverse()
        } else {
            primary
        };
        let name = a.name.cmp(&b.name).then(a.origin.cmp(&b.origin));
        let name = if descending && by == CounterSort::Name {
            name.reverse()
        } else {
            name
        };
        primary.then(name)
    });
}

/// Rates as whole-number steps for the sparkline widget (it scales itself).
pub(crate) fn sparkline_values(series: &[f64]) -> Vec<u64> {
    series
        .iter()
        .map(|v| {
            if v.is_finite() && *v > 0.0 {
                (v * 1000.0).min(u64::MAX as f64 / 2.0) as u64
            } else {
                0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::UnixMs;
    use crate::model::counters::CounterRead;
    use crate::model::history::counter_rates::CounterAlertRules;
    use std::collections::BTreeMap;

    fn map(kv: &[(&str, u64)]) -> BTreeMap<String, u64> {
        kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn port(prev: &[(&str, u64)], cur: &[(&str, u64)]) -> PortCounters {
        PortCounters {
            read: CounterRead {
                at_ms: UnixMs(2_000),
                hw: map(cur),
                pma: map(&[("port_xmit_data", 500)]),
            },
            previous: Some(CounterRead {
                at_ms: UnixMs(1_000),
                hw: map(prev),
                pma: map(&[("port_xmit_data", 100)]),
            }),
            ..PortCounters::default()
        }
    }

    fn history() -> CounterHistory {
        CounterHistory::new(10, CounterAlertRules::default())
    }

    #[test]
    fn rows_carry_value_rate_meaning_and_marks() {
        let c = port(
            &[("out_of_sequence", 1), ("sent_pkts", 10), ("weird", 9)],
            &[("out_of_sequence", 4), ("sent_pkts", 30), ("weird", 2)],
        );
        let rows = counter_rows(&c, &history(), "mlx5_0", 1);
        let get = |n: &str| rows.iter().find(|r| r.name == n).unwrap();
        assert_eq!(get("out_of_sequence").mark, Mark::Moved);
        assert_eq!(get("out_of_sequence").rate, Some(3.0));
        assert!(get("out_of_sequence").meaning.is_some());
        assert_eq!(get("sent_pkts").mark, Mark::Plain);
        assert_eq!(get("weird").mark, Mark::Reset);
        assert_eq!(get("weird").rate, None);
        assert_eq!(get("weird").meaning, None);
        assert_eq!(get("port_xmit_data").origin, Origin::Pma);
        assert_eq!(get("port_xmit_data").rate, Some(400.0));
    }

    #[test]
    fn the_first_read_has_values_and_no_rates() {
        let mut c = port(&[("a", 1)], &[("a", 5)]);
        c.previous = None;
        let rows = counter_rows(&c, &history(), "d", 1);
        assert!(
            rows.iter()
                .all(|r| r.rate.is_none() && r.mark == Mark::Plain)
        );
        assert_eq!(rows.len(), 2);
    }

    #[test]
    fn sorting_by_name_value_and_rate() {
        let c = port(
            &[("a", 0), ("b", 0), ("c", 0)],
            &[("a", 5), ("b", 100), ("c", 50)],
        );
        let mut rows = counter_rows(&c, &history(), "d", 1);
        sort_rows(&mut rows, CounterSort::Value, true);
        let names: Vec<_> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["port_xmit_data", "b", "c", "a"]);
        sort_rows(&mut rows, CounterSort::Rate, true);
        assert_eq!(rows[0].name, "port_xmit_data");
        sort_rows(&mut rows, CounterSort::Name, false);
        assert_eq!(rows[0].name, "a");
        sort_rows(&mut rows, CounterSort::Name, true);
        assert_eq!(rows[0].name, "port_xmit_data");
    }

    #[test]
    fn sparkline_values_never_go_negative_or_overflow() {
        assert_eq!(
            sparkline_values(&[0.5, -1.0, f64::NAN, 2.0]),
            vec![500, 0, 0, 2000]
        );
        assert!(sparkline_values(&[f64::MAX])[0] > 0);
    }
}
