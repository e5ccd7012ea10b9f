//! What one refresh of the fleet read: every host's facts and the cluster-wide lists, as plain
//! data. Both sources (Prometheus queries, direct scrapes) fill this same shape, so the hosts
//! table, the cluster lists, `--once` and `--json` never know where the numbers came from.

use crate::model::{ResourceType, UnixMs};
use serde::Serialize;

/// Whether a host's exporter answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Reach {
    /// Scraped, with data.
    Up,
    /// Its scrape failed (Prometheus' `up == 0`, or the direct scrape's error).
    Down { reason: String },
    /// Seen before (in Prometheus' last hour, or in an earlier refresh) and absent now.
    Missing,
}

/// What a usage figure is measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitKind {
    /// The device's own maximum (the kernel's summary, or libibverbs).
    Device,
}

/// One device's use of one resource type against its limit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Usage {
    pub device: String,
    #[serde(rename = "type")]
    pub rtype: ResourceType,
    /// 0 to 1.
    pub ratio: f64,
    pub limit: LimitKind,
}

/// How bad a NIC problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Congestion control at work (CNPs, ECN marks).
    Notice,
    /// Error counters rising (retransmits, sequence errors, drops).
    Warning,
    /// A port that is not ACTIVE.
    Critical,
}

/// One port-level problem of a host.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NicProblem {
    pub device: String,
    pub port: String,
    pub severity: Severity,
    /// `port down`, or the counter that moved.
    pub what: String,
    /// Per second, for a moving counter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
}

/// One port of a host and whether it is ACTIVE (a host's detail).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PortReport {
    pub device: String,
    pub port: String,
    pub active: bool,
}

/// ERROR QPs on one device of a host.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorQps {
    pub device: String,
    pub count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oldest_age_seconds: Option<f64>,
}

/// An owner judged a leak suspect for one type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Suspect {
    pub host: String,
    pub pid: String,
    pub name: String,
    #[serde(rename = "type")]
    pub rtype: String,
}

/// What a consumer is ranked by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Objects(ResourceType),
    MrBytes,
}

impl Metric {
    /// `qp`, `cm_id`, ..., or `mr_bytes`: the names `--by` takes and JSON uses.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Objects(t) => t.name(),
            Metric::MrBytes => "mr_bytes",
        }
    }

    pub fn from_name(name: &str) -> Option<Metric> {
        if name == "mr_bytes" {
            return Some(Metric::MrBytes);
        }
        ResourceType::from_name(name).map(Metric::Objects)
    }
}

/// A process, pod or namespace holding RDMA resources. Fields that do not apply are empty:
/// a namespace has no host, a pod no pid.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Consumer {
    pub host: String,
    pub pid: String,
    pub name: String,
    pub namespace: String,
    pub pod: String,
    pub container: String,
    #[serde(serialize_with = "metric_name")]
    pub metric: Metric,
    pub value: f64,
}

fn metric_name<S: serde::Serializer>(m: &Metric, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(m.name())
}

/// One host as one refresh read it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostReport {
    pub host: String,
    /// The exporters (`instance`s) that report for this host; two is a misconfiguration.
    pub exporters: Vec<String>,
    pub reach: Reach,
    /// The exporter's own `restop_up`: false when it is up but cannot read RDMA.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collecting: Option<bool>,
    /// When its data was last scraped (by Prometheus' clock, or this host's in direct mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scraped_at: Option<UnixMs>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub devices: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_usage: Option<Usage>,
    /// Every device and type with a known limit (a host's detail; empty in the hosts table).
    pub usage: Vec<Usage>,
    pub error_qps: u64,
    pub error_qp_devices: Vec<ErrorQps>,
    pub leak_suspects: u64,
    pub nic: Vec<NicProblem>,
    /// Every port and its state (a host's detail; empty in the hosts table).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_consumer: Option<Consumer>,
}

impl HostReport {
    /// A host known by name only, before any fact about it is read.
    pub fn named(host: &str) -> HostReport {
        HostReport {
            host: host.to_string(),
            exporters: Vec::new(),
            reach: Reach::Up,
            collecting: None,
            scraped_at: None,
            devices: None,
            worst_usage: None,
            usage: Vec::new(),
            error_qps: 0,
            error_qp_devices: Vec::new(),
            leak_suspects: 0,
            nic: Vec::new(),
            ports: Vec::new(),
            top_consumer: None,
        }
    }

    /// NIC problems of one severity.
    pub fn nic_count(&self, severity: Severity) -> usize {
        self.nic.iter().filter(|p| p.severity == severity).count()
    }
}

/// Everything one refresh read.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FleetReading {
    /// This host's clock when the refresh ended.
    pub read_at: UnixMs,
    /// Prometheus' clock at its answer (the evaluation time of the instant queries); ages are
    /// measured on it, so a skewed local clock never makes fresh data look old.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_time: Option<UnixMs>,
    pub hosts: Vec<HostReport>,
    /// The top processes per metric, cluster-wide, with their host.
    pub processes: Vec<Consumer>,
    /// Pods per metric, with their host.
    pub pods: Vec<Consumer>,
    /// Namespaces per metric, summed over hosts.
    pub namespaces: Vec<Consumer>,
    pub suspects: Vec<Suspect>,
    /// What is partial about this reading: Prometheus' warnings, clock skew, hosts with two
    /// exporters, recording rules not loaded.
    pub notes: Vec<String>,
}

impl FleetReading {
    /// The clock that ages are measured on: Prometheus' when it said, else this host's.
    pub fn clock(&self) -> UnixMs {
        self.server_time.unwrap_or(self.read_at)
    }

    pub fn host(&self, name: &str) -> Option<&HostReport> {
        self.hosts.iter().find(|h| h.host == name)
    }
}
