//! A marked moment to compare with: what every owner held then, per device,
//! so the difference can be taken under any device filter.

use crate::model::filter::Filter;
use crate::model::{OwnerKey, ResourceType, Snapshot, TypeCounts, UnixMs};
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Sub;

/// One signed number per resource type: a change in counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TypeDeltas([i64; 7]);

impl TypeDeltas {
    pub fn get(&self, t: ResourceType) -> i64 {
        self.0[t as usize]
    }

    pub fn set(&mut self, t: ResourceType, n: i64) {
        self.0[t as usize] = n;
    }

    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|n| *n == 0)
    }

    pub fn iter(&self) -> impl Iterator<Item = (ResourceType, i64)> + '_ {
        ResourceType::ALL.into_iter().map(|t| (t, self.get(t)))
    }

    /// `now − then`, per type.
    pub fn between(then: &TypeCounts, now: &TypeCounts) -> TypeDeltas {
        let mut d = TypeDeltas::default();
        for t in ResourceType::ALL {
            d.set(t, signed_diff(now.get(t), then.get(t)));
        }
        d
    }
}

/// `a − b` without overflow.
pub fn signed_diff(a: u64, b: u64) -> i64 {
    let d = i128::from(a) - i128::from(b);
    i64::try_from(d).unwrap_or(if d > 0 { i64::MAX } else { i64::MIN })
}

/// What an owner holds, in the baseline or now, over some devices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Holdings {
    pub counts: TypeCounts,
    pub mr_bytes: u64,
    /// QPs in ERR or SQE.
    pub err_qps: u64,
}

impl Holdings {
    fn add(&mut self, other: &Holdings) {
        self.counts += &other.counts;
        self.mr_bytes = self.mr_bytes.saturating_add(other.mr_bytes);
        self.err_qps = self.err_qps.saturating_add(other.err_qps);
    }
}

/// The change of every column of the consumers table since the baseline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BaselineDelta {
    pub counts: TypeDeltas,
    pub mr_bytes: i64,
    pub err_qps: i64,
}

impl Sub<&Holdings> for &Holdings {
    type Output = BaselineDelta;
    fn sub(self, then: &Holdings) -> BaselineDelta {
        BaselineDelta {
            counts: TypeDeltas::between(&then.counts, &self.counts),
            mr_bytes: signed_diff(self.mr_bytes, then.mr_bytes),
            err_qps: signed_diff(self.err_qps, then.err_qps),
        }
    }
}

/// Per owner and device name, what was held at one moment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnerHoldings {
    by_owner: BTreeMap<OwnerKey, BTreeMap<String, Holdings>>,
}

impl OwnerHoldings {
    pub fn of(snapshot: &Snapshot) -> OwnerHoldings {
        let mut by_owner: BTreeMap<OwnerKey, BTreeMap<String, Holdings>> = BTreeMap::new();
        for tally in &snapshot.tallies {
            let h = Holdings {
                counts: tally.counts,
                mr_bytes: tally.mr_bytes,
                err_qps: tally.qp_states.errors(),
            };
            by_owner
                .entry(tally.owner.clone())
                .or_default()
                .entry(snapshot.device_name(tally.device))
                .or_default()
                .add(&h);
        }
        OwnerHoldings { by_owner }
    }

    /// What `owner` held on the devices `filter` shows (nothing when it held nothing).
    pub fn of_owner(&self, owner: &OwnerKey, filter: &Filter) -> Holdings {
        let mut sum = Holdings::default();
        if let Some(devices) = self.by_owner.get(owner) {
            for (device, h) in devices {
                if filter.shows_device(device) {
                    sum.add(h);
                }
            }
        }
        sum
    }

    pub fn owners(&self) -> impl Iterator<Item = &OwnerKey> {
        self.by_owner.keys()
    }
}

/// The moment marked with `b`, and what was held then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Baseline {
    /// Collection time of the snapshot it was taken from (Unix ms).
    pub at_ms: UnixMs,
    pub holdings: OwnerHoldings,
}

impl Baseline {
    pub fn of(snapshot: &Snapshot) -> Baseline {
        Baseline {
            at_ms: snapshot.meta.collected_at_ms,
            holdings: OwnerHoldings::of(snapshot),
        }
    }

    /// What changed for `owner` between the baseline and `now`, over the
    /// devices `filter` shows. An owner absent from the baseline held nothing.
    pub fn delta(&self, owner: &OwnerKey, now: &OwnerHoldings, filter: &Filter) -> BaselineDelta {
        &now.of_owner(owner, filter) - &self.holdings.of_owner(owner, filter)
    }
}

impl fmt::Display for TypeDeltas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .iter()
            .filter(|(_, n)| *n != 0)
            .map(|(t, n)| format!("{} {n:+}", t.label()))
            .collect();
        f.write_str(&parts.join(" "))
    }
}
