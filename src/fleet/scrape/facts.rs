//! One exporter's exposition read into that host's facts, the same ones the Prometheus queries
//! ask for, computed here on the client: devices, worst usage, ERROR QPs (with the oldest age),
//! leak suspects, ports down, error counters that rose since the previous scrape, and the
//! owners of the exposition as consumers.

use crate::fleet::model::{
    Consumer, ErrorQps, HostReport, LimitKind, Metric, NicProblem, PortReport, Severity, Suspect,
    Usage,
};
use crate::fleet::sample::Sample;
use crate::model::counters::CounterClass;
use crate::model::counters::catalog::describe;
use crate::model::{ResourceType, UnixMs};
use std::collections::BTreeMap;

/// Counter values of a host's previous scrape, keyed by (device, port, counter), and when.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CounterMemory {
    pub at: Option<UnixMs>,
    pub values: BTreeMap<(String, String, String), f64>,
}

/// What one exposition says about its host, and the consumers it lists.
#[derive(Clone, Debug, PartialEq)]
pub struct HostScrape {
    pub report: HostReport,
    pub consumers: Vec<Consumer>,
    pub suspects: Vec<Suspect>,
    pub counters: CounterMemory,
}

/// Reads `samples` of `host` (scraped at `at`); `previous` gives the counters' last values.
pub fn host_facts(
    host: &str,
    samples: &[Sample],
    at: UnixMs,
    previous: &CounterMemory,
) -> HostScrape {
    let mut report = HostReport::named(host);
    report.scraped_at = Some(at);
    let mut consumers = Vec::new();
    let mut suspects = Vec::new();
    let mut counters = CounterMemory {
        at: Some(at),
        values: BTreeMap::new(),
    };
    let mut devices = 0u64;
    let mut error_qps: BTreeMap<String, ErrorQps> = BTreeMap::new();
    for s in samples {
        match s.name.as_str() {
            "restop_up" => report.collecting = Some(s.value >= 1.0),
            "restop_device_info" => devices += 1,
            "restop_resources_usage_ratio" => {
                if let Some(rtype) = ResourceType::from_name(s.label("type")) {
                    report.usage.push(Usage {
                        device: s.label("device").into(),
                        rtype,
                        ratio: if s.value.is_finite() { s.value } else { 0.0 },
                        limit: LimitKind::Device,
                    });
                }
            }
            "restop_error_queue_pairs" | "restop_error_queue_pair_oldest_age_seconds" => {
                let device = s.label("device").to_string();
                let entry = error_qps.entry(device.clone()).or_insert(ErrorQps {
                    device,
                    count: 0,
                    oldest_age_seconds: None,
                });
                if s.name == "restop_error_queue_pairs" {
                    entry.count = count(s.value);
                } else {
                    entry.oldest_age_seconds = Some(s.value);
                }
            }
            "restop_leak_suspects" => report.leak_suspects = count(s.value),
            "restop_process_leak_suspect" => suspects.push(Suspect {
                host: host.into(),
                pid: s.label("pid").into(),
                name: s.label("name").into(),
                rtype: s.label("type").into(),
            }),
            "restop_port_active" => {
                let active = s.value >= 1.0;
                report.ports.push(PortReport {
                    device: s.label("device").into(),
                    port: s.label("port").into(),
                    active,
                });
                if !active {
                    report.nic.push(NicProblem {
                        device: s.label("device").into(),
                        port: s.label("port").into(),
                        severity: Severity::Critical,
                        what: "port down".into(),
                        rate: None,
                    });
                }
            }
            "restop_port_hw_stat_total" | "restop_port_pma_stat_total" => {
                counter(s, previous, &mut counters, &mut report, at);
            }
            "restop_process_resources" | "restop_process_mr_bytes" => {
                if let Some(c) = consumer(host, s) {
                    consumers.push(c);
                }
            }
            _ => {}
        }
    }
    report.devices = Some(devices);
    report.usage.sort_by(|a, b| b.ratio.total_cmp(&a.ratio));
    report.worst_usage = report.usage.first().cloned();
    report.error_qp_devices = error_qps.into_values().filter(|e| e.count > 0).collect();
    report.error_qps = report.error_qp_devices.iter().map(|e| e.count).sum();
    report.top_consumer = consumers
        .iter()
        .filter(|c| c.metric == Metric::Objects(ResourceType::Qp))
        .max_by(|a, b| {
            a.value
                .total_cmp(&b.value)
                .then_with(|| b.name.cmp(&a.name))
        })
        .cloned();
    report.nic.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| (&a.device, &a.port, &a.what).cmp(&(&b.device, &b.port, &b.what)))
    });
    HostScrape {
        report,
        consumers,
        suspects,
        counters,
    }
}

/// Remembers a health counter and reports it when it rose since the previous scrape.
fn counter(
    s: &Sample,
    previous: &CounterMemory,
    memory: &mut CounterMemory,
    report: &mut HostReport,
    at: UnixMs,
) {
    let name = s.label("counter");
    let severity = match describe(name).map(|d| d.class) {
        Some(CounterClass::Error) => Severity::Warning,
        Some(CounterClass::Congestion) => Severity::Notice,
        _ => return,
    };
    let key = (
        s.label("device").to_string(),
        s.label("port").to_string(),
        name.to_string(),
    );
    if let (Some(&before), Some(then)) = (previous.values.get(&key), previous.at)
        && s.value > before
    {
        let secs = at.0.saturating_sub(then.0) as f64 / 1000.0;
        report.nic.push(NicProblem {
            device: key.0.clone(),
            port: key.1.clone(),
            severity,
            what: key.2.clone(),
            rate: (secs > 0.0).then(|| (s.value - before) / secs),
        });
    }
    memory.values.insert(key, s.value);
}

fn consumer(host: &str, s: &Sample) -> Option<Consumer> {
    if s.label("name") == "other" {
        return None;
    }
    let metric = if s.name == "restop_process_mr_bytes" {
        Metric::MrBytes
    } else {
        Metric::Objects(ResourceType::from_name(s.label("type"))?)
    };
    Some(s.consumer(host.into(), metric))
}

fn count(value: f64) -> u64 {
    if value.is_finite() && value > 0.0 {
        value.round() as u64
    } else {
        0
    }
}

/// The pods and namespaces of the processes of every host, summed (only the owners each
/// exporter lists by name: its top `--top` per type).
pub fn groups(processes: &[Consumer]) -> (Vec<Consumer>, Vec<Consumer>) {
    let mut pods: BTreeMap<(String, String, String, Metric), f64> = BTreeMap::new();
    let mut namespaces: BTreeMap<(String, Metric), f64> = BTreeMap::new();
    for c in processes {
        if !c.pod.is_empty() {
            *pods
                .entry((c.host.clone(), c.namespace.clone(), c.pod.clone(), c.metric))
                .or_default() += c.value;
        }
        if !c.namespace.is_empty() {
            *namespaces
                .entry((c.namespace.clone(), c.metric))
                .or_default() += c.value;
        }
    }
    let group =
        |host: String, namespace: String, pod: String, metric: Metric, value: f64| Consumer {
            host,
            pid: String::new(),
            name: String::new(),
            namespace,
            pod,
            container: String::new(),
            metric,
            value,
        };
    (
        pods.into_iter()
            .map(|((h, ns, pod, m), v)| group(h, ns, pod, m, v))
            .collect(),
        namespaces
            .into_iter()
            .map(|((ns, m), v)| group(String::new(), ns, String::new(), m, v))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::scrape::exposition::{Bounds, parse};

    const TEXT: &str = "\
restop_up{source=\"demo\"} 1
restop_device_info{device=\"mlx5_0\"} 1
restop_device_info{device=\"mlx5_1\"} 1
restop_resources_usage_ratio{device=\"mlx5_0\",type=\"qp\"} 0.5
restop_resources_usage_ratio{device=\"mlx5_1\",type=\"mr\"} 0.93
restop_error_queue_pairs{device=\"mlx5_0\"} 3
restop_error_queue_pairs{device=\"mlx5_1\"} 0
restop_error_queue_pair_oldest_age_seconds{device=\"mlx5_0\"} 40
restop_leak_suspects 1
restop_process_leak_suspect{pid=\"9\",name=\"leaky\",type=\"mr\"} 1
restop_port_active{device=\"mlx5_1\",port=\"1\",netdev=\"\"} 0
restop_port_active{device=\"mlx5_0\",port=\"1\",netdev=\"\"} 1
restop_port_hw_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"out_of_sequence\"} 10
restop_port_hw_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"rx_write_requests\"} 10
restop_process_resources{pid=\"7\",name=\"train.py\",namespace=\"ml\",pod=\"t-0\",type=\"qp\"} 120
restop_process_resources{pid=\"8\",name=\"db\",type=\"qp\"} 30
restop_process_resources{name=\"other\",type=\"qp\"} 500
restop_process_mr_bytes{pid=\"7\",name=\"train.py\",namespace=\"ml\",pod=\"t-0\"} 1e9
";

    fn scrape(previous: &CounterMemory, text: &str, at: u64) -> HostScrape {
        let samples = parse(text, "restop_", &Bounds::default()).unwrap();
        host_facts("node-1", &samples, UnixMs(at), previous)
    }

    #[test]
    fn an_exposition_gives_the_hosts_facts() {
        let first = scrape(&CounterMemory::default(), TEXT, 1_000);
        let r = &first.report;
        assert_eq!(r.devices, Some(2));
        assert_eq!(r.collecting, Some(true));
        assert_eq!(r.worst_usage.as_ref().unwrap().device, "mlx5_1");
        assert_eq!(r.error_qps, 3);
        assert_eq!(r.error_qp_devices[0].oldest_age_seconds, Some(40.0));
        assert_eq!(r.leak_suspects, 1);
        assert_eq!(first.suspects[0].name, "leaky");
        assert_eq!(r.nic.len(), 1);
        assert_eq!(r.nic[0].what, "port down");
        assert_eq!(r.top_consumer.as_ref().unwrap().name, "train.py");
        assert_eq!(first.consumers.len(), 3, "`other` is not a consumer");
    }

    #[test]
    fn an_error_counter_that_rose_since_the_last_scrape_is_a_warning() {
        let first = scrape(&CounterMemory::default(), TEXT, 1_000);
        let text = TEXT
            .replace("out_of_sequence\"} 10", "out_of_sequence\"} 30")
            .replace("rx_write_requests\"} 10", "rx_write_requests\"} 99");
        let second = scrape(&first.counters, &text, 11_000);
        let moving: Vec<&NicProblem> = second
            .report
            .nic
            .iter()
            .filter(|p| p.severity == Severity::Warning)
            .collect();
        assert_eq!(moving.len(), 1);
        assert_eq!(moving[0].what, "out_of_sequence");
        assert_eq!(moving[0].rate, Some(2.0));
    }

    #[test]
    fn pods_and_namespaces_sum_their_processes() {
        let first = scrape(&CounterMemory::default(), TEXT, 1_000);
        let (pods, namespaces) = groups(&first.consumers);
        assert_eq!(pods.len(), 2, "one per metric");
        assert_eq!(namespaces[0].namespace, "ml");
    }
}
