//! The `--json` document's shape (schema version 1, see docs/json.md).
//!
//! These structs are a view of the model made for readers of the document:
//! names as the kernel and iproute2 spell them, `null` for unknown values,
//! and fields in the documented order. Changing them changes the contract.

use crate::model::UnixMs;
use crate::model::error_qp_table::{ErrorQpColumn, ErrorQpRow, ErrorQpValue};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

pub(crate) const SCHEMA_VERSION: u32 = 1;

/// The whole `--json` document (docs/json.md).
#[derive(Debug, Serialize)]
pub struct JsonDocument {
    /// `SCHEMA_VERSION`: raised when a field changes meaning or goes.
    pub schema_version: u32,
    /// Host, kernel, collection time, warnings.
    pub meta: MetaView,
    /// What is wrong, most severe first (`problems.rs`).
    pub problems: Vec<super::ProblemView>,
    /// Every device the filters admit, each PF followed by its VFs.
    pub devices: Vec<DeviceView>,
    /// Processes holding objects, most QPs first.
    pub processes: Vec<ProcessView>,
    /// Kernel modules holding objects (`ib_core`, `rdma_cm`, ...).
    pub kernel: Vec<KernelOwnerView>,
    /// Objects whose owner could not be found.
    pub unattributed: BucketView,
    /// QPs in ERR or SQE, by device, port and QP number.
    pub error_qps: Vec<ErrorQpView>,
    /// With `--group container|pod` only: the containers or pods (see `groups.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<super::GroupView>>,
}

#[derive(Debug, Serialize)]
pub struct MetaView {
    pub source: &'static str,
    pub restop_version: &'static str,
    pub host: String,
    pub kernel: String,
    pub collected_at: String,
    pub collected_at_ms: UnixMs,
    pub collect_ms: f64,
    pub netns_mode: Option<&'static str>,
    pub hidden_fields: Vec<String>,
    pub warnings: Vec<WarningView>,
}

#[derive(Debug, Serialize)]
pub struct WarningView {
    pub kind: &'static str,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub struct DeviceView {
    pub name: String,
    pub index: u32,
    pub node_guid: Option<String>,
    pub fw_version: Option<String>,
    pub node_type: Option<String>,
    pub protocol: Option<String>,
    pub pci: Option<String>,
    pub pf: Option<String>,
    /// The network namespace the device was read in, when it is not restop's
    /// own (exclusive netns mode); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub netns: Option<crate::model::DeviceNetns>,
    pub ports: Vec<PortView>,
    pub usage: OrderedMap<UsageView>,
    pub object_limits: Option<ObjectLimitsView>,
    pub objects_collected_at_ms: Option<UnixMs>,
    /// Per type: Unix ms of its latest dump (types have their own cadence).
    pub objects_collected_at_ms_by_type: std::collections::BTreeMap<&'static str, UnixMs>,
    pub object_errors: Vec<ObjectErrorView>,
}

#[derive(Debug, Serialize)]
pub struct PortView {
    pub index: u32,
    pub state: Option<String>,
    pub phys_state: Option<String>,
    pub netdev: Option<String>,
    /// Counter keys (`counters`, `rates`, ...), see `port_counters.rs`.
    #[serde(flatten)]
    pub counters: super::port_counters::PortCountersView,
}

#[derive(Debug, Serialize)]
pub struct UsageView {
    pub current: u64,
    pub max: Option<u64>,
    pub ratio: Option<f64>,
    /// `kernel`, `verbs` or `demo`: where `max` came from.
    pub max_source: Option<&'static str>,
    /// `normal`, `warning` or `critical` against the thresholds.
    pub level: Option<&'static str>,
}

/// How big one object may be (verbs device attributes).
#[derive(Debug, Serialize)]
pub struct ObjectLimitsView {
    pub max_qp_wr: Option<u64>,
    pub max_cqe: Option<u64>,
    pub max_mr_size: Option<u64>,
}

/// A process's share of the objects of one type on its devices.
#[derive(Debug, Serialize)]
pub struct ShareView {
    pub of_current: Option<f64>,
    pub of_max: Option<f64>,
}

#[derive(Debug, Serialize)]
pub struct RdmaCgroupView {
    pub path: String,
    pub devices: OrderedMap<DeviceQuotaView>,
}

#[derive(Debug, Serialize)]
pub struct DeviceQuotaView {
    pub hca_handle: QuotaView,
    pub hca_object: QuotaView,
}

#[derive(Debug, Serialize)]
pub struct QuotaView {
    pub current: u64,
    pub max: Option<u64>,
    pub ratio: Option<f64>,
    /// The cgroup whose `rdma.max` this is.
    pub cgroup: String,
}

#[derive(Debug, Serialize)]
pub struct ObjectErrorView {
    #[serde(rename = "type")]
    pub resource_type: &'static str,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub struct ProcessView {
    pub pid: u32,
    pub start_time: u64,
    pub started_at: Option<String>,
    pub comm: String,
    pub name: String,
    pub cmdline: Vec<String>,
    pub uid: Option<u32>,
    pub user: Option<String>,
    pub container: Option<ContainerView>,
    pub threads: Vec<ThreadView>,
    #[serde(flatten)]
    pub holdings: BucketView,
    pub share: OrderedMap<ShareView>,
    pub rdma_cgroup: Option<RdmaCgroupView>,
}

#[derive(Debug, Serialize)]
pub struct ContainerView {
    pub runtime: &'static str,
    pub id: String,
    pub pod: Option<String>,
    /// Namespace, pod and container names, when the node shows them.
    pub kubernetes: Option<KubeView>,
}

#[derive(Debug, Serialize)]
pub struct KubeView {
    pub namespace: String,
    pub pod: String,
    pub container: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ThreadView {
    pub tid: u32,
    pub comm: String,
}

#[derive(Debug, Serialize)]
pub struct KernelOwnerView {
    pub name: String,
    #[serde(flatten)]
    pub holdings: BucketView,
}

/// What one owner holds: counts per type, registered bytes, QPs per state,
/// and the devices it holds them on.
#[derive(Debug, Default, Serialize)]
pub struct BucketView {
    pub counts: OrderedMap<u64>,
    pub mr_bytes: u64,
    pub qp_states: OrderedMap<u64>,
    pub devices: Vec<String>,
}

/// One `error_qps` entry: the ERROR-QP table's JSON columns
/// (`ErrorQpColumn::JSON`), in that order, under their JSON keys.
#[derive(Debug)]
pub struct ErrorQpView(pub Vec<(&'static str, ErrorQpValue)>);

impl ErrorQpView {
    pub fn of(row: ErrorQpRow) -> ErrorQpView {
        let fields = ErrorQpColumn::JSON
            .iter()
            .map(|c| (c.spec().json_key, c.value(row)))
            .collect();
        ErrorQpView(fields)
    }
}

impl Serialize for ErrorQpView {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            match value {
                ErrorQpValue::Number(n) => map.serialize_entry(key, n)?,
                ErrorQpValue::Text(t) => map.serialize_entry(key, t)?,
                ErrorQpValue::MaybeText(t) => map.serialize_entry(key, t)?,
                ErrorQpValue::Age { ms, .. } => map.serialize_entry(key, ms)?,
            }
        }
        map.end()
    }
}

/// A JSON object whose keys keep the order they were inserted in (display
/// order: `qp`, `cq`, `mr`, ... and QP states in lifecycle order).
#[derive(Debug, Default)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}
