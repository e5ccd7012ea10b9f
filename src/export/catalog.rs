//! Every metric family restop exports: name, type, help and label names.
//!
//! One list is the single source of truth: the renderer writes HELP and TYPE
//! from it, docs/exporter.md documents it (a test keeps the two in step), and
//! the tests check that the alert rules and the dashboard only reference names
//! from it.

/// Prometheus metric type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricType {
    Gauge,
    Counter,
}

impl MetricType {
    pub fn name(self) -> &'static str {
        match self {
            MetricType::Gauge => "gauge",
            MetricType::Counter => "counter",
        }
    }
}

/// One metric family. Counter names include `_total` (the sample name); the
/// OpenMetrics writer strips it for the family's metadata lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Family {
    pub name: &'static str,
    pub kind: MetricType,
    pub help: &'static str,
    pub labels: &'static [&'static str],
}

pub(super) const fn gauge(
    name: &'static str,
    labels: &'static [&'static str],
    help: &'static str,
) -> Family {
    Family {
        name,
        kind: MetricType::Gauge,
        help,
        labels,
    }
}

pub(super) const fn counter(
    name: &'static str,
    labels: &'static [&'static str],
    help: &'static str,
) -> Family {
    Family {
        name,
        kind: MetricType::Counter,
        help,
        labels,
    }
}

pub(crate) const BUILD_INFO: Family = gauge(
    "restop_build_info",
    &["version", "revision", "rustc_version", "target"],
    "restop's version, source revision, compiler and target, as labels; the value is always 1.",
);
pub(crate) const UP: Family = gauge(
    "restop_up",
    &["source"],
    "1 when the last collection read the source (live kernel, demo, replay), 0 when it failed.",
);
pub(crate) const RDMA_PRESENT: Family = gauge(
    "restop_rdma_present",
    &[],
    "1 when the last collection found RDMA devices, 0 when the host has no RDMA subsystem or no \
     device (nothing to monitor; the alerting rules do not page for it); absent until a \
     collection could tell.",
);
pub(crate) const COLLECTIONS: Family = counter(
    "restop_collections_total",
    &[],
    "Collections attempted since the exporter started, successful or not.",
);
pub(crate) const COLLECTION_ERRORS: Family = counter(
    "restop_collection_errors_total",
    &["kind"],
    "Collection problems since the exporter started, by kind: whole collections that failed \
     (no_rdma, permission, timeout, malformed, io, replay, exhausted) and partial failures \
     (dump_failed, device_vanished).",
);
pub(crate) const COLLECTION_DURATION: Family = gauge(
    "restop_collection_duration_seconds",
    &[],
    "Wall time the last collection took.",
);
pub(crate) const LAST_SUCCESS: Family = gauge(
    "restop_last_success_timestamp_seconds",
    &[],
    "Unix time at which the last successful collection ended.",
);
pub(crate) const SNAPSHOT_WARNINGS: Family = gauge(
    "restop_snapshot_warnings",
    &["kind"],
    "Warnings in the last snapshot, by kind (permission, dump_failed, device_vanished, netns, \
     unattributed, procfs, slow_dump, other): what is partial or hidden in the data.",
);
pub(crate) const DEVICE_INFO: Family = gauge(
    "restop_device_info",
    &[
        "device",
        "node_type",
        "protocol",
        "pf",
        "pci",
        "firmware_version",
        "netns",
        "pod",
    ],
    "RDMA device facts as labels (pf names the physical function of an SR-IOV virtual \
     function, empty otherwise; netns and pod only on devices of another network namespace, \
     in exclusive netns mode); the value is always 1.",
);
pub(crate) const PORT_ACTIVE: Family = gauge(
    "restop_port_active",
    &["device", "port", "netdev", "netns"],
    "1 when the RDMA port is ACTIVE, 0 otherwise.",
);
pub(crate) const RESOURCES: Family = gauge(
    "restop_resources",
    &["device", "type", "netns"],
    "RDMA objects of a type that currently exist on a device (the kernel's resource summary, \
     as `rdma resource show`).",
);
pub(crate) const RESOURCES_MAX: Family = gauge(
    "restop_resources_max",
    &["device", "type", "netns"],
    "Most objects of a type the device supports, when known.",
);
pub(crate) const RESOURCES_USAGE: Family = gauge(
    "restop_resources_usage_ratio",
    &["device", "type", "netns"],
    "restop_resources / restop_resources_max (0 to 1), when the limit is known.",
);
pub const DEVICE_LIMITS_UNREAD: Family = gauge(
    "restop_device_limits_unread",
    &["device", "reason", "netns"],
    "1 for a device with no maximum for some of qp, cq, mr, pd, srq: the kernel sent none and \
     libibverbs could not read it (reason: disabled, no_library, not_listed, permission, \
     open_failed); no series when its limits are known.",
);
pub(crate) const QUEUE_PAIRS: Family = gauge(
    "restop_queue_pairs",
    &["device", "state", "netns"],
    "Queue pairs on a device by state (RESET, INIT, RTR, RTS, SQD, SQE, ERR), from the last \
     object dump.",
);
pub(crate) const ERROR_QUEUE_PAIRS: Family = gauge(
    "restop_error_queue_pairs",
    &["device", "netns"],
    "Queue pairs in an error state (ERR or SQE) on a device, from the last object dump.",
);
pub const ERROR_QUEUE_PAIR_OLDEST_AGE: Family = gauge(
    "restop_error_queue_pair_oldest_age_seconds",
    &["device", "netns"],
    "How long the oldest queue pair in an error state on a device has been in it, as far as \
     restop has watched it.",
);
pub const LEAK_SUSPECTS: Family = gauge(
    "restop_leak_suspects",
    &[],
    "Owners and resource types whose count kept rising over the trend window (leak suspects; \
     see docs/leaks.md). Needs a few minutes of history: 0 right after start.",
);
pub const PROCESS_LEAK_SUSPECT: Family = gauge(
    "restop_process_leak_suspect",
    &["pid", "name", "type"],
    "1 for each owner and resource type currently judged a leak suspect; no series otherwise.",
);
pub const PROBLEMS: Family = gauge(
    "restop_problems",
    &["severity"],
    "Problems restop lists (the same list as --json's problems), by severity (critical, \
     warning, notice); 0 when there are none.",
);
pub const PROBLEM: Family = gauge(
    "restop_problem",
    &[
        "kind", "severity", "subject", "device", "port", "name", "detail", "netns",
    ],
    "1 for each problem while it is raised; no series otherwise. kind is the rule \
     (limit, leak_suspect, error_qps, nic_errors, congestion, link_flap, port_not_active, ...), \
     subject what it is about (host, device, port, process, kernel, unattributed, cgroup), \
     device the device it is on (an owner's ERROR QPs: one series per device they are on), \
     name the owner's or cgroup's name (no pid), detail the counter, type or quota. At most \
     100 series.",
);
/// Label names of an owner's series (`OwnerLabels::pairs` fills them in this order).
pub(crate) const OWNER_LABELS: [&str; 8] = [
    "pid",
    "name",
    "user",
    "namespace",
    "pod",
    "container",
    "uid",
    "container_id",
];

/// An owner's labels and the resource type.
const OWNER_AND_TYPE_LABELS: [&str; 9] = {
    let mut out = [""; 9];
    let mut i = 0;
    while i < OWNER_LABELS.len() {
        out[i] = OWNER_LABELS[i];
        i += 1;
    }
    out[8] = "type";
    out
};

pub(crate) const PROCESS_RESOURCES: Family = gauge(
    "restop_process_resources",
    &OWNER_AND_TYPE_LABELS,
    "RDMA objects of a type held by an owner (a process, or a container or pod with \
     --owners-by), summed over devices: the top N owners per type (--top), plus \
     name=\"other\" for the rest. Kernel owners are named [module]; namespace, pod, container \
     and uid are those of kube_pod_info.",
);
pub(crate) const PROCESS_MR_BYTES: Family = gauge(
    "restop_process_mr_bytes",
    &OWNER_LABELS,
    "Bytes of memory registered in MRs by an owner, summed over devices: the top N owners \
     (--top), plus name=\"other\" for the rest.",
);

/// Every family, in the order they are written. Keep docs/exporter.md in step
/// (tests/it/export_assets.rs checks).
pub const ALL: &[Family] = &[
    BUILD_INFO,
    UP,
    RDMA_PRESENT,
    COLLECTIONS,
    COLLECTION_ERRORS,
    COLLECTION_DURATION,
    LAST_SUCCESS,
    SNAPSHOT_WARNINGS,
    DEVICE_INFO,
    PORT_ACTIVE,
    RESOURCES,
    RESOURCES_MAX,
    RESOURCES_USAGE,
    DEVICE_LIMITS_UNREAD,
    QUEUE_PAIRS,
    ERROR_QUEUE_PAIRS,
    super::counter_families::PORT_HW_COUNTER,
    super::counter_families::PORT_PMA_COUNTER,
    super::counter_families::PORT_TRANSMIT_BYTES,
    super::counter_families::PORT_RECEIVE_BYTES,
    super::counter_families::PORT_TRANSMIT_PACKETS,
    super::counter_families::PORT_RECEIVE_PACKETS,
    super::counter_families::PORT_LINK_RATE,
    super::netdev::NETDEV_INFO,
    super::netdev::NETDEV_PAUSE_FRAMES,
    super::netdev::NETDEV_DISCARDS,
    super::counter_families::QP_BOUND_COUNTER,
    ERROR_QUEUE_PAIR_OLDEST_AGE,
    LEAK_SUSPECTS,
    PROCESS_LEAK_SUSPECT,
    PROBLEMS,
    PROBLEM,
    PROCESS_RESOURCES,
    PROCESS_MR_BYTES,
];

pub fn families() -> impl Iterator<Item = &'static Family> {
    ALL.iter()
}

/// The family a sample name belongs to (`restop_collections_total` → its counter).
pub fn find(name: &str) -> Option<&'static Family> {
    families().find(|f| f.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_prometheus_conventions() {
        for f in families() {
            assert!(f.name.starts_with("restop_"), "{}", f.name);
            assert!(
                f.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{}",
                f.name
            );
            assert_eq!(
                f.kind == MetricType::Counter,
                f.name.ends_with("_total"),
                "only counters end in _total: {}",
                f.name
            );
            // Reserved for histograms and summaries.
            for reserved in ["_count", "_sum", "_bucket"] {
                assert!(!f.name.ends_with(reserved), "{}", f.name);
            }
            assert!(!f.help.is_empty() && !f.help.contains('\n'), "{}", f.name);
        }
    }

    /// A series about a device is about (namespace, name): `netns` goes
    /// wherever `device` does (`device_labels.rs`).
    #[test]
    fn every_device_family_has_netns() {
        for f in families() {
            assert_eq!(
                f.labels.contains(&"device"),
                f.labels.contains(&"netns"),
                "{}",
                f.name
            );
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = families().map(|f| f.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }
}
