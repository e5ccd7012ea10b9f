//! Counter history: per port, bounded series of throughput and of every
//! error/congestion counter that moved, for sparklines, and the alerts for
//! error and congestion counters that keep rising.
//!
//! The alert rule (docs/counters.md): a counter alerts when it rose in each
//! of the last `rising_reads` intervals *and* its average rate over those
//! intervals is at least its class's threshold (errors 1/s, congestion
//! 100/s). `link_downed` alerts on any step (a flap is one event). A history
//! that holds fewer intervals of the port than that (a `--once --rates`
//! report, the first seconds of a view) judges on every interval it has. A healthy
//! port, idle or busy, moves none of these, so the defaults raise nothing.
//! Time is the reads' own timestamps; a reset (counter went down) or a read
//! that is not later than the one before starts the counter's run again.

use crate::model::counters::catalog::{CounterClass, describe, is_health_signal};
use crate::model::{Snapshot, UnixMs};
use std::collections::{BTreeMap, VecDeque};

/// Points kept of every counter's rate (the counters view's sparklines):
/// a port has 15 (rxe) to ~60 (mlx5 with PMA) counters, so their series stay
/// shorter than the throughput's.
pub(crate) const EVERY_COUNTER_POINTS: usize = 120;

/// Per-second values, oldest first: one per interval between reads.
pub(crate) type RateSeries = VecDeque<(UnixMs, f64)>;

#[derive(Clone, Debug, PartialEq)]
pub struct CounterAlertRules {
    /// Consecutive intervals a counter must rise in.
    pub rising_reads: usize,
    /// Lowest average rate (per second) over those intervals, by class.
    pub error_per_s: f64,
    pub congestion_per_s: f64,
}

impl Default for CounterAlertRules {
    fn default() -> Self {
        CounterAlertRules {
            rising_reads: 3,
            error_per_s: 1.0,
            congestion_per_s: 100.0,
        }
    }
}

/// One port's counter that keeps rising.
#[derive(Clone, Debug, PartialEq)]
pub struct CounterAlert {
    pub device: String,
    pub port: u32,
    pub counter: String,
    /// Average per second over the rising intervals.
    pub per_s: f64,
    pub message: String,
}

impl CounterAlert {
    /// A link flap (`link_downed` alerts on any step), not a rate.
    pub fn is_flap(&self) -> bool {
        self.counter == "link_downed"
    }

    /// What the counter counts (errors or congestion).
    pub fn class(&self) -> CounterClass {
        describe(&self.counter).map_or(CounterClass::Error, |d| d.class)
    }
}

impl CounterAlertRules {
    /// The lowest average rate (per second) a counter of `class` alerts at.
    pub fn threshold_per_s(&self, class: CounterClass) -> f64 {
        match class {
            CounterClass::Congestion => self.congestion_per_s,
            _ => self.error_per_s,
        }
    }
}

/// One port's series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortSeries {
    pub tx_bytes: RateSeries,
    pub rx_bytes: RateSeries,
    pub tx_packets: RateSeries,
    pub rx_packets: RateSeries,
    /// Error and congestion counters that moved at least once in the history.
    pub moved: BTreeMap<String, RateSeries>,
    /// Every driver counter's and every PMA counter's rate (the counters
    /// view), at most `EVERY_COUNTER_POINTS` each.
    pub hw: BTreeMap<String, RateSeries>,
    pub pma: BTreeMap<String, RateSeries>,
}

#[derive(Clone, Debug)]
pub struct CounterHistory {
    max_points: usize,
    ports: BTreeMap<(String, u32), PortSeries>,
    /// Every health counter's rates, kept short for the alert rule.
    recent: BTreeMap<(String, u32, String), VecDeque<f64>>,
    /// Intervals seen of every port (up to `rising_reads`): a history
    /// shorter than the rule judges on what it has.
    intervals: BTreeMap<(String, u32), usize>,
    rules: CounterAlertRules,
}

impl CounterHistory {
    pub fn new(max_points: usize, rules: CounterAlertRules) -> CounterHistory {
        CounterHistory {
            max_points: max_points.max(2),
            ports: BTreeMap::new(),
            recent: BTreeMap::new(),
            intervals: BTreeMap::new(),
            rules,
        }
    }

    /// The alert rule's thresholds.
    pub fn rules(&self) -> &CounterAlertRules {
        &self.rules
    }

    pub fn port(&self, device: &str, port: u32) -> Option<&PortSeries> {
        self.ports.get(&(device.to_string(), port))
    }

    /// Takes in one snapshot's reads (ports without a previous read add nothing).
    pub fn push(&mut self, snapshot: &Snapshot) {
        let cap = self.max_points;
        let keep = self.rules.rising_reads.max(1);
        let mut seen = Vec::new();
        for device in &snapshot.devices {
            for port in &device.ports {
                let Some(c) = &port.counters else { continue };
                let key = (device.name.clone(), port.index);
                seen.push(key.clone());
                let Some(rates) = c.rates().filter(|r| r.note.is_none()) else {
                    continue;
                };
                let t = c.read.at_ms;
                let seen_intervals = self.intervals.entry(key.clone()).or_default();
                *seen_intervals = (*seen_intervals + 1).min(keep);
                let series = self.ports.entry(key.clone()).or_default();
                if let Some(tp) = c.throughput() {
                    for (s, v) in [
                        (&mut series.tx_bytes, tp.tx_bytes),
                        (&mut series.rx_bytes, tp.rx_bytes),
                        (&mut series.tx_packets, tp.tx_packets),
                        (&mut series.rx_packets, tp.rx_packets),
                    ] {
                        if let Some(v) = v {
                            push_capped(s, (t, v), cap);
                        }
                    }
                }
                let every_cap = cap.min(EVERY_COUNTER_POINTS);
                for (every, rates) in [(&mut series.hw, &rates.hw), (&mut series.pma, &rates.pma)] {
                    for (name, &per_s) in rates {
                        push_capped(
                            every.entry(name.clone()).or_default(),
                            (t, per_s),
                            every_cap,
                        );
                    }
                }
                for (name, &per_s) in rates.hw.iter().chain(rates.pma.iter()) {
                    if !is_health_signal(name) {
                        continue;
                    }
                    if per_s > 0.0 || series.moved.contains_key(name) {
                        let s = series.moved.entry(name.clone()).or_default();
                        push_capped(s, (t, per_s), cap);
                    }
                    let recent = self
                        .recent
                        .entry((key.0.clone(), key.1, name.clone()))
                        .or_default();
                    push_capped(recent, per_s, keep);
                }
                for name in &rates.resets {
                    self.recent.remove(&(key.0.clone(), key.1, name.clone()));
                }
            }
        }
        // Ports that left are forgotten.
        self.ports.retain(|k, _| seen.contains(k));
        self.recent
            .retain(|(d, p, _), _| seen.iter().any(|(sd, sp)| sd == d && sp == p));
        self.intervals.retain(|k, _| seen.contains(k));
    }

    /// Counters that keep rising, by the rule above.
    pub fn alerts(&self) -> Vec<CounterAlert> {
        let mut out = Vec::new();
        for ((device, port, counter), rates) in &self.recent {
            let Some(d) = describe(counter) else { continue };
            let step = counter == "link_downed" && rates.back().is_some_and(|&r| r > 0.0);
            let intervals = self
                .intervals
                .get(&(device.clone(), *port))
                .copied()
                .unwrap_or(0);
            let full = !rates.is_empty()
                && (rates.len() >= self.rules.rising_reads || rates.len() >= intervals);
            let rising = full && rates.iter().all(|&r| r > 0.0);
            let avg = rates.iter().sum::<f64>() / rates.len().max(1) as f64;
            let threshold = self.rules.threshold_per_s(d.class);
            if step || (rising && avg >= threshold) {
                let message = if step {
                    format!("{device} port {port}: link went down ({counter} rose)")
                } else {
                    let reads = match rates.len() {
                        1 => "1 read".to_string(),
                        n => format!("{n} reads"),
                    };
                    format!(
                        "{device} port {port}: {counter} keeps rising ({avg:.1}/s over {reads}): {}",
                        d.meaning
                    )
                };
                out.push(CounterAlert {
                    device: device.clone(),
                    port: *port,
                    counter: counter.clone(),
                    per_s: avg,
                    message,
                });
            }
        }
        out
    }
}

fn push_capped<T>(q: &mut VecDeque<T>, v: T, cap: usize) {
    q.push_back(v);
    while q.len() > cap {
        q.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::DemoSource;
    use crate::source::{CollectRequest, Source};
    use std::time::Duration;

    fn run(seconds: u64) -> (CounterHistory, Vec<Vec<CounterAlert>>) {
        let mut demo = DemoSource::new(1, Duration::from_secs(2));
        let mut h = CounterHistory::new(600, CounterAlertRules::default());
        let mut alerts = Vec::new();
        for _ in 0..seconds / 2 {
            let s = demo.collect(&CollectRequest::default()).unwrap();
            h.push(&s);
            alerts.push(h.alerts());
        }
        (h, alerts)
    }

    #[test]
    fn the_demo_storm_alerts_after_three_rising_reads_and_healthy_ports_never() {
        let (h, alerts) = run(140);
        // The storm starts 20 s in; three 2 s intervals later it alerts.
        let first = alerts
            .iter()
            .position(|a| a.iter().any(|x| x.counter == "out_of_sequence"))
            .unwrap();
        assert!((11..=14).contains(&first), "{first}");
        for a in alerts.iter().flatten() {
            assert!(
                a.device == "mlx5_1" || a.counter == "link_downed",
                "unexpected alert {a:?}"
            );
        }
        // The link flap (45 s in) alerts once, on the read after it.
        let flaps = alerts
            .iter()
            .filter(|a| a.iter().any(|x| x.counter == "link_downed"))
            .count();
        assert_eq!(flaps, 1);
        // After the storm (90 s long) the alerts stop.
        assert!(alerts.last().unwrap().is_empty(), "{:?}", alerts.last());
        let s = h.port("mlx5_1", 1).unwrap();
        assert!(s.moved.contains_key("np_cnp_sent"));
        assert!(h.port("mlx5_0", 1).unwrap().tx_bytes.len() > 10);
        assert!(
            !h.port("mlx5_2", 1)
                .unwrap()
                .moved
                .contains_key("out_of_sequence")
        );
    }

    #[test]
    fn series_are_bounded() {
        let mut demo = DemoSource::new(1, Duration::from_secs(2));
        let mut h = CounterHistory::new(5, CounterAlertRules::default());
        for _ in 0..40 {
            h.push(&demo.collect(&CollectRequest::default()).unwrap());
        }
        let p = h.port("mlx5_0", 1).unwrap();
        assert_eq!(p.tx_bytes.len(), 5);
        assert_eq!(p.hw["out_of_sequence"].len(), 5);
        assert_eq!(p.pma["port_xmit_data"].len(), 5);
    }
}
