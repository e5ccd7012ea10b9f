//! Cluster-wide lists: the top processes, pods and namespaces by one metric with their host,
//! and the ERROR QPs and leak suspects of every host. Plain functions of a reading.

use super::reading::{Consumer, FleetReading, Metric, Suspect};
use serde::Serialize;

/// What a consumers list is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsumerKind {
    Process,
    Pod,
    Namespace,
}

impl ConsumerKind {
    pub const ALL: [ConsumerKind; 3] = [
        ConsumerKind::Process,
        ConsumerKind::Pod,
        ConsumerKind::Namespace,
    ];

    /// The plural, for headings.
    pub fn plural(self) -> &'static str {
        match self {
            ConsumerKind::Process => "processes",
            ConsumerKind::Pod => "pods",
            ConsumerKind::Namespace => "namespaces",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ConsumerKind::Process => "process",
            ConsumerKind::Pod => "pod",
            ConsumerKind::Namespace => "namespace",
        }
    }
}

/// The `n` biggest consumers of `kind` by `metric`, biggest first (ties by host, then name).
pub fn top_consumers(
    reading: &FleetReading,
    kind: ConsumerKind,
    metric: Metric,
    n: usize,
) -> Vec<Consumer> {
    let list = match kind {
        ConsumerKind::Process => &reading.processes,
        ConsumerKind::Pod => &reading.pods,
        ConsumerKind::Namespace => &reading.namespaces,
    };
    let mut out: Vec<Consumer> = list
        .iter()
        .filter(|c| c.metric == metric && c.value > 0.0)
        .cloned()
        .collect();
    out.sort_by(|a, b| {
        b.value
            .total_cmp(&a.value)
            .then_with(|| a.host.cmp(&b.host))
            .then_with(|| a.namespace.cmp(&b.namespace))
            .then_with(|| a.pod.cmp(&b.pod))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.pid.cmp(&b.pid))
    });
    out.truncate(n);
    out
}

/// One device's ERROR QPs, with its host.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClusterErrorQps {
    pub host: String,
    pub device: String,
    pub count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oldest_age_seconds: Option<f64>,
}

/// Every device with ERROR QPs, most first.
pub fn cluster_error_qps(reading: &FleetReading) -> Vec<ClusterErrorQps> {
    let mut out: Vec<ClusterErrorQps> = reading
        .hosts
        .iter()
        .flat_map(|h| {
            h.error_qp_devices
                .iter()
                .filter(|d| d.count > 0)
                .map(|d| ClusterErrorQps {
                    host: h.host.clone(),
                    device: d.device.clone(),
                    count: d.count,
                    oldest_age_seconds: d.oldest_age_seconds,
                })
        })
        .collect();
    out.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.host.cmp(&b.host))
            .then_with(|| a.device.cmp(&b.device))
    });
    out
}

/// Every leak suspect, by host, name and type.
pub fn cluster_suspects(reading: &FleetReading) -> Vec<Suspect> {
    let mut out = reading.suspects.clone();
    out.sort_by(|a, b| {
        (&a.host, &a.name, &a.rtype, &a.pid).cmp(&(&b.host, &b.name, &b.rtype, &b.pid))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::reading::{ErrorQps, HostReport};
    use crate::model::ResourceType;

    fn consumer(host: &str, name: &str, metric: Metric, value: f64) -> Consumer {
        Consumer {
            host: host.into(),
            pid: "1".into(),
            name: name.into(),
            namespace: String::new(),
            pod: String::new(),
            container: String::new(),
            metric,
            value,
        }
    }

    #[test]
    fn top_consumers_rank_one_metric_across_hosts() {
        let qp = Metric::Objects(ResourceType::Qp);
        let reading = FleetReading {
            processes: vec![
                consumer("a", "small", qp, 10.0),
                consumer("b", "big", qp, 900.0),
                consumer("c", "mr-heavy", Metric::MrBytes, 1e9),
                consumer("c", "idle", qp, 0.0),
            ],
            ..FleetReading::default()
        };
        let top = top_consumers(&reading, ConsumerKind::Process, qp, 5);
        let names: Vec<(&str, &str)> = top
            .iter()
            .map(|c| (c.host.as_str(), c.name.as_str()))
            .collect();
        assert_eq!(names, [("b", "big"), ("a", "small")]);
        let top = top_consumers(&reading, ConsumerKind::Process, Metric::MrBytes, 1);
        assert_eq!(top[0].name, "mr-heavy");
    }

    #[test]
    fn error_qps_across_the_cluster_most_first() {
        let mut a = HostReport::named("a");
        a.error_qp_devices = vec![ErrorQps {
            device: "mlx5_0".into(),
            count: 1,
            oldest_age_seconds: Some(30.0),
        }];
        let mut b = HostReport::named("b");
        b.error_qp_devices = vec![ErrorQps {
            device: "mlx5_1".into(),
            count: 4,
            oldest_age_seconds: None,
        }];
        let reading = FleetReading {
            hosts: vec![a, b],
            ..FleetReading::default()
        };
        let list = cluster_error_qps(&reading);
        assert_eq!(list[0].host, "b");
        assert_eq!(list[1].oldest_age_seconds, Some(30.0));
    }
}
