//! Folding a stream of objects into per-owner tallies while keeping only the
//! objects a view needs in detail. Memory stays proportional to owners and
//! kept objects, not to the number of MRs on the host.

use super::objects::Object;
use super::owner::OwnerKey;
use super::snapshot::Tally;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Which objects a snapshot keeps in full (ERR/SQE QPs are always kept).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DetailScope {
    /// Only the ERROR-state QPs.
    #[default]
    ErrorsOnly,
    /// Also every object of these processes (the drill-down's pids).
    Processes(BTreeSet<u32>),
    /// Every object (small hosts, exports of everything).
    All,
}

impl DetailScope {
    fn keeps(&self, obj: &Object) -> bool {
        if let Object::Qp(qp) = obj
            && qp.state.is_error()
        {
            return true;
        }
        match self {
            DetailScope::ErrorsOnly => false,
            DetailScope::All => true,
            DetailScope::Processes(pids) => obj.owner().pid().is_some_and(|p| pids.contains(&p)),
        }
    }
}

/// Accumulates objects (with their owner already resolved) into tallies.
#[derive(Debug, Default)]
pub struct ObjectAccumulator {
    scope: DetailScope,
    // Fx hashing: these maps see one lookup per object of every dump
    // (hundreds of thousands on big hosts), keyed by small trusted values.
    index: FxHashMap<(OwnerKey, u32), usize>,
    tallies: Vec<Tally>,
    /// The slot the previous object went to: dumps list an owner's objects
    /// in runs, so most objects skip the hash lookup.
    last: usize,
    kept: Vec<Object>,
}

impl ObjectAccumulator {
    pub fn new(scope: DetailScope) -> ObjectAccumulator {
        ObjectAccumulator {
            scope,
            ..ObjectAccumulator::default()
        }
    }

    /// Adds one object. Repeats within a dump are the dump reader's to drop
    /// (`nldev::dedup`): this counts everything it is given.
    pub fn add(&mut self, obj: Object) {
        let t = obj.resource_type();
        let tally = match self.tallies.get(self.last) {
            Some(last) if last.device == obj.device() && last.owner == *obj.owner() => self.last,
            _ => {
                let next = self.tallies.len();
                let at = *self
                    .index
                    .entry((obj.owner().clone(), obj.device()))
                    .or_insert(next);
                if at == next {
                    self.tallies
                        .push(Tally::new(obj.owner().clone(), obj.device()));
                }
                self.last = at;
                at
            }
        };
        let Some(tally) = self.tallies.get_mut(tally) else {
            return;
        };
        tally.counts.add(t, 1);
        match &obj {
            Object::Mr(mr) => tally.mr_bytes = tally.mr_bytes.saturating_add(mr.len),
            Object::Qp(qp) => tally.qp_states.add(qp.state, 1),
            _ => {}
        }
        if self.scope.keeps(&obj) {
            self.kept.push(obj);
        }
    }

    /// Tallies in a stable order (device, then owner) and the kept objects.
    pub fn finish(self) -> (Vec<Tally>, Vec<Object>) {
        let mut tallies = self.tallies;
        tallies.sort_by(|a, b| a.device.cmp(&b.device).then_with(|| a.owner.cmp(&b.owner)));
        (tallies, self.kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::enums::QpState;
    use crate::model::enums::QpType;
    use crate::model::objects::{Mr, Qp};
    use crate::model::owner::{ProcessKey, ReportedOwner};
    use crate::model::resource::ResourceType;

    fn owner(pid: u32) -> OwnerKey {
        OwnerKey::Process(ProcessKey {
            pid,
            start_time: 100,
        })
    }

    fn qp(lqpn: u32, port: Option<u32>, state: QpState, owner: OwnerKey) -> Object {
        Object::Qp(Qp {
            device: 0,
            port,
            lqpn,
            rqpn: None,
            qp_type: QpType::Rc,
            state,
            pdn: Some(1),
            sq_psn: None,
            rq_psn: None,
            reported: ReportedOwner::Missing,
            owner,
        })
    }

    fn mr(mrn: u32, len: u64, owner: OwnerKey) -> Object {
        Object::Mr(Mr {
            device: 0,
            mrn: Some(mrn),
            len,
            pdn: Some(1),
            keys: None,
            reported: ReportedOwner::Missing,
            owner,
        })
    }

    #[test]
    fn counts_per_owner_and_sums_mr_bytes() {
        let mut acc = ObjectAccumulator::new(DetailScope::ErrorsOnly);
        acc.add(mr(1, 4096, owner(7)));
        acc.add(mr(2, 8192, owner(7)));
        acc.add(qp(17, Some(1), QpState::Rts, owner(7)));
        acc.add(qp(18, Some(1), QpState::Err, owner(8)));
        let (tallies, kept) = acc.finish();
        assert_eq!(tallies.len(), 2);
        let t7 = &tallies[0];
        assert_eq!(t7.owner, owner(7));
        assert_eq!(t7.counts[ResourceType::Mr], 2);
        assert_eq!(t7.mr_bytes, 12288);
        assert_eq!(t7.qp_states.get(QpState::Rts), 1);
        assert_eq!(kept.len(), 1, "only the ERR QP is kept");
    }

    #[test]
    fn process_scope_keeps_that_process_only() {
        let scope = DetailScope::Processes([7].into_iter().collect());
        let mut acc = ObjectAccumulator::new(scope);
        acc.add(mr(1, 10, owner(7)));
        acc.add(mr(2, 10, owner(8)));
        let (_, kept) = acc.finish();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].owner(), &owner(7));
    }
}
