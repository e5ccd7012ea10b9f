//! The fleet's `/` filter: one text matched against host names, pods, namespaces and devices,
//! as a plain function over rows and consumers so every view filters alike.

use super::reading::{Consumer, FleetReading, HostReport};
use super::rows::HostRow;

/// A case-insensitive substring; empty admits everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FleetFilter {
    needle: String,
}

impl FleetFilter {
    pub fn new(text: &str) -> FleetFilter {
        FleetFilter {
            needle: text.trim().to_lowercase(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.needle.is_empty()
    }

    fn hits(&self, text: &str) -> bool {
        text.to_lowercase().contains(&self.needle)
    }

    /// Whether a host matches: by its name, a device, an exporter address, or a pod or
    /// namespace running on it (from the reading's consumers).
    pub fn admits_host(&self, host: &HostReport, reading: &FleetReading) -> bool {
        if self.is_empty() || self.hits(&host.host) {
            return true;
        }
        let devices = host
            .usage
            .iter()
            .map(|u| u.device.as_str())
            .chain(host.worst_usage.iter().map(|u| u.device.as_str()))
            .chain(host.error_qp_devices.iter().map(|d| d.device.as_str()))
            .chain(host.nic.iter().map(|p| p.device.as_str()));
        if devices
            .chain(host.exporters.iter().map(String::as_str))
            .any(|d| self.hits(d))
        {
            return true;
        }
        reading
            .processes
            .iter()
            .chain(&reading.pods)
            .filter(|c| c.host == host.host)
            .any(|c| self.admits_consumer(c))
    }

    /// Whether a consumer matches by host, pod, namespace or name.
    pub fn admits_consumer(&self, c: &Consumer) -> bool {
        self.is_empty()
            || [&c.host, &c.pod, &c.namespace, &c.name]
                .iter()
                .any(|t| self.hits(t))
    }

    /// The rows whose host the filter admits.
    pub fn rows(&self, rows: Vec<HostRow>, reading: &FleetReading) -> Vec<HostRow> {
        if self.is_empty() {
            return rows;
        }
        rows.into_iter()
            .filter(|r| {
                reading
                    .host(&r.host)
                    .is_some_and(|h| self.admits_host(h, reading))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::reading::Metric;
    use crate::model::ResourceType;

    #[test]
    fn the_filter_matches_hosts_by_name_pod_namespace_and_device() {
        let mut a = HostReport::named("gpu-node-01");
        a.error_qp_devices = vec![crate::fleet::model::reading::ErrorQps {
            device: "mlx5_3".into(),
            count: 1,
            oldest_age_seconds: None,
        }];
        let b = HostReport::named("storage-02");
        let reading = FleetReading {
            hosts: vec![a.clone(), b.clone()],
            pods: vec![Consumer {
                host: "storage-02".into(),
                pid: String::new(),
                name: String::new(),
                namespace: "spdk".into(),
                pod: "nvmf-target-0".into(),
                container: String::new(),
                metric: Metric::Objects(ResourceType::Qp),
                value: 3.0,
            }],
            ..FleetReading::default()
        };
        let f = FleetFilter::new("GPU");
        assert!(f.admits_host(&a, &reading) && !f.admits_host(&b, &reading));
        let f = FleetFilter::new("nvmf");
        assert!(!f.admits_host(&a, &reading) && f.admits_host(&b, &reading));
        let f = FleetFilter::new("spdk");
        assert!(f.admits_host(&b, &reading));
        let f = FleetFilter::new("mlx5_3");
        assert!(f.admits_host(&a, &reading) && !f.admits_host(&b, &reading));
        assert!(FleetFilter::new("  ").admits_host(&b, &reading));
    }
}
