//! Deciding which row each object is counted under.
//!
//! The kernel names an object's creating thread (`RES_PID`) or kernel module
//! (`RES_KERN_NAME`). When the creating thread has exited it names neither,
//! but the object still hangs off a protection domain or user context whose
//! owner is usually known (the main thread opened the device). Dumps run in
//! the order ctx, pd, cq, mr, srq, qp, cm_id so that those parents are seen
//! before the objects that point at them.

use crate::model::{Object, OwnerKey, ProcessKey, ReportedOwner};
use std::collections::HashMap;

/// Object dump order that lets parents be resolved before children.
pub(crate) const DUMP_ORDER: [crate::model::ResourceType; 7] = {
    use crate::model::ResourceType::*;
    [Ctx, Pd, Cq, Mr, Srq, Qp, CmId]
};

/// Owners of the parents seen so far in one collection round, per device.
#[derive(Debug, Default)]
pub(crate) struct Attribution {
    ctx: HashMap<(u32, u32), OwnerKey>,
    pd: HashMap<(u32, u32), OwnerKey>,
    qp: HashMap<(u32, u32), OwnerKey>,
    /// Objects attributed through a parent rather than their own report.
    pub via_parent: u64,
}

impl Attribution {
    /// Resolves `obj`'s owner and remembers it if `obj` is a parent of others.
    /// `process_of_thread` maps a creating thread id to its process.
    pub(crate) fn resolve(
        &mut self,
        obj: &Object,
        mut process_of_thread: impl FnMut(u32) -> Option<ProcessKey>,
    ) -> OwnerKey {
        let direct = match obj.reported() {
            ReportedOwner::Task(tid) => process_of_thread(*tid).map(OwnerKey::Process),
            ReportedOwner::Kernel(name) => Some(OwnerKey::Kernel(name.clone())),
            ReportedOwner::Missing => None,
        };
        let owner = match direct {
            Some(owner) => owner,
            None => match self.parent_owner(obj) {
                Some(owner) => {
                    self.via_parent += 1;
                    owner
                }
                None => OwnerKey::Unattributed,
            },
        };
        self.remember(obj, &owner);
        owner
    }

    /// Forgets the parents of type `t` before that type is dumped again, so
    /// owners of destroyed parents do not linger across rounds.
    pub(crate) fn forget(&mut self, t: crate::model::ResourceType) {
        use crate::model::ResourceType::*;
        match t {
            Ctx => self.ctx.clear(),
            Pd => self.pd.clear(),
            Qp => self.qp.clear(),
            _ => {}
        }
    }

    fn parent_owner(&self, obj: &Object) -> Option<OwnerKey> {
        let dev = obj.device();
        let known = |o: Option<&OwnerKey>| o.filter(|k| **k != OwnerKey::Unattributed).cloned();
        if let Object::CmId(cm) = obj {
            return cm.lqpn.and_then(|q| known(self.qp.get(&(dev, q))));
        }
        if let Some(pdn) = obj.pdn()
            && let Some(owner) = known(self.pd.get(&(dev, pdn)))
        {
            return Some(owner);
        }
        match obj {
            // A ctx's ctxn is its own id, not a parent.
            Object::Ctx(_) => None,
            other => other.ctxn().and_then(|c| known(self.ctx.get(&(dev, c)))),
        }
    }

    fn remember(&mut self, obj: &Object, owner: &OwnerKey) {
        let dev = obj.device();
        match obj {
            Object::Ctx(c) => {
                if let Some(id) = c.ctxn {
                    self.ctx.insert((dev, id), owner.clone());
                }
            }
            Object::Pd(p) => {
                if let Some(id) = p.pdn {
                    self.pd.insert((dev, id), owner.clone());
                }
            }
            Object::Qp(q) => {
                self.qp.insert((dev, q.lqpn), owner.clone());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Ctx, Mr, Pd, Qp, QpState, QpType};

    fn key(pid: u32) -> ProcessKey {
        ProcessKey { pid, start_time: 1 }
    }

    fn ctx(ctxn: u32, reported: ReportedOwner) -> Object {
        Object::Ctx(Ctx {
            device: 0,
            ctxn: Some(ctxn),
            reported,
            owner: OwnerKey::Unattributed,
        })
    }

    fn pd(pdn: u32, ctxn: Option<u32>, reported: ReportedOwner) -> Object {
        Object::Pd(Pd {
            device: 0,
            pdn: Some(pdn),
            users: 1,
            ctxn,
            local_dma_lkey: None,
            reported,
            owner: OwnerKey::Unattributed,
        })
    }

    fn mr(pdn: u32, reported: ReportedOwner) -> Object {
        Object::Mr(Mr {
            device: 0,
            mrn: Some(1),
            len: 4096,
            pdn: Some(pdn),
            keys: None,
            reported,
            owner: OwnerKey::Unattributed,
        })
    }

    fn qp(lqpn: u32, pdn: u32, reported: ReportedOwner) -> Object {
        Object::Qp(Qp {
            device: 0,
            port: Some(1),
            lqpn,
            rqpn: None,
            qp_type: QpType::Rc,
            state: QpState::Rts,
            pdn: Some(pdn),
            sq_psn: None,
            rq_psn: None,
            reported,
            owner: OwnerKey::Unattributed,
        })
    }

    /// Threads 101 and 102 belong to process 100; 103 has exited.
    fn threads(tid: u32) -> Option<ProcessKey> {
        match tid {
            100..=102 => Some(key(100)),
            _ => None,
        }
    }

    #[test]
    fn worker_thread_objects_belong_to_their_process() {
        let mut a = Attribution::default();
        let owner = a.resolve(&qp(17, 1, ReportedOwner::Task(102)), threads);
        assert_eq!(owner, OwnerKey::Process(key(100)));
        assert_eq!(a.via_parent, 0);
    }

    #[test]
    fn orphans_follow_their_pd_then_ctx_to_the_owner() {
        let mut a = Attribution::default();
        a.resolve(&ctx(3, ReportedOwner::Task(100)), threads);
        // The PD's creating thread is gone: its ctx names the process.
        let pd_owner = a.resolve(&pd(5, Some(3), ReportedOwner::Missing), threads);
        assert_eq!(pd_owner, OwnerKey::Process(key(100)));
        // The MR's report names a thread that has exited since the dump.
        let mr_owner = a.resolve(&mr(5, ReportedOwner::Task(103)), threads);
        assert_eq!(mr_owner, OwnerKey::Process(key(100)));
        assert_eq!(a.via_parent, 2);
    }

    #[test]
    fn objects_without_any_lead_are_unattributed() {
        let mut a = Attribution::default();
        assert_eq!(
            a.resolve(&mr(9, ReportedOwner::Missing), threads),
            OwnerKey::Unattributed
        );
        // An unattributed PD is no lead either.
        a.resolve(&pd(9, None, ReportedOwner::Missing), threads);
        assert_eq!(
            a.resolve(&mr(9, ReportedOwner::Missing), threads),
            OwnerKey::Unattributed
        );
    }

    #[test]
    fn kernel_owners_are_taken_as_reported() {
        let mut a = Attribution::default();
        let owner = a.resolve(&qp(1, 0, ReportedOwner::Kernel("ib_core".into())), threads);
        assert_eq!(owner, OwnerKey::Kernel("ib_core".into()));
    }
}
