//! Turning the simulated world into a [`Snapshot`] with the model's own
//! machinery, so a demo snapshot has exactly the shape of a live one.

use super::clock;
use super::host::{self, DEVICE_COUNT};
use super::rng::Rng;
use super::scenario::World;
use crate::model::{
    DumpStatus, Meta, NetnsMode, ObjectAccumulator, OwnerKey, ProcessInfo, ResourceType, Snapshot,
    SourceKind, Tally, TypeCounts, Warning, WarningKind,
};
use crate::source::CollectRequest;

/// The simulated host's name when `--demo-host` gives none.
pub const HOST: &str = "demo-gpu-node-01";
/// The kernel release the simulated host reports.
pub const KERNEL: &str = "6.8.0-demo (simulated)";

/// Builds one snapshot of `world` as it is now. `timing` draws the
/// collection time, which is simulated like everything else.
pub(super) fn build(world: &World, request: &CollectRequest, timing: &mut Rng) -> Snapshot {
    let collected_at_ms = clock::unix_ms(world.now());

    // Every object goes through the accumulator, exactly as the live dumps'
    // do; the per-device counts play the kernel summary's part.
    let mut accumulator = ObjectAccumulator::new(request.details.clone());
    let mut summary = vec![TypeCounts::default(); DEVICE_COUNT];
    for workload in world.workloads() {
        for footprint in &workload.footprints {
            footprint.emit(&workload.attribution, &mut |object| {
                if let Some(counts) = summary.get_mut(object.device() as usize) {
                    counts.add(object.resource_type(), 1);
                }
                accumulator.add(object);
            });
        }
    }
    let (tallies, objects) = accumulator.finish();

    let mut devices = host::devices();
    for device in &mut devices {
        let counts = summary
            .get(device.index as usize)
            .copied()
            .unwrap_or_default();
        for (t, entry) in device.usage.0.iter_mut() {
            entry.current = counts.get(*t);
        }
        device.objects = DumpStatus {
            collected_at_ms: Some(collected_at_ms),
            types: ResourceType::ALL
                .into_iter()
                .map(|t| (t, collected_at_ms))
                .collect(),
            ..DumpStatus::default()
        };
    }

    let mut processes: Vec<ProcessInfo> = world
        .workloads()
        .iter()
        .filter_map(|w| w.owner.process())
        .cloned()
        .collect();
    processes.sort_by_key(|p| p.key);

    let mut total = TypeCounts::default();
    for counts in &summary {
        total += counts;
    }
    let warnings = unattributed_warning(&tallies, &devices)
        .into_iter()
        .collect();

    Snapshot {
        meta: Meta {
            source: SourceKind::Demo,
            host: HOST.to_string(),
            kernel: KERNEL.to_string(),
            collected_at_ms,
            collect_us: collect_duration_us(&total, timing),
            netns_mode: Some(NetnsMode::Shared),
            hidden_fields: Vec::new(),
            warnings,
        },
        devices,
        processes,
        tallies,
        objects,
    }
}

/// What a live collection of this many objects would take on mlx5, where
/// every QP in a dump costs a firmware query: ~9 µs per QP, a fraction of a
/// microsecond for anything else, give or take 8 %.
fn collect_duration_us(total: &TypeCounts, timing: &mut Rng) -> u64 {
    let qps = total.get(ResourceType::Qp);
    let others = total.total().saturating_sub(qps);
    let nominal = 900 + qps * 9 + others / 3;
    nominal * timing.range(92, 108) / 100
}

/// Objects nobody can be named for deserve a warning, live or simulated.
fn unattributed_warning(tallies: &[Tally], devices: &[crate::model::Device]) -> Option<Warning> {
    let mut count = 0u64;
    let mut on: Vec<&str> = Vec::new();
    for t in tallies.iter().filter(|t| t.owner == OwnerKey::Unattributed) {
        count += t.counts.total();
        if let Some(d) = devices.iter().find(|d| d.index == t.device) {
            on.push(&d.name);
        }
    }
    (count > 0).then(|| {
        Warning::new(
            WarningKind::Unattributed,
            format!(
                "{count} objects on {} have no owner: the threads that created them \
                 have exited or live in another PID namespace",
                on.join(", ")
            ),
        )
    })
}
