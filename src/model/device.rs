//! RDMA devices, their ports, and per-type usage against limits; the order
//! every view lists them in (each PF followed by its VFs) and how much
//! trouble a device is in, for the views that put the worst first.

use super::enums::{PhysState, PortState, StateCounts};
use super::limits::ObjectLimits;
use super::limits::{Level, Thresholds};
use super::resource::ResourceType;
use super::snapshot::Snapshot;
use super::time::UnixMs;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Port {
    pub index: u32,
    pub state: Option<PortState>,
    pub phys_state: Option<PhysState>,
    /// The netdev bound to the port, if it is in our network namespace.
    pub netdev: Option<String>,
    pub netdev_index: Option<u32>,
    /// NIC counters of this port (model/counters), when they were read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<super::counters::PortCounters>,
}

/// Where a limit came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitSource {
    /// `RES_SUMMARY_ENTRY_MAX` in the kernel's summary.
    Kernel,
    /// `ibv_query_device()` through libibverbs.
    Verbs,
    /// The simulated demo host.
    Demo,
}

/// Why a device has no maximum for a type that can have one (docs/limits.md):
/// the kernel's summary sent none and libibverbs could not tell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitsUnread {
    /// `--no-verbs`: libibverbs is never asked.
    Disabled,
    /// libibverbs (or a function restop calls) could not be loaded.
    NoLibrary,
    /// libibverbs does not list the device: no user-space provider for it, or
    /// its `/dev/infiniband/uverbsN` is not there (a private `/dev`, a
    /// container without the device).
    NotListed,
    /// Opening `/dev/infiniband/uverbsN` was refused (EACCES, EPERM: the file's
    /// mode, a device cgroup, systemd's `DevicePolicy`).
    Permission,
    /// Opening or querying the device failed otherwise.
    OpenFailed,
}

impl LimitsUnread {
    /// The name in metric labels (the serde spelling).
    pub fn name(self) -> &'static str {
        match self {
            LimitsUnread::Disabled => "disabled",
            LimitsUnread::NoLibrary => "no_library",
            LimitsUnread::NotListed => "not_listed",
            LimitsUnread::Permission => "permission",
            LimitsUnread::OpenFailed => "open_failed",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageEntry {
    pub current: u64,
    pub max: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_source: Option<LimitSource>,
}

impl UsageEntry {
    /// Fraction of the limit in use (0.0..), when a non-zero limit is known.
    pub fn ratio(&self) -> Option<f64> {
        match self.max {
            Some(max) if max > 0 => Some(self.current as f64 / max as f64),
            _ => None,
        }
    }
}

/// Current count (and limit) per resource type, from the kernel's summary.
/// A type missing from the map was not in the summary (older kernels).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Usage(pub BTreeMap<ResourceType, UsageEntry>);

impl Usage {
    pub fn get(&self, t: ResourceType) -> Option<&UsageEntry> {
        self.0.get(&t)
    }

    pub fn current(&self, t: ResourceType) -> Option<u64> {
        self.get(t).map(|e| e.current)
    }

    pub fn set(&mut self, t: ResourceType, entry: UsageEntry) {
        self.0.insert(t, entry);
    }
}

/// How the last object dumps of a device went.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpStatus {
    /// Unix milliseconds of the object dumps the snapshot's objects come from;
    /// `None` when no object dump has completed for this device yet.
    pub collected_at_ms: Option<UnixMs>,
    /// Per type: Unix milliseconds of its latest dump on this device. Each
    /// type is dumped on its own cadence (huge MR dumps do not hold back
    /// the QP dump), so these can differ; `collected_at_ms` is the oldest.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub types: std::collections::BTreeMap<ResourceType, UnixMs>,
    /// Types whose dump failed, with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<(ResourceType, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    /// The kernel's ib_device index (`ifindex` in iproute2's JSON).
    pub index: u32,
    pub name: String,
    pub node_guid: Option<u64>,
    pub sys_image_guid: Option<u64>,
    pub fw_version: Option<String>,
    /// `DEV_NODE_TYPE` name (CA, RNIC, ...).
    pub node_type: Option<String>,
    /// `DEV_PROTOCOL` (ib, roce, iw, ...).
    pub protocol: Option<String>,
    pub ports: Vec<Port>,
    /// PCI address from sysfs, when the device has one.
    pub pci: Option<String>,
    /// For an SR-IOV virtual function: the RDMA device name of its physical function.
    pub pf: Option<String>,
    pub usage: Usage,
    /// Per-object limits (largest QP, CQ, MR), when the verbs library told them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_limits: Option<ObjectLimits>,
    /// Why maxima the kernel did not send could not be read either (live
    /// collections only; not part of JSON or recordings).
    #[serde(skip)]
    pub limits_unread: Option<LimitsUnread>,
    pub objects: DumpStatus,
    /// The network namespace the device was read in, when it is not restop's own
    /// (exclusive netns mode, `model/netns.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netns: Option<super::netns::DeviceNetns>,
}

impl Device {
    pub fn new(index: u32, name: impl Into<String>) -> Device {
        Device {
            index,
            name: name.into(),
            node_guid: None,
            sys_image_guid: None,
            fw_version: None,
            node_type: None,
            protocol: None,
            ports: Vec::new(),
            pci: None,
            pf: None,
            usage: Usage::default(),
            object_limits: None,
            limits_unread: None,
            objects: DumpStatus::default(),
            netns: None,
        }
    }

    pub fn is_vf(&self) -> bool {
        self.pf.is_some()
    }
}

/// Node type names (`enum rdma_node_type`).
pub(crate) fn node_type_name(raw: u8) -> &'static str {
    match raw {
        1 => "CA",
        2 => "SWITCH",
        3 => "ROUTER",
        4 => "RNIC",
        5 => "USNIC",
        6 => "USNIC_UDP",
        7 => "UNSPECIFIED",
        _ => "UNKNOWN",
    }
}

/// Orders devices so each physical function is followed by its virtual
/// functions, then the rest by name. Used by every view that lists devices.
pub(crate) fn grouped_order(devices: &[Device]) -> Vec<&Device> {
    let mut roots: Vec<&Device> = devices
        .iter()
        .filter(|d| match &d.pf {
            None => true,
            // A VF whose PF we cannot see is shown on its own.
            Some(pf) => !devices.iter().any(|p| &p.name == pf),
        })
        .collect();
    roots.sort_by(|a, b| natural_cmp(&a.name, &b.name));
    let mut out = Vec::with_capacity(devices.len());
    for root in roots {
        out.push(root);
        let mut vfs: Vec<&Device> = devices
            .iter()
            .filter(|d| d.pf.as_deref() == Some(root.name.as_str()))
            .collect();
        vfs.sort_by(|a, b| natural_cmp(&a.name, &b.name));
        out.extend(vfs);
    }
    out
}

/// What tells that a device is in trouble, read from one snapshot (and its
/// counter history), for the views that list the worst devices first.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct TroubleSigns {
    /// The fullest of its usage ratios (0 when no limit is known).
    pub(crate) fullest: f64,
    /// Error or congestion counters moved in the last interval.
    pub(crate) counters_moved: bool,
    /// One of them keeps rising (the counter history alerts on it).
    pub(crate) counters_alerting: bool,
    /// Its (first) port is not ACTIVE.
    pub(crate) port_not_active: bool,
    /// Queue pairs in ERR or SQE on it.
    pub(crate) error_qps: u64,
}

/// How much trouble a device is in: a higher key is worse. The worst level
/// of its usage (against the thresholds), its counters (moved: warning,
/// alerting: critical), its port (not ACTIVE: warning) and its ERROR QPs
/// (any: warning, so a device with broken QPs comes before idle ones); then
/// the fullest usage in whole per-mille (a ratio's last digits must not
/// reorder rows), then the number of ERROR QPs.
pub(crate) fn trouble(signs: &TroubleSigns, thresholds: &Thresholds) -> (Level, u64, u64) {
    let usage = thresholds.level(signs.fullest);
    let counters = if signs.counters_alerting {
        Level::Critical
    } else if signs.counters_moved {
        Level::Warn
    } else {
        Level::Normal
    };
    let port = if signs.port_not_active {
        Level::Warn
    } else {
        Level::Normal
    };
    let qps = if signs.error_qps > 0 {
        Level::Warn
    } else {
        Level::Normal
    };
    let level = usage.max(counters).max(port).max(qps);
    let permille = (signs.fullest * 1000.0).round().clamp(0.0, 1e9) as u64;
    (level, permille, signs.error_qps)
}

/// The states of every owner's queue pairs, summed per device index (QP
/// states come from the object dumps: a device whose objects were never
/// dumped has no entry).
pub(crate) fn qp_states_by_device(snapshot: &Snapshot) -> BTreeMap<u32, StateCounts> {
    let mut out: BTreeMap<u32, StateCounts> = BTreeMap::new();
    for t in &snapshot.tallies {
        out.entry(t.device).or_default().merge(&t.qp_states);
    }
    out
}

/// Queue pairs in ERR or SQE per device index, for the devices that have any.
pub(crate) fn error_qps_by_device(snapshot: &Snapshot) -> BTreeMap<u32, u64> {
    qp_states_by_device(snapshot)
        .into_iter()
        .map(|(device, states)| (device, states.errors()))
        .filter(|&(_, n)| n > 0)
        .collect()
}

/// Compares names so that `mlx5_2` sorts before `mlx5_10`.
pub(crate) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn split(s: &str) -> (&str, Option<u64>) {
        let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (head, tail) = s.split_at(s.len() - digits);
        (head, tail.parse().ok())
    }
    let (ha, na) = split(a);
    let (hb, nb) = split(b);
    ha.cmp(hb).then(na.cmp(&nb)).then(a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(name: &str, pf: Option<&str>) -> Device {
        let mut d = Device::new(0, name);
        d.pf = pf.map(String::from);
        d
    }

    #[test]
    fn error_qps_make_a_device_worse_than_an_idle_one() {
        let t = Thresholds::default();
        let idle = TroubleSigns::default();
        let broken = TroubleSigns {
            error_qps: 6,
            ..idle
        };
        let fuller = TroubleSigns {
            fullest: 0.5,
            ..idle
        };
        assert_eq!(trouble(&idle, &t), (Level::Normal, 0, 0));
        assert_eq!(trouble(&broken, &t), (Level::Warn, 0, 6));
        // Half full is no trouble yet; broken QPs are.
        assert!(trouble(&broken, &t) > trouble(&fuller, &t));
        // A device past the critical threshold stays worse.
        let full = TroubleSigns {
            fullest: 0.97,
            ..idle
        };
        assert!(trouble(&full, &t) > trouble(&broken, &t));
    }

    #[test]
    fn error_qps_are_counted_per_device_over_every_owner() {
        use crate::model::{OwnerKey, QpState, SourceKind, Tally, UnixMs};
        let mut s = Snapshot::empty(SourceKind::Demo, UnixMs(0));
        for (device, err, rts) in [(0, 0, 5), (1, 2, 1), (1, 3, 0)] {
            let mut t = Tally::new(OwnerKey::Kernel(format!("m{err}")), device);
            t.qp_states.add(QpState::Err, err);
            t.qp_states.add(QpState::Rts, rts);
            s.tallies.push(t);
        }
        assert_eq!(
            error_qps_by_device(&s).into_iter().collect::<Vec<_>>(),
            [(1, 5)]
        );
    }

    #[test]
    fn vfs_follow_their_pf() {
        let devices = vec![
            dev("mlx5_3", Some("mlx5_1")),
            dev("mlx5_1", None),
            dev("mlx5_2", Some("mlx5_0")),
            dev("mlx5_0", None),
            dev("mlx5_10", Some("mlx5_0")),
            dev("orphan_vf", Some("gone")),
        ];
        let names: Vec<&str> = grouped_order(&devices)
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "mlx5_0",
                "mlx5_2",
                "mlx5_10",
                "mlx5_1",
                "mlx5_3",
                "orphan_vf"
            ]
        );
    }

    #[test]
    fn ratio_needs_a_nonzero_max() {
        let e = UsageEntry {
            current: 5,
            max: Some(10),
            max_source: None,
        };
        assert_eq!(e.ratio(), Some(0.5));
        let zero = UsageEntry { max: Some(0), ..e };
        assert_eq!(zero.ratio(), None);
    }
}
