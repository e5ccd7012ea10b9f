//! What the object dumps produced, per type: each type is dumped on its own
//! cadence, so a snapshot combines the latest dump of every type.

use super::hidden::HiddenFields;
use crate::collect::attribution::DUMP_ORDER;
use crate::model::{
    DetailScope, Object, OwnerKey, ProcessInfo, ProcessKey, ResourceType, Tally, UnixMs, Warning,
};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The latest dump of one type over every device.
#[derive(Debug, Default)]
pub(super) struct TypeDump {
    pub collected_at_ms: UnixMs,
    /// Per (owner, device): counts of this type only.
    pub tallies: Vec<Tally>,
    pub objects: Vec<Object>,
    /// Per device index: why its dump of this type failed.
    pub errors: HashMap<u32, String>,
    /// Devices whose dump of this type completed.
    pub dumped: BTreeSet<u32>,
    /// Per device index: restop's own objects of this type, left out.
    pub own: HashMap<u32, u64>,
    pub hidden: HiddenFields,
    pub warnings: Vec<Warning>,
}

/// The latest dump of every type, and the owning processes they name.
#[derive(Debug, Default)]
pub(super) struct LatestDumps {
    pub scope: DetailScope,
    pub types: BTreeMap<ResourceType, TypeDump>,
    /// Details of the processes the tallies name, refreshed when a dump
    /// names them.
    pub processes: BTreeMap<ProcessKey, ProcessInfo>,
    /// What the last round's owner lookups could not read.
    pub round_warnings: Vec<Warning>,
}

impl LatestDumps {
    /// Every type's tallies summed per (owner, device), in a stable order
    /// (device, then owner).
    pub(super) fn tallies(&self) -> Vec<Tally> {
        let mut merged: FxHashMap<(OwnerKey, u32), Tally> = FxHashMap::default();
        for dump in self.types.values() {
            for t in &dump.tallies {
                let slot = merged
                    .entry((t.owner.clone(), t.device))
                    .or_insert_with(|| Tally::new(t.owner.clone(), t.device));
                slot.counts += &t.counts;
                slot.mr_bytes = slot.mr_bytes.saturating_add(t.mr_bytes);
                for (state, n) in t.qp_states.iter() {
                    slot.qp_states.add(state, n);
                }
            }
        }
        let mut tallies: Vec<Tally> = merged.into_values().collect();
        tallies.sort_by(|a, b| a.device.cmp(&b.device).then_with(|| a.owner.cmp(&b.owner)));
        tallies
    }

    /// Kept objects in dump order: per device, parents first.
    pub(super) fn objects(&self) -> Vec<Object> {
        let rank = |t: ResourceType| DUMP_ORDER.iter().position(|d| *d == t).unwrap_or(0);
        let mut objects: Vec<Object> = self
            .types
            .values()
            .flat_map(|v| v.objects.iter().cloned())
            .collect();
        objects.sort_by_key(|o| (o.device(), rank(o.resource_type())));
        objects
    }

    /// The processes `tallies` name, with the details last read.
    pub(super) fn processes(&self, tallies: &[Tally]) -> Vec<ProcessInfo> {
        let keys: BTreeSet<ProcessKey> = tallies
            .iter()
            .filter_map(|t| match &t.owner {
                OwnerKey::Process(key) => Some(*key),
                _ => None,
            })
            .collect();
        keys.iter()
            .map(|k| {
                self.processes
                    .get(k)
                    .cloned()
                    .unwrap_or_else(|| ProcessInfo::unknown(*k))
            })
            .collect()
    }

    /// Fields the kernel withheld, and the warning saying so.
    pub(super) fn hidden(&self) -> (Vec<String>, Option<Warning>) {
        let mut all = HiddenFields::default();
        for dump in self.types.values() {
            all.absorb(&dump.hidden);
        }
        all.report()
    }
}
