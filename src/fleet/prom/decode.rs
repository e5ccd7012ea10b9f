//! The facts of the fleet's queries (`queries.rs`) read into a [`FleetReading`]: each series'
//! `fact` label says which field it fills, its host label which host. A host with two exporters
//! keeps both names and the larger of their numbers; a series without the host label is named
//! by its `instance`.

use crate::fleet::model::{
    Consumer, ErrorQps, FleetReading, HostReport, LimitKind, Metric, NicProblem, PortReport, Reach,
    Severity, Suspect, Usage,
};
use crate::fleet::sample::Sample;
use crate::model::counters::CounterClass;
use crate::model::counters::catalog::describe;
use crate::model::{ResourceType, UnixMs};
use std::collections::BTreeMap;

/// Reads the samples of every query of one refresh.
pub struct Decoder<'a> {
    host_label: &'a str,
    hosts: BTreeMap<String, HostReport>,
    reading: FleetReading,
    unnamed: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(host_label: &'a str) -> Decoder<'a> {
        Decoder {
            host_label,
            hosts: BTreeMap::new(),
            reading: FleetReading::default(),
            unnamed: 0,
        }
    }

    fn host_of(&mut self, s: &Sample) -> String {
        let named = s.label(self.host_label);
        if named.is_empty() {
            self.unnamed += 1;
            s.label("instance").to_string()
        } else {
            named.to_string()
        }
    }

    fn host(&mut self, s: &Sample) -> &mut HostReport {
        let name = self.host_of(s);
        self.hosts
            .entry(name.clone())
            .or_insert_with(|| HostReport::named(&name))
    }

    /// Takes in one sample; unknown facts are ignored (a newer rules file may add some).
    pub fn add(&mut self, s: &Sample) {
        match s.label("fact") {
            "up" => {
                let instance = s.label("instance").to_string();
                let h = self.host(s);
                if !instance.is_empty() && !h.exporters.contains(&instance) {
                    h.exporters.push(instance.clone());
                    h.exporters.sort();
                }
                // One exporter down of two still answers for the host; the row says both.
                if s.value < 1.0 {
                    if h.reach == Reach::Up && h.exporters.len() <= 1 {
                        h.reach = Reach::Down {
                            reason: format!("Prometheus' scrape of {instance} fails (up 0)"),
                        };
                    }
                } else {
                    h.reach = Reach::Up;
                }
            }
            "scraped_at" => {
                let at = seconds(s.value);
                let h = self.host(s);
                h.scraped_at = h.scraped_at.max(at);
            }
            "collecting" => {
                let on = s.value >= 1.0;
                let h = self.host(s);
                h.collecting = Some(h.collecting.unwrap_or(false) || on);
            }
            "devices" => {
                let n = count(s.value);
                let h = self.host(s);
                h.devices = Some(h.devices.unwrap_or(0).max(n));
            }
            "error_qps" => {
                let n = count(s.value);
                let h = self.host(s);
                h.error_qps = h.error_qps.max(n);
            }
            "leak_suspects" => {
                let n = count(s.value);
                let h = self.host(s);
                h.leak_suspects = h.leak_suspects.max(n);
            }
            _ => self.add_detail(s),
        }
    }

    fn add_detail(&mut self, s: &Sample) {
        match s.label("fact") {
            "usage" | "usage_all" => {
                let Some(usage) = usage(s) else { return };
                let all = s.label("fact") == "usage_all";
                let h = self.host(s);
                if all {
                    h.usage.push(usage.clone());
                }
                if h.worst_usage.as_ref().is_none_or(|w| usage.ratio > w.ratio) {
                    h.worst_usage = Some(usage);
                }
            }
            "port_down" => {
                let problem = NicProblem {
                    device: s.label("device").into(),
                    port: s.label("port").into(),
                    severity: Severity::Critical,
                    what: "port down".into(),
                    rate: None,
                };
                self.host(s).nic.push(problem);
            }
            "counter_rate" => {
                let severity = match describe(s.label("counter")).map(|d| d.class) {
                    Some(CounterClass::Error) => Severity::Warning,
                    Some(CounterClass::Congestion) => Severity::Notice,
                    _ => return,
                };
                let problem = NicProblem {
                    device: s.label("device").into(),
                    port: s.label("port").into(),
                    severity,
                    what: s.label("counter").into(),
                    rate: Some(s.value),
                };
                self.host(s).nic.push(problem);
            }
            "port" => {
                let port = PortReport {
                    device: s.label("device").into(),
                    port: s.label("port").into(),
                    active: s.value >= 1.0,
                };
                self.host(s).ports.push(port);
            }
            "error_qps_device" | "error_qp_age" => self.add_error_qps(s),
            "suspect" => {
                let host = self.host_of(s);
                self.reading.suspects.push(Suspect {
                    host,
                    pid: s.label("pid").into(),
                    name: s.label("name").into(),
                    rtype: s.label("type").into(),
                });
            }
            "top_consumer" => {
                let c = self.consumer(s, true);
                let h = self.host(s);
                h.top_consumer = c;
            }
            "process" | "process_mr_bytes" => {
                if let Some(c) = self.consumer(s, true) {
                    self.reading.processes.push(c);
                }
            }
            "pod" | "pod_mr_bytes" => {
                if let Some(c) = self.consumer(s, true) {
                    self.reading.pods.push(c);
                }
            }
            "namespace" | "namespace_mr_bytes" => {
                if let Some(c) = self.consumer(s, false) {
                    self.reading.namespaces.push(c);
                }
            }
            _ => {}
        }
    }

    fn add_error_qps(&mut self, s: &Sample) {
        let device = s.label("device").to_string();
        let age = s.label("fact") == "error_qp_age";
        let h = self.host(s);
        let entry = match h.error_qp_devices.iter_mut().find(|d| d.device == device) {
            Some(entry) => entry,
            None => {
                h.error_qp_devices.push(ErrorQps {
                    device,
                    count: 0,
                    oldest_age_seconds: None,
                });
                let last = h.error_qp_devices.len() - 1;
                &mut h.error_qp_devices[last]
            }
        };
        if age {
            entry.oldest_age_seconds = Some(s.value);
        } else {
            entry.count = count(s.value);
        }
    }

    fn consumer(&mut self, s: &Sample, with_host: bool) -> Option<Consumer> {
        let metric = if s.label("fact").ends_with("mr_bytes") {
            Metric::MrBytes
        } else {
            Metric::Objects(ResourceType::from_name(s.label("type"))?)
        };
        let host = if with_host {
            self.host_of(s)
        } else {
            String::new()
        };
        Some(s.consumer(host, metric))
    }

    /// The reading, hosts by name.
    pub fn finish(mut self, read_at: UnixMs, server_time: Option<UnixMs>) -> FleetReading {
        if self.unnamed > 0 {
            self.reading.notes.push(format!(
                "{} series have no `{}` label; their hosts are named by instance",
                self.unnamed, self.host_label
            ));
        }
        let doubled: Vec<String> = self
            .hosts
            .values()
            .filter(|h| h.exporters.len() > 1)
            .map(|h| format!("{} ({})", h.host, h.exporters.join(", ")))
            .collect();
        if !doubled.is_empty() {
            self.reading.notes.push(format!(
                "hosts with two or more exporters (numbers are the larger): {}",
                doubled.join("; ")
            ));
        }
        for h in self.hosts.values_mut() {
            h.nic.sort_by(|a, b| {
                b.severity
                    .cmp(&a.severity)
                    .then_with(|| (&a.device, &a.port, &a.what).cmp(&(&b.device, &b.port, &b.what)))
            });
            h.error_qp_devices.sort_by(|a, b| a.device.cmp(&b.device));
            h.usage.sort_by(|a, b| b.ratio.total_cmp(&a.ratio));
        }
        self.reading.hosts = self.hosts.into_values().collect();
        self.reading.read_at = read_at;
        self.reading.server_time = server_time;
        self.reading
    }
}

fn usage(s: &Sample) -> Option<Usage> {
    Some(Usage {
        device: s.label("device").into(),
        rtype: ResourceType::from_name(s.label("type"))?,
        ratio: if s.value.is_finite() { s.value } else { 0.0 },
        limit: LimitKind::Device,
    })
}

fn count(value: f64) -> u64 {
    if value.is_finite() && value > 0.0 {
        value.round() as u64
    } else {
        0
    }
}

fn seconds(value: f64) -> Option<UnixMs> {
    (value.is_finite() && value > 0.0).then_some(UnixMs((value * 1000.0) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(fact: &str, labels: &[(&str, &str)], value: f64) -> Sample {
        let mut all: Vec<(String, String)> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        all.push(("fact".into(), fact.into()));
        Sample {
            name: String::new(),
            labels: all,
            value,
        }
    }

    #[test]
    fn facts_fill_their_hosts() {
        let mut d = Decoder::new("node");
        let a = [("node", "a"), ("instance", "10.0.0.1:9879")];
        d.add(&s("up", &a, 1.0));
        d.add(&s("scraped_at", &a, 1_767_225_600.0));
        d.add(&s("devices", &a, 4.0));
        d.add(&s("error_qps", &a, 2.0));
        d.add(&s(
            "usage",
            &[("node", "a"), ("device", "mlx5_1"), ("type", "mr")],
            0.9,
        ));
        d.add(&s(
            "counter_rate",
            &[
                ("node", "a"),
                ("device", "mlx5_0"),
                ("port", "1"),
                ("counter", "out_of_sequence"),
            ],
            4.0,
        ));
        d.add(&s(
            "counter_rate",
            &[
                ("node", "a"),
                ("device", "mlx5_0"),
                ("port", "1"),
                ("counter", "port_xmit_data"),
            ],
            4.0,
        ));
        d.add(&s("up", &[("node", "b"), ("instance", "b:9879")], 0.0));
        d.add(&s(
            "error_qp_age",
            &[("node", "a"), ("device", "mlx5_0")],
            12.0,
        ));
        d.add(&s(
            "error_qps_device",
            &[("node", "a"), ("device", "mlx5_0")],
            2.0,
        ));
        let r = d.finish(UnixMs(1), None);
        let a = r.host("a").unwrap();
        assert_eq!(a.reach, Reach::Up);
        assert_eq!(a.scraped_at, Some(UnixMs(1_767_225_600_000)));
        assert_eq!(a.devices, Some(4));
        assert_eq!(a.worst_usage.as_ref().unwrap().device, "mlx5_1");
        assert_eq!(a.nic.len(), 1, "traffic counters are not problems");
        assert_eq!(a.nic[0].severity, Severity::Warning);
        assert_eq!(
            a.error_qp_devices,
            [ErrorQps {
                device: "mlx5_0".into(),
                count: 2,
                oldest_age_seconds: Some(12.0)
            }]
        );
        assert!(matches!(r.host("b").unwrap().reach, Reach::Down { .. }));
    }

    #[test]
    fn two_exporters_for_one_host_are_named_and_noted() {
        let mut d = Decoder::new("node");
        d.add(&s("up", &[("node", "a"), ("instance", "x:1")], 1.0));
        d.add(&s("up", &[("node", "a"), ("instance", "x:2")], 0.0));
        d.add(&s("devices", &[("node", "a"), ("instance", "x:1")], 2.0));
        d.add(&s("devices", &[("node", "a"), ("instance", "x:2")], 3.0));
        let r = d.finish(UnixMs(1), None);
        let a = r.host("a").unwrap();
        assert_eq!(a.exporters, ["x:1", "x:2"]);
        assert_eq!(a.devices, Some(3));
        assert_eq!(a.reach, Reach::Up);
        assert!(r.notes[0].contains("a (x:1, x:2)"), "{:?}", r.notes);
    }

    #[test]
    fn a_series_without_the_host_label_is_named_by_instance() {
        let mut d = Decoder::new("node");
        d.add(&s("up", &[("instance", "10.0.0.9:9879")], 1.0));
        let r = d.finish(UnixMs(1), None);
        assert_eq!(r.hosts[0].host, "10.0.0.9:9879");
        assert_eq!(r.notes.len(), 1);
    }
}
