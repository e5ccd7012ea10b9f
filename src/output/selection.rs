//! What the filters select from a snapshot, computed once and shared by the
//! `--once` report and the `--json` document so both always agree.

use crate::model::consumers::{Consumer, consumers};
use crate::model::device::grouped_order;
use crate::model::error_qps::{ErrorQp, error_qps};
use crate::model::filter::Filter;
use crate::model::limits::{Thresholds, cgroup_warnings, device_warnings};
use crate::model::{Device, OwnerKey, ResourceType, Snapshot, Warning, WarningKind};

/// What the filters admit of one snapshot.
pub struct Selection<'a> {
    /// The filter as applied (a thread id given as `--pid` replaced by its process).
    pub filter: Filter,
    /// Devices the filter admits, each physical function followed by its VFs.
    pub devices: Vec<&'a Device>,
    /// Every admitted owner (processes, kernel owners, unattributed), QPs first.
    pub consumers: Vec<Consumer>,
    /// Admitted QPs in ERR/SQE; empty when `--type` leaves QPs out.
    pub error_qps: Vec<ErrorQp>,
    /// The snapshot's warnings, then the selection's own (unknown device,
    /// then `limit` warnings).
    pub warnings: Vec<Warning>,
    /// `--dev` named a device the snapshot does not have.
    pub unknown_device: bool,
}

impl<'a> Selection<'a> {
    /// The selection with `limit` warnings at the default thresholds.
    pub fn new(snapshot: &'a Snapshot, filter: &Filter) -> Selection<'a> {
        Selection::with_thresholds(snapshot, filter, &Thresholds::default())
    }

    /// The selection with `limit` warnings at `thresholds` (the report group's, from the config file).
    pub fn with_thresholds(
        snapshot: &'a Snapshot,
        filter: &Filter,
        thresholds: &Thresholds,
    ) -> Selection<'a> {
        let filter = resolve_thread_id(snapshot, filter);
        let devices: Vec<&Device> = grouped_order(&snapshot.devices)
            .into_iter()
            .filter(|d| filter.shows_device(&d.name))
            .collect();
        let mut consumers = consumers(snapshot, &filter);
        order_device_names(snapshot, &mut consumers);
        let error_qps = if filter.shows_type(ResourceType::Qp) {
            error_qps(snapshot, &filter)
        } else {
            Vec::new()
        };
        let mut warnings = snapshot.meta.warnings.clone();
        let unknown = unknown_device_warning(snapshot, &filter);
        let unknown_device = unknown.is_some();
        warnings.extend(unknown);
        // Limits of what is shown: the selected devices, the selected processes' quotas.
        warnings.extend(device_warnings(snapshot, &devices, thresholds));
        warnings.extend(cgroup_warnings(
            consumers.iter().filter_map(|c| c.process.as_ref()),
            thresholds,
        ));
        Selection {
            filter,
            devices,
            consumers,
            error_qps,
            warnings,
            unknown_device,
        }
    }

    /// The admitted processes, in the consumers' order.
    pub fn processes(&self) -> impl Iterator<Item = &Consumer> {
        self.consumers
            .iter()
            .filter(|c| matches!(c.owner, OwnerKey::Process(_)))
    }

    /// The admitted kernel owners (`[module]`), in the consumers' order.
    pub fn kernel_owners(&self) -> impl Iterator<Item = &Consumer> {
        self.consumers
            .iter()
            .filter(|c| matches!(c.owner, OwnerKey::Kernel(_)))
    }

    /// The bucket of objects no owner could be found for, if admitted.
    pub fn unattributed(&self) -> Option<&Consumer> {
        self.consumers
            .iter()
            .find(|c| c.owner == OwnerKey::Unattributed)
    }
}

/// `Some(warning)` when `--dev` names no device of the snapshot.
pub fn unknown_device_warning(snapshot: &Snapshot, filter: &Filter) -> Option<Warning> {
    let wanted = filter.device.as_deref()?;
    if snapshot.devices.iter().any(|d| d.name == wanted) {
        return None;
    }
    let names: Vec<&str> = grouped_order(&snapshot.devices)
        .into_iter()
        .map(|d| d.name.as_str())
        .collect();
    let have = if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    };
    Some(Warning::new(
        WarningKind::Other,
        format!("no device named {wanted} (have: {have})"),
    ))
}

/// Lists each consumer's devices in the order devices are shown (PF, its
/// VFs, then the next PF), whatever order the source listed them in.
fn order_device_names(snapshot: &Snapshot, consumers: &mut [Consumer]) {
    for c in consumers {
        in_device_order(snapshot, &mut c.devices);
    }
}

/// Sorts device names in the order devices are shown (PF, its VFs, then the next PF).
pub(crate) fn in_device_order(snapshot: &Snapshot, names: &mut [String]) {
    let order: Vec<&str> = grouped_order(&snapshot.devices)
        .into_iter()
        .map(|d| d.name.as_str())
        .collect();
    names.sort_by_key(|name| order.iter().position(|n| n == name).unwrap_or(usize::MAX));
}

/// The kernel reports the *thread* that created an object; a user who copied
/// that id from `rdma res` or `ps -L` means its process.
fn resolve_thread_id(snapshot: &Snapshot, filter: &Filter) -> Filter {
    let mut out = filter.clone();
    if let Some(id) = filter.pid
        && !snapshot.processes.iter().any(|p| p.key.pid == id)
        && let Some(process) = snapshot
            .processes
            .iter()
            .find(|p| p.creator_threads.iter().any(|(tid, _)| *tid == id))
    {
        out.pid = Some(process.key.pid);
    }
    out
}
