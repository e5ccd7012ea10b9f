//! `--demo`: a simulated RDMA host, deterministic from a seed.
//!
//! It is what a newcomer runs first, so it looks like a real GPU/storage
//! server (see `host.rs` for the devices, `workloads.rs` for who uses them
//! and `scenario.rs` for what happens over time): a dual-port ConnectX-7 with
//! SR-IOV VFs, PyTorch trainers in Kubernetes pods, an SPDK NVMe-oF target,
//! an inference server, a database, benchmarks, kernel users, one service
//! that leaks, QPs falling into ERR, processes exiting and restarting, a VF
//! near its QP limit and another near its MR limit.
//!
//! Snapshots are built with the same model machinery as live ones
//! (`ObjectAccumulator`, `DetailScope`), so every view and output works on
//! them unchanged. Time is simulated: each `collect()` after the first moves
//! the clock forward by `step` from 2026-01-01T00:00:00Z, and the same seed
//! with the same requests gives identical snapshots.

mod clock;
mod counter_traffic;
mod footprint;
mod host;
mod identity;
mod ids;
mod netdev;
mod pods;
mod qp_counters;
mod rng;
mod scenario;
mod snapshot;
mod spec;
mod wide;
mod workloads;

use crate::model::{Snapshot, SourceKind};
use crate::source::{CollectError, CollectRequest, Source};
use clock::SimMs;
use rng::Rng;
use scenario::World;
use std::time::Duration;

pub use identity::{HostIdentity, Profile};
pub use snapshot::{HOST, KERNEL};
pub use wide::Layout as DeviceLayout;

/// Keeps the collection-time draws apart from the simulation's, so asking
/// for snapshots never changes what happens on the host.
const TIMING_SEED_SALT: u64 = 0x7469_6d69_6e67_0001;

/// The simulated host (`--demo`): the same seed and step give the same snapshots.
pub struct DemoSource {
    world: World,
    step: Duration,
    collections: u64,
    timing: Rng,
    /// `--demo-host`: the host's name and the troubles it keeps.
    identity: Option<HostIdentity>,
    /// Simulated time before the first collection (`--demo-at`): its NIC
    /// counters carry a read from one step before, as a host that had
    /// been watched would, so a report of that moment has rates.
    ran_before: bool,
    /// `--demo-devices`: many PFs and VFs around the default host's (`wide.rs`).
    layout: Option<wide::Layout>,
}

impl DemoSource {
    /// A simulated host; `step` is the simulated time between collections.
    pub fn new(seed: u64, step: Duration) -> DemoSource {
        DemoSource {
            world: World::new(seed),
            step,
            collections: 0,
            timing: Rng::new(seed ^ TIMING_SEED_SALT),
            identity: None,
            ran_before: false,
            layout: None,
        }
    }

    /// The same host with `layout`'s PFs and VFs (`--demo-devices`).
    pub fn with_devices(mut self, layout: wide::Layout) -> DemoSource {
        self.layout = Some(layout);
        self
    }
}

impl DemoSource {
    /// The simulated host `at` into its timeline: the first collection is
    /// of that moment, reached in steps of `step` (the story unfolds as in a
    /// run that long) and one shorter step for the rest.
    pub fn starting_at(seed: u64, step: Duration, at: Duration) -> DemoSource {
        let mut demo = DemoSource::new(seed, step);
        let mut left = at;
        while !left.is_zero() {
            let this = if step.is_zero() { left } else { left.min(step) };
            demo.world.advance(this);
            left = left.saturating_sub(this);
        }
        demo.ran_before = !at.is_zero();
        demo
    }
}

impl DemoSource {
    /// The simulated host named `name` (`--demo-host`): a seed of its own and the troubles
    /// of its profile (`identity.rs`), as [`DemoSource::starting_at`] otherwise.
    pub(crate) fn for_host(name: &str, seed: u64, step: Duration, at: Duration) -> DemoSource {
        let identity = HostIdentity::new(name);
        let mut demo = DemoSource::starting_at(identity.seed(seed), step, at);
        demo.identity = Some(identity);
        demo
    }
}

impl Source for DemoSource {
    fn kind(&self) -> SourceKind {
        SourceKind::Demo
    }

    /// Never fails. Every collection includes fresh object "dumps", so
    /// `request.force_objects` changes nothing here; `request.details` is
    /// honoured exactly as by the live source.
    fn collect(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError> {
        let previous = if self.collections > 0 {
            Some(self.world.now())
        } else if self.ran_before {
            let step = SimMs::try_from(self.step.as_millis()).unwrap_or(SimMs::MAX);
            Some(self.world.now().saturating_sub(step.max(1)))
        } else {
            None
        };
        if self.collections > 0 {
            self.world.advance(self.step);
        }
        self.collections += 1;
        let mut snapshot = snapshot::build(&self.world, request, &mut self.timing);
        counter_traffic::attach(&mut snapshot.devices, self.world.now(), previous);
        qp_counters::attach(&self.world, &mut snapshot.devices, self.world.now());
        if let Some(layout) = self.layout {
            wide::widen(&mut snapshot, layout, self.world.now(), previous);
        }
        if let Some(identity) = &self.identity {
            identity.shape(&mut snapshot);
        }
        Ok(snapshot)
    }
}
