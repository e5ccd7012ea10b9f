//! The source group: where snapshots come from and how often they are read.
//! The session opens and paces the source from this group alone.

use crate::collect::LiveOptions;
use std::path::PathBuf;
use std::time::Duration;

/// `-d` when nothing sets it, in every mode but the exporter
/// (which has its own, [`super::export::DEFAULT_INTERVAL`]).
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(2);

/// Where snapshots come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// This host's kernel and procfs.
    Live,
    /// The simulated host of this seed (`--demo --seed N`).
    Demo { seed: u64 },
    /// A recording made with `--record` (`--replay FILE`).
    Replay(PathBuf),
}

/// The source group: where snapshots come from and how often.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceSettings {
    pub origin: Origin,
    /// Time between collections (`-d`; the exporter's own default when it runs).
    pub interval: Duration,
    /// Longest wait for one netlink reply (`--timeout`).
    pub timeout: Duration,
    /// Minimum time between object dumps (`--objects-every`); zero: every collection.
    pub objects_every: Duration,
    /// Read limits through libibverbs (`--no-verbs` turns it off).
    pub verbs: bool,
    /// How far into its timeline the simulated host starts (`--demo-at`).
    pub demo_at: Duration,
    /// The simulated host's name and troubles (`--demo-host`).
    pub demo_host: Option<String>,
    /// How many PFs and VFs per PF the simulated host has (`--demo-devices`);
    /// `None`: the default host's five devices.
    pub demo_devices: Option<DemoDevices>,
}

/// `--demo-devices PFSxVFS`, as written (the demo says which sizes it has).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DemoDevices {
    pub pfs: u32,
    pub vfs: u32,
}

/// Parses `16x8` (16 PFs with 8 VFs each).
pub fn parse_demo_devices(text: &str) -> Result<DemoDevices, String> {
    let (pfs, vfs) = text
        .trim()
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{text:?}: expected PFSxVFS, as 16x8"))?;
    let number = |part: &str| {
        part.trim()
            .parse::<u32>()
            .map_err(|_| format!("{text:?}: expected PFSxVFS, as 16x8"))
    };
    Ok(DemoDevices {
        pfs: number(pfs)?,
        vfs: number(vfs)?,
    })
}

impl Default for SourceSettings {
    /// What the live host is read with when nothing says otherwise is the
    /// live source's own default, so it is written once, in `collect`.
    fn default() -> Self {
        let live = LiveOptions::default();
        SourceSettings {
            origin: Origin::Live,
            interval: DEFAULT_INTERVAL,
            timeout: live.timeout,
            objects_every: live.object_interval,
            verbs: live.verbs,
            demo_at: Duration::ZERO,
            demo_host: None,
            demo_devices: None,
        }
    }
}

impl SourceSettings {
    /// A replay is printed as fast as it is read; everything else waits
    /// for the interval between collections.
    pub fn paced(&self) -> bool {
        !matches!(self.origin, Origin::Replay(_))
    }
}
