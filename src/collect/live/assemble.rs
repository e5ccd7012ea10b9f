//! Phase 4: the snapshot, from this collection's devices and the latest dump
//! of every object type.

use super::latest_dumps::LatestDumps;
use crate::model::{
    Device, Meta, NetnsMode, OwnerKey, Snapshot, SourceKind, Tally, UnixMs, Warning, WarningKind,
};
use std::collections::HashSet;

/// What the snapshot says about the collection itself.
pub(super) struct Collected {
    pub host: String,
    pub kernel: String,
    pub collected_at_ms: UnixMs,
    pub collect_us: u64,
    pub netns_mode: Option<NetnsMode>,
}

/// Puts devices and the latest dumps together; each device says when each
/// type's objects were dumped and which dumps failed.
pub(super) fn assemble(
    collected: Collected,
    mut devices: Vec<Device>,
    dumps: &LatestDumps,
    mut warnings: Vec<Warning>,
) -> Snapshot {
    for device in &mut devices {
        for (t, tv) in &dumps.types {
            if tv.dumped.contains(&device.index) {
                device.objects.types.insert(*t, tv.collected_at_ms);
            }
            if let Some(error) = tv.errors.get(&device.index) {
                device.objects.errors.push((*t, error.clone()));
            }
        }
        // The oldest type: what every count of the device is at least as new as.
        device.objects.collected_at_ms = device.objects.types.values().min().copied();
    }
    let tallies = dumps.tallies();
    for tv in dumps.types.values() {
        warnings.extend(tv.warnings.iter().cloned());
    }
    warnings.extend(dumps.round_warnings.iter().cloned());
    warnings.extend(unattributed_warning(&tallies));
    let (hidden_fields, hidden) = dumps.hidden();
    warnings.extend(hidden);
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
            hidden_fields,
            warnings,
        },
        devices,
        processes: dumps.processes(&tallies),
        tallies,
        objects: dumps.objects(),
    }
}

fn unattributed_warning(tallies: &[Tally]) -> Option<Warning> {
    let unattributed: u64 = tallies
        .iter()
        .filter(|t| t.owner == OwnerKey::Unattributed)
        .map(|t| t.counts.total())
        .sum();
    (unattributed > 0).then(|| {
        Warning::new(
            WarningKind::Unattributed,
            format!(
                "{unattributed} objects have no owner restop can name \
                 (creating thread exited, or created in another PID namespace)"
            ),
        )
    })
}
