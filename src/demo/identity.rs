//! A simulated host's identity (`--demo-host NAME`): its name, a seed of its own, and which of
//! the demo's troubles it has, so that twenty demo exporters look like twenty different hosts
//! of one cluster (for `restop fleet` and its tests). The full demo has every trouble at once
//! (a leak, ERROR QPs, a NIC storm and a port down, a VF near its limit); a named host keeps
//! only its profile's, and the rest of the story runs calm.
//!
//! The profile is read from the name (a name containing `healthy`, `leak`, `storm`, `limit`,
//! `errqp` or `busy` has that profile) or else drawn from it, so the same name is always the same host.
//! The shaping is applied to each finished snapshot, leaving the timeline (`scenario.rs`) as
//! it is.

use crate::model::counters::catalog::is_health_signal;
use crate::model::enums::{PortState, QpState, StateCounts};
use crate::model::{Object, OwnerKey, ResourceType, Snapshot};

/// The comm of the demo's leaking service (`workloads::leaker`).
const LEAKER_COMM: &str = "leaky_svc";

/// Which troubles a named host has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Nothing wrong: usage well below the limits, no ERROR QPs, no leak, quiet ports.
    Healthy,
    /// A service leaking MRs and QPs.
    Leak,
    /// Error and congestion counters rising, one port down.
    NicStorm,
    /// A device at 97 % of its QP limit.
    AtLimit,
    /// Remote peers dying: QPs in ERR.
    ErrorQps,
    /// Every trouble of the full demo.
    Busy,
}

impl Profile {
    const KEYWORDS: [(&'static str, Profile); 6] = [
        ("healthy", Profile::Healthy),
        ("leak", Profile::Leak),
        ("storm", Profile::NicStorm),
        ("limit", Profile::AtLimit),
        ("errqp", Profile::ErrorQps),
        ("busy", Profile::Busy),
    ];

    /// The profile a host name stands for: a keyword in it, else one drawn from the name,
    /// healthy three times in five.
    pub fn of(name: &str) -> Profile {
        let lower = name.to_ascii_lowercase();
        if let Some((_, p)) = Self::KEYWORDS.iter().find(|(k, _)| lower.contains(k)) {
            return *p;
        }
        match name_hash(name) % 10 {
            0 => Profile::Leak,
            1 => Profile::NicStorm,
            2 => Profile::AtLimit,
            3 => Profile::ErrorQps,
            _ => Profile::Healthy,
        }
    }

    /// The profile's name as `--demo-host` keywords and the fleet's docs spell it.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Healthy => "healthy",
            Profile::Leak => "leak",
            Profile::NicStorm => "nic-storm",
            Profile::AtLimit => "at-limit",
            Profile::ErrorQps => "error-qps",
            Profile::Busy => "busy",
        }
    }
}

/// A named simulated host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostIdentity {
    /// The host name the snapshots and the exporter's `host` carry.
    pub name: String,
    /// What goes wrong on it, from a keyword in the name.
    pub profile: Profile,
}

impl HostIdentity {
    /// The host `name`, its profile read from the keyword it contains (healthy by default).
    pub fn new(name: &str) -> HostIdentity {
        HostIdentity {
            name: name.to_string(),
            profile: Profile::of(name),
        }
    }

    /// The host's own seed: the same `--seed` gives different hosts different draws.
    pub fn seed(&self, seed: u64) -> u64 {
        seed ^ name_hash(&self.name)
    }

    /// Names the snapshot after the host and calms what its profile does not have.
    pub fn shape(&self, snapshot: &mut Snapshot) {
        snapshot.meta.host = self.name.clone();
        let p = self.profile;
        if p == Profile::Busy {
            return;
        }
        if p != Profile::ErrorQps {
            calm_error_qps(snapshot);
        }
        if p != Profile::Leak {
            calm_leak(snapshot);
        }
        if p != Profile::NicStorm {
            calm_ports(snapshot);
        }
        calm_limits(snapshot);
        if p == Profile::AtLimit {
            push_to_limit(snapshot);
        }
    }
}

/// FNV-1a: stable across runs and platforms (std's hasher is not).
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// QPs in ERR or SQE are counted as RTS, and the kept ERROR QPs go.
fn calm_error_qps(snapshot: &mut Snapshot) {
    for tally in &mut snapshot.tallies {
        let mut calm = StateCounts::default();
        for (state, n) in tally.qp_states.iter() {
            calm.add(
                if state.is_error() {
                    QpState::Rts
                } else {
                    state
                },
                n,
            );
        }
        tally.qp_states = calm;
    }
    snapshot
        .objects
        .retain(|o| !matches!(o, Object::Qp(qp) if qp.state.is_error()));
}

/// The leaking service's objects are not in the tallies (its count never rises).
fn calm_leak(snapshot: &mut Snapshot) {
    let leakers: Vec<u32> = snapshot
        .processes
        .iter()
        .filter(|p| p.comm == LEAKER_COMM)
        .map(|p| p.key.pid)
        .collect();
    let leaks = |owner: &OwnerKey| owner.pid().is_some_and(|pid| leakers.contains(&pid));
    snapshot.tallies.retain(|t| !leaks(&t.owner));
    snapshot.processes.retain(|p| !leakers.contains(&p.key.pid));
}

/// Every port ACTIVE, and the error and congestion counters still.
fn calm_ports(snapshot: &mut Snapshot) {
    for port in snapshot.devices.iter_mut().flat_map(|d| d.ports.iter_mut()) {
        port.state = Some(PortState::Active);
        if let Some(counters) = &mut port.counters {
            let reads = std::iter::once(&mut counters.read).chain(counters.previous.as_mut());
            for read in reads {
                for (name, value) in read.hw.iter_mut().chain(read.pma.iter_mut()) {
                    if is_health_signal(name) {
                        *value = 0;
                    }
                }
            }
        }
    }
}

/// No device above half of a limit.
fn calm_limits(snapshot: &mut Snapshot) {
    for device in &mut snapshot.devices {
        for entry in device.usage.0.values_mut() {
            if let Some(max) = entry.max
                && entry.current.saturating_mul(2) > max
            {
                entry.max = Some(entry.current.saturating_mul(2));
            }
        }
    }
}

/// The device with the most QPs at 97 % of its QP limit.
fn push_to_limit(snapshot: &mut Snapshot) {
    let busiest = snapshot
        .devices
        .iter_mut()
        .filter(|d| d.usage.current(ResourceType::Qp).unwrap_or(0) > 0)
        .max_by_key(|d| d.usage.current(ResourceType::Qp).unwrap_or(0));
    if let Some(device) = busiest
        && let Some(entry) = device.usage.0.get_mut(&ResourceType::Qp)
    {
        entry.max = Some((entry.current * 100).div_ceil(97));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::DemoSource;
    use crate::source::{CollectRequest, Source};
    use std::time::Duration;

    fn snapshot(name: &str) -> Snapshot {
        let mut demo =
            DemoSource::for_host(name, 1, Duration::from_secs(15), Duration::from_secs(600));
        demo.collect(&CollectRequest::default()).unwrap()
    }

    #[test]
    fn names_pick_profiles_and_the_same_name_is_the_same_host() {
        assert_eq!(Profile::of("node-07-leak"), Profile::Leak);
        assert_eq!(Profile::of("rack2-STORM"), Profile::NicStorm);
        assert_eq!(Profile::of("gpu-node-01"), Profile::of("gpu-node-01"));
        assert_eq!(snapshot("gpu-node-01").meta.host, "gpu-node-01");
        assert_ne!(
            HostIdentity::new("a").seed(1),
            HostIdentity::new("b").seed(1)
        );
    }

    #[test]
    fn a_healthy_host_has_none_of_the_demos_troubles() {
        let s = snapshot("healthy-node");
        assert_eq!(Profile::of("healthy-node"), Profile::Healthy);
        assert!(s.tallies.iter().all(|t| t.qp_states.errors() == 0));
        assert!(!s.processes.iter().any(|p| p.comm == LEAKER_COMM));
        for d in &s.devices {
            assert!(d.ports.iter().all(|p| p.state == Some(PortState::Active)));
            for entry in d.usage.0.values() {
                if let Some(max) = entry.max {
                    assert!(entry.current * 2 <= max, "{} {entry:?}", d.name);
                }
            }
        }
    }

    #[test]
    fn troubled_profiles_keep_their_trouble() {
        let errqp = snapshot("node-errqp");
        assert!(errqp.tallies.iter().any(|t| t.qp_states.errors() > 0));
        let leak = snapshot("node-leak");
        assert!(leak.processes.iter().any(|p| p.comm == LEAKER_COMM));
        let full = snapshot("node-limit");
        let worst = full
            .devices
            .iter()
            .filter_map(|d| d.usage.get(ResourceType::Qp)?.ratio())
            .fold(0.0, f64::max);
        assert!(worst >= 0.95, "{worst}");
    }
}
