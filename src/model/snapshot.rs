//! One complete observation of the host: what every view and output is drawn from.

use super::device::Device;
use super::enums::StateCounts;
use super::objects::Object;
use super::owner::{OwnerKey, ProcessInfo, ProcessKey};
use super::resource::TypeCounts;
use super::time::UnixMs;
use serde::{Deserialize, Serialize};

/// Where a snapshot came from. Shown wherever data is shown, so simulated or
/// recorded data is never mistaken for the live host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    Live,
    Demo,
    Replay,
}

impl SourceKind {
    pub fn label(self) -> &'static str {
        match self {
            SourceKind::Live => "live",
            SourceKind::Demo => "demo (simulated)",
            SourceKind::Replay => "replay",
        }
    }
}

/// `rdma system show netns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetnsMode {
    Shared,
    Exclusive,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// Something is hidden for lack of a capability (MR keys without CAP_NET_ADMIN).
    Permission,
    /// An object dump of one device failed; other devices are still shown.
    DumpFailed,
    /// A device disappeared between listing and dumping.
    DeviceVanished,
    /// Network namespace in exclusive mode: only this namespace's devices are visible.
    Netns,
    /// Objects that could not be attributed to an owner.
    Unattributed,
    /// procfs could not be read for an owner (hidepid, exited process, ...).
    Procfs,
    /// Object dumps are slower than asked and run less often.
    SlowDump,
    /// A resource at or past the warning threshold of its limit (device
    /// maximum or cgroup `rdma.max`).
    Limit,
    /// Anything else worth telling.
    Other,
}

impl WarningKind {
    /// Every kind, for outputs that list them all (e.g. one metric series each).
    pub const ALL: [WarningKind; 9] = [
        WarningKind::Permission,
        WarningKind::DumpFailed,
        WarningKind::DeviceVanished,
        WarningKind::Netns,
        WarningKind::Unattributed,
        WarningKind::Procfs,
        WarningKind::SlowDump,
        WarningKind::Limit,
        WarningKind::Other,
    ];

    /// The name used in JSON and metrics labels (the serde spelling).
    pub fn name(self) -> &'static str {
        match self {
            WarningKind::Permission => "permission",
            WarningKind::DumpFailed => "dump_failed",
            WarningKind::DeviceVanished => "device_vanished",
            WarningKind::Netns => "netns",
            WarningKind::Unattributed => "unattributed",
            WarningKind::Procfs => "procfs",
            WarningKind::SlowDump => "slow_dump",
            WarningKind::Limit => "limit",
            WarningKind::Other => "other",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Warning {
    pub kind: WarningKind,
    pub message: String,
}

impl Warning {
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Warning {
        Warning {
            kind,
            message: message.into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub source: SourceKind,
    pub host: String,
    pub kernel: String,
    /// Unix milliseconds when collection of this snapshot started.
    pub collected_at_ms: UnixMs,
    /// How long collecting this snapshot took, in microseconds.
    pub collect_us: u64,
    pub netns_mode: Option<NetnsMode>,
    /// Fields the kernel withheld (e.g. `mr.rkey`): reported as hidden, never as zero.
    #[serde(default)]
    pub hidden_fields: Vec<String>,
    #[serde(default)]
    pub warnings: Vec<Warning>,
}

/// What one owner holds on one device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub owner: OwnerKey,
    /// Device index.
    pub device: u32,
    pub counts: TypeCounts,
    /// Sum of MR lengths: memory registered (and for most MRs pinned).
    pub mr_bytes: u64,
    pub qp_states: StateCounts,
}

impl Tally {
    pub fn new(owner: OwnerKey, device: u32) -> Tally {
        Tally {
            owner,
            device,
            counts: TypeCounts::default(),
            mr_bytes: 0,
            qp_states: StateCounts::default(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub meta: Meta,
    pub devices: Vec<Device>,
    /// Every process that owns at least one object.
    pub processes: Vec<ProcessInfo>,
    /// Per owner and device, counted over *all* objects of the last object dumps.
    pub tallies: Vec<Tally>,
    /// Objects kept in detail: every QP in ERR/SQE, plus everything owned by the
    /// processes the caller asked details for (see `DetailScope`).
    pub objects: Vec<Object>,
}

impl Meta {
    /// A snapshot's facts when nothing but its source and time is known yet: the one place a
    /// `Meta` is filled with blanks, so a new field is added here and not in every test.
    pub fn new(source: SourceKind, collected_at_ms: UnixMs) -> Meta {
        Meta {
            source,
            host: String::new(),
            kernel: String::new(),
            collected_at_ms,
            collect_us: 0,
            netns_mode: None,
            hidden_fields: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

impl Snapshot {
    /// A snapshot of nothing: no devices, owners or objects. Sources and tests fill in the rest.
    pub fn empty(source: SourceKind, collected_at_ms: UnixMs) -> Snapshot {
        Snapshot {
            meta: Meta::new(source, collected_at_ms),
            devices: Vec::new(),
            processes: Vec::new(),
            tallies: Vec::new(),
            objects: Vec::new(),
        }
    }

    pub fn process(&self, key: &ProcessKey) -> Option<&ProcessInfo> {
        self.processes.iter().find(|p| &p.key == key)
    }

    pub fn device(&self, index: u32) -> Option<&Device> {
        self.devices.iter().find(|d| d.index == index)
    }

    pub fn device_name(&self, index: u32) -> String {
        self.device(index)
            .map(|d| d.name.clone())
            .unwrap_or_else(|| format!("dev{index}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_kind_names_are_the_serde_names() {
        for kind in WarningKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
        }
    }
}
