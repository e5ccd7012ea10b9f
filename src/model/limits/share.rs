//! A process's share of its devices: "this trainer holds 40 % of all QPs".
//!
//! For an owner and a type, over the devices the owner holds anything on
//! (and the filter admits):
//! - `of_current` = the owner's objects / all objects of that type on those devices
//!   (from the kernel's summary), and
//! - `of_max` = the owner's objects / the sum of those devices' limits, when every
//!   one of them has a known limit for the type.
//!
//! Owner counts come from the object dumps and device counts from the summary,
//! which may be a little younger; `of_current` is capped at 1.

use super::super::filter::Filter;
use super::super::owner::OwnerKey;
use super::super::resource::{ResourceType, TypeCounts};
use super::super::snapshot::Snapshot;
use crate::model::{Device, Tally};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// Fraction of the objects of this type on the owner's devices; `None`
    /// when those devices have none (or report no count).
    pub of_current: Option<f64>,
    /// Fraction of those devices' limit; `None` when a limit is unknown.
    pub of_max: Option<f64>,
}

/// The owner's share of each type, in `ResourceType::ALL` order. One pass
/// over the tallies: for every owner of a snapshot, use `ShareIndex`.
pub fn process_shares(
    snapshot: &Snapshot,
    owner: &OwnerKey,
    filter: &Filter,
) -> Vec<(ResourceType, Share)> {
    let devices = DeviceMap::new(snapshot);
    let mut held = Held::default();
    for tally in snapshot.tallies.iter().filter(|t| &t.owner == owner) {
        held.add(&devices, filter, tally);
    }
    held.shares(&devices)
}

/// Every owner's holdings, gathered in one pass over the tallies, so that
/// the shares of all consumers (the JSON document lists each one's) cost
/// time linear in the tallies, not owners × tallies.
pub struct ShareIndex<'a> {
    devices: DeviceMap<'a>,
    held: HashMap<&'a OwnerKey, Held>,
}

impl<'a> ShareIndex<'a> {
    pub fn new(snapshot: &'a Snapshot, filter: &Filter) -> ShareIndex<'a> {
        let devices = DeviceMap::new(snapshot);
        let mut held: HashMap<&OwnerKey, Held> = HashMap::new();
        for tally in &snapshot.tallies {
            held.entry(&tally.owner)
                .or_default()
                .add(&devices, filter, tally);
        }
        ShareIndex { devices, held }
    }

    /// What `process_shares` says of `owner`.
    pub fn shares(&self, owner: &OwnerKey) -> Vec<(ResourceType, Share)> {
        match self.held.get(owner) {
            Some(held) => held.shares(&self.devices),
            None => Held::default().shares(&self.devices),
        }
    }
}

/// The snapshot's devices by index: looked up once per tally.
struct DeviceMap<'a>(HashMap<u32, &'a Device>);

impl<'a> DeviceMap<'a> {
    fn new(snapshot: &'a Snapshot) -> DeviceMap<'a> {
        DeviceMap(snapshot.devices.iter().map(|d| (d.index, d)).collect())
    }

    fn shows(&self, filter: &Filter, index: u32) -> bool {
        match self.0.get(&index) {
            Some(d) => filter.shows_device(&d.name),
            None => filter.shows_device(&format!("dev{index}")),
        }
    }
}

/// One owner's objects on the devices the filter admits, and those devices.
#[derive(Default)]
struct Held {
    counts: TypeCounts,
    devices: Vec<u32>,
    seen: HashSet<u32>,
}

impl Held {
    fn add(&mut self, devices: &DeviceMap<'_>, filter: &Filter, tally: &Tally) {
        if tally.counts.is_empty() || !devices.shows(filter, tally.device) {
            return;
        }
        self.counts += &tally.counts;
        if self.seen.insert(tally.device) {
            self.devices.push(tally.device);
        }
    }

    fn shares(&self, devices: &DeviceMap<'_>) -> Vec<(ResourceType, Share)> {
        ResourceType::ALL
            .into_iter()
            .map(|t| (t, share_of(devices, &self.devices, t, self.counts.get(t))))
            .collect()
    }
}

fn share_of(map: &DeviceMap<'_>, devices: &[u32], t: ResourceType, held: u64) -> Share {
    if devices.is_empty() {
        return Share::default();
    }
    let mut current: Option<u64> = Some(0);
    let mut max: Option<u64> = Some(0);
    for index in devices {
        let entry = map.0.get(index).and_then(|d| d.usage.get(t));
        current = match (current, entry) {
            (Some(sum), Some(e)) => Some(sum.saturating_add(e.current)),
            _ => None,
        };
        max = match (max, entry.and_then(|e| e.max)) {
            (Some(sum), Some(m)) => Some(sum.saturating_add(m)),
            _ => None,
        };
    }
    Share {
        of_current: current
            .filter(|c| *c > 0)
            .map(|c| (held as f64 / c as f64).min(1.0)),
        of_max: max.filter(|m| *m > 0).map(|m| held as f64 / m as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ProcessKey, SourceKind, UsageEntry, enums::StateCounts};

    fn device(index: u32, name: &str, qp: (u64, Option<u64>), cm_id: u64) -> Device {
        let mut d = Device::new(index, name);
        d.usage.set(
            ResourceType::Qp,
            UsageEntry {
                current: qp.0,
                max: qp.1,
                max_source: None,
            },
        );
        d.usage.set(
            ResourceType::CmId,
            UsageEntry {
                current: cm_id,
                max: None,
                max_source: None,
            },
        );
        d
    }

    fn tally(owner: &OwnerKey, device: u32, qp: u64) -> Tally {
        let mut counts = TypeCounts::default();
        counts.add(ResourceType::Qp, qp);
        Tally {
            owner: owner.clone(),
            device,
            counts,
            mr_bytes: 0,
            qp_states: StateCounts::default(),
        }
    }

    fn snapshot(devices: Vec<Device>, tallies: Vec<Tally>) -> Snapshot {
        Snapshot {
            devices,
            tallies,
            ..Snapshot::empty(SourceKind::Replay, crate::model::UnixMs(0))
        }
    }

    fn get(shares: &[(ResourceType, Share)], t: ResourceType) -> Share {
        shares.iter().find(|(x, _)| *x == t).unwrap().1
    }

    #[test]
    fn share_is_over_the_devices_the_owner_uses() {
        let p = OwnerKey::Process(ProcessKey {
            pid: 7,
            start_time: 1,
        });
        let other = OwnerKey::Kernel("ib_core".into());
        let s = snapshot(
            vec![
                device(0, "a", (100, Some(1000)), 0),
                device(1, "b", (300, Some(1000)), 4),
                device(2, "c", (999, Some(1000)), 0),
            ],
            vec![tally(&p, 0, 40), tally(&p, 1, 0), tally(&other, 2, 999)],
        );
        // Device b holds nothing of p's (empty tally): only device a counts.
        let shares = process_shares(&s, &p, &Filter::default());
        let qp = get(&shares, ResourceType::Qp);
        assert_eq!(qp.of_current, Some(0.4));
        assert_eq!(qp.of_max, Some(0.04));
        // cm_id: no limit, and none on device a.
        let cm = get(&shares, ResourceType::CmId);
        assert_eq!(cm, Share::default());
    }

    #[test]
    fn unknown_limit_on_one_device_makes_of_max_unknown() {
        let p = OwnerKey::Unattributed;
        let s = snapshot(
            vec![
                device(0, "a", (10, Some(100)), 0),
                device(1, "b", (10, None), 0),
            ],
            vec![tally(&p, 0, 5), tally(&p, 1, 5)],
        );
        let qp = get(
            &process_shares(&s, &p, &Filter::default()),
            ResourceType::Qp,
        );
        assert_eq!(qp.of_current, Some(0.5));
        assert_eq!(qp.of_max, None);
        // With --dev a only, the limit is known again.
        let f = Filter {
            device: Some("a".into()),
            ..Filter::default()
        };
        let qp = get(&process_shares(&s, &p, &f), ResourceType::Qp);
        assert_eq!((qp.of_current, qp.of_max), (Some(0.5), Some(0.05)));
    }

    #[test]
    fn stale_owner_counts_never_exceed_the_whole() {
        let p = OwnerKey::Unattributed;
        let s = snapshot(
            vec![device(0, "a", (3, Some(10)), 0)],
            vec![tally(&p, 0, 5)],
        );
        let qp = get(
            &process_shares(&s, &p, &Filter::default()),
            ResourceType::Qp,
        );
        assert_eq!(qp.of_current, Some(1.0));
    }
}
