//! Phase 4: the snapshot, from this collection's devices and the object view
//! of the last round.

use super::round::ObjectView;
use crate::model::{Device, Meta, NetnsMode, Snapshot, SourceKind, Warning};
use std::collections::HashSet;

/// What the snapshot says about the collection itself.
pub(super) struct Collected {
    pub host: String,
    pub kernel: String,
    pub collected_at_ms: u64,
    pub collect_us: u64,
    pub netns_mode: Option<NetnsMode>,
}

/// Puts devices and the last object view together; each device says when its
/// objects were dumped and which dumps failed.
pub(super) fn assemble(
    collected: Collected,
    mut devices: Vec<Device>,
    view: &ObjectView,
    mut warnings: Vec<Warning>,
) -> Snapshot {
    for device in &mut devices {
        if view.dumped.contains(&device.index) {
            device.objects.collected_at_ms = Some(view.collected_at_ms);
        }
        if let Some(errors) = view.errors.get(&device.index) {
            device.objects.errors = errors.clone();
        }
    }
    warnings.extend(view.warnings.iter().cloned());
    // The same condition can be seen twice (a vanished device fails its port
    // query and its dumps); say it once.
    let mut seen = HashSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    Snapshot {
        meta: Meta {
            source: SourceKind::Live,
            host: collected.host,
            kernel: collected.kernel,
            collected_at_ms: collected.collected_at_ms,
            collect_us: collected.collect_us,
            netns_mode: collected.netns_mode,
            hidden_fields: view.hidden_fields.clone(),
            warnings,
        },
        devices,
        processes: view.processes.clone(),
        tallies: view.tallies.clone(),
        objects: view.objects.clone(),
    }
}
