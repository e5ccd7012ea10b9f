//! Turning a footprint into the records the kernel's dumps would list.

use super::{Footprint, pick};
use crate::demo::host;
use crate::demo::spec::Privilege;
use crate::model::{
    CmId, CmState, Cq, Ctx, Mr, MrKeys, Object, OwnerKey, Pd, Qp, QpState, QpType, ReportedOwner,
    Srq, SrqType,
};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

/// `RDMA_PS_TCP`: the port space of every rdma_cm id in the simulation.
const PS_TCP: u32 = 0x0106;

/// Who the emitted records belong to.
#[derive(Clone, Debug)]
pub(crate) struct Attribution {
    pub owner: OwnerKey,
    /// What the kernel reports for objects the main thread created.
    pub main: ReportedOwner,
}

impl Attribution {
    /// `RES_PID` is the creating thread; other threads only matter for processes.
    fn reported(&self, creator: u32) -> ReportedOwner {
        match self.main {
            ReportedOwner::Task(_) if creator != 0 => ReportedOwner::Task(creator),
            _ => self.main.clone(),
        }
    }
}

impl Footprint {
    /// Emits every object as the kernel's dumps would list it.
    pub(crate) fn emit(&self, who: &Attribution, sink: &mut impl FnMut(Object)) {
        let users = self.users();
        self.emit_parents(who, users, sink);
        self.emit_qps(who, sink);
        self.emit_mrs(who, sink);
    }

    /// How many objects use each PD and CQ, and the QPs attached to each SRQ.
    fn users(&self) -> Users {
        let mut pd_users = vec![0u64; self.pdns.len()];
        let mut cq_users = vec![0u64; self.cqns.len()];
        let mut srq_qpns: Vec<Vec<u32>> = vec![Vec::new(); self.srqns.len()];
        for qp in &self.qps {
            bump(&mut pd_users, qp.pd);
            // One CQ serves both the send and the receive queue: used twice.
            bump(&mut cq_users, qp.cq);
            bump(&mut cq_users, qp.cq);
            if let Some(list) = qp.srq.and_then(|s| srq_qpns.get_mut(usize::from(s))) {
                list.push(qp.lqpn);
            }
        }
        for mr in &self.mrs {
            bump(&mut pd_users, mr.pd);
        }
        for (i, _) in self.srqns.iter().enumerate() {
            bump(&mut pd_users, pick(i, self.pdns.len()));
        }
        Users {
            pds: pd_users,
            cqs: cq_users,
            srq_qpns,
        }
    }

    /// The context, PDs, CQs, SRQs and the listening rdma_cm id: everything QPs and MRs hang on.
    fn emit_parents(&self, who: &Attribution, users: Users, sink: &mut impl FnMut(Object)) {
        let device = self.spec.device;
        let user = self.spec.privilege == Privilege::User;
        let main = who.reported(0);
        let Users {
            pds: pd_users,
            cqs: cq_users,
            mut srq_qpns,
        } = users;
        if let Some(ctxn) = self.ctxn {
            sink(Object::Ctx(Ctx {
                device,
                ctxn: Some(ctxn),
                reported: main.clone(),
                owner: who.owner.clone(),
            }));
        }
        for (pdn, users) in self.pdns.iter().zip(&pd_users) {
            sink(Object::Pd(Pd {
                device,
                pdn: Some(*pdn),
                users: *users,
                ctxn: self.ctxn,
                local_dma_lkey: Some(if user { 0 } else { 0x100 + device * 0x10 }),
                reported: main.clone(),
                owner: who.owner.clone(),
            }));
        }
        for (i, (cqn, users)) in self.cqns.iter().zip(&cq_users).enumerate() {
            let xrc_srq_users = self
                .spec
                .srqs
                .iter()
                .filter(|t| **t == SrqType::Xrc && i == 0)
                .count() as u64;
            sink(Object::Cq(Cq {
                device,
                cqn: Some(*cqn),
                cqe: self.spec.cqe,
                users: users + xrc_srq_users,
                poll_ctx: if user { None } else { self.spec.poll_ctx },
                adaptive_moderation: Some(false),
                ctxn: self.ctxn,
                reported: main.clone(),
                owner: who.owner.clone(),
            }));
        }
        for (i, (srqn, srq_type)) in self.srqns.iter().zip(&self.spec.srqs).enumerate() {
            let mut qpns = srq_qpns.get_mut(i).map(std::mem::take).unwrap_or_default();
            qpns.sort_unstable();
            sink(Object::Srq(Srq {
                device,
                srqn: Some(*srqn),
                srq_type: *srq_type,
                pdn: self
                    .pdns
                    .get(usize::from(pick(i, self.pdns.len())))
                    .copied(),
                // Only XRC and tag-matching SRQs report their CQ.
                cqn: (*srq_type != SrqType::Basic)
                    .then(|| self.cqns.first().copied())
                    .flatten(),
                qp_ranges: ranges(&qpns),
                reported: main.clone(),
                owner: who.owner.clone(),
            }));
        }
        if let (Some(cm_idn), Some(port)) = (self.listener, self.spec.listen_port) {
            sink(Object::CmId(CmId {
                device,
                port: Some(1),
                cm_idn: Some(cm_idn),
                lqpn: None,
                qp_type: None,
                state: CmState::Listen,
                ps: Some(PS_TCP),
                src: Some(SocketAddr::V4(SocketAddrV4::new(host::ip_of(device), port))),
                dst: Some(SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0))),
                reported: main.clone(),
                owner: who.owner.clone(),
            }));
        }
    }

    /// Every QP, with the connected rdma_cm id of those that have one.
    fn emit_qps(&self, who: &Attribution, sink: &mut impl FnMut(Object)) {
        let device = self.spec.device;
        let user = self.spec.privilege == Privilege::User;
        let record = |creator: u32| (who.reported(creator), who.owner.clone());
        for qp in &self.qps {
            let qp_type = self
                .spec
                .qp_pools
                .get(usize::from(qp.pool))
                .map_or(QpType::Rc, |p| p.qp_type);
            let (reported, owner) = record(qp.creator);
            if let Some(cm) = &qp.cm {
                sink(Object::CmId(CmId {
                    device,
                    port: Some(1),
                    cm_idn: Some(cm.cm_idn),
                    lqpn: Some(qp.lqpn),
                    qp_type: Some(qp_type),
                    state: if qp.state == QpState::Err {
                        CmState::Disconnect
                    } else {
                        CmState::Connect
                    },
                    ps: Some(PS_TCP),
                    src: Some(SocketAddr::V4(cm.src)),
                    dst: Some(SocketAddr::V4(cm.dst)),
                    reported: reported.clone(),
                    owner: owner.clone(),
                }));
            }
            sink(Object::Qp(Qp {
                device,
                // A QP gets its port when it leaves RESET.
                port: (qp.state != QpState::Reset).then_some(1),
                lqpn: qp.lqpn,
                rqpn: qp.rqpn,
                qp_type,
                state: qp.state,
                pdn: if user {
                    self.pdns.get(usize::from(qp.pd)).copied()
                } else {
                    None
                },
                sq_psn: Some(qp.sq_psn),
                rq_psn: qp.rq_psn,
                reported,
                owner,
            }));
        }
    }

    fn emit_mrs(&self, who: &Attribution, sink: &mut impl FnMut(Object)) {
        let device = self.spec.device;
        let user = self.spec.privilege == Privilege::User;
        let main = who.reported(0);
        for mr in &self.mrs {
            sink(Object::Mr(Mr {
                device,
                mrn: Some(mr.mrn),
                len: mr.len,
                pdn: if user {
                    self.pdns.get(usize::from(mr.pd)).copied()
                } else {
                    None
                },
                keys: Some(MrKeys {
                    rkey: mr.key,
                    lkey: mr.key,
                }),
                reported: main.clone(),
                owner: who.owner.clone(),
            }));
        }
    }
}

/// Users of each PD and CQ, and the QPs of each SRQ, by index.
struct Users {
    pds: Vec<u64>,
    cqs: Vec<u64>,
    srq_qpns: Vec<Vec<u32>>,
}

fn bump(counts: &mut [u64], index: u16) {
    if let Some(c) = counts.get_mut(usize::from(index)) {
        *c += 1;
    }
}

/// Sorted QP numbers as inclusive ranges, the way SRQ entries list them.
fn ranges(sorted: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &q in sorted {
        match out.last_mut() {
            Some((_, last)) if q == last.saturating_add(1) => *last = q,
            _ => out.push((q, q)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{collect, storage_like};
    use super::*;
    use crate::demo::ids::DeviceIds;
    use crate::demo::rng::Rng;
    use crate::demo::spec::{FootprintSpec, QpPool};
    use crate::model::{PollContext, ResourceType};

    #[test]
    fn creates_what_the_spec_asks_for() {
        let mut ids = DeviceIds::default();
        let mut rng = Rng::new(1);
        let fp = Footprint::create(storage_like(), &mut ids, &mut rng);
        let objects = collect(&fp);
        let count = |t: ResourceType| objects.iter().filter(|o| o.resource_type() == t).count();
        assert_eq!(count(ResourceType::Ctx), 1);
        assert_eq!(count(ResourceType::Pd), 1);
        assert_eq!(count(ResourceType::Cq), 2);
        assert_eq!(count(ResourceType::Srq), 2);
        assert_eq!(count(ResourceType::Qp), 10);
        assert_eq!(
            count(ResourceType::CmId),
            11,
            "one per QP plus the listener"
        );
        assert_eq!(count(ResourceType::Mr), 20);
    }

    #[test]
    fn cross_references_are_consistent() {
        let mut ids = DeviceIds::default();
        let mut rng = Rng::new(2);
        let fp = Footprint::create(storage_like(), &mut ids, &mut rng);
        let objects = collect(&fp);
        let pdns: Vec<u32> = objects
            .iter()
            .filter_map(|o| match o {
                Object::Pd(pd) => pd.pdn,
                _ => None,
            })
            .collect();
        let qpns: Vec<u32> = objects
            .iter()
            .filter_map(|o| match o {
                Object::Qp(qp) => Some(qp.lqpn),
                _ => None,
            })
            .collect();
        for o in &objects {
            if let Some(pdn) = o.pdn() {
                assert!(pdns.contains(&pdn), "{o:?} names a PD that does not exist");
            }
            match o {
                Object::CmId(cm) => {
                    if let Some(lqpn) = cm.lqpn {
                        assert!(qpns.contains(&lqpn));
                    }
                }
                Object::Srq(srq) => {
                    for (a, b) in &srq.qp_ranges {
                        assert!(qpns.contains(a) && qpns.contains(b));
                    }
                }
                Object::Pd(pd) => assert_eq!(pd.users, 10 + 20 + 2),
                Object::Cq(cq) => assert_eq!(cq.users, 10),
                _ => {}
            }
        }
        let attached: u32 = objects
            .iter()
            .filter_map(|o| match o {
                Object::Srq(s) => Some(s.qp_ranges.iter().map(|(a, b)| b - a + 1).sum::<u32>()),
                _ => None,
            })
            .sum();
        assert_eq!(attached, 10, "every QP sits in exactly one SRQ range");
    }

    #[test]
    fn qps_created_by_threads_report_the_thread() {
        let mut ids = DeviceIds::default();
        let mut rng = Rng::new(3);
        let fp = Footprint::create(storage_like(), &mut ids, &mut rng);
        let tids: Vec<ReportedOwner> = collect(&fp)
            .into_iter()
            .filter_map(|o| match o {
                Object::Qp(qp) => Some(qp.reported),
                _ => None,
            })
            .collect();
        assert!(tids.contains(&ReportedOwner::Task(101)));
        assert!(tids.contains(&ReportedOwner::Task(102)));
        assert!(!tids.contains(&ReportedOwner::Task(100)));
    }

    #[test]
    fn kernel_records_carry_kernel_fields() {
        let mut ids = DeviceIds::default();
        let mut rng = Rng::new(7);
        let spec = FootprintSpec::kernel(1, 1, 511, PollContext::Softirq).qps(QpPool::rc(2, 0));
        let fp = Footprint::create(spec, &mut ids, &mut rng);
        let who = Attribution {
            owner: OwnerKey::Kernel("nvme_rdma".into()),
            main: ReportedOwner::Kernel("nvme_rdma".into()),
        };
        let mut objects = Vec::new();
        fp.emit(&who, &mut |o| objects.push(o));
        assert!(
            !objects
                .iter()
                .any(|o| o.resource_type() == ResourceType::Ctx)
        );
        for o in &objects {
            assert_eq!(o.reported(), &ReportedOwner::Kernel("nvme_rdma".into()));
            match o {
                Object::Qp(q) => assert_eq!(q.pdn, None),
                Object::Cq(c) => {
                    assert_eq!(c.poll_ctx, Some(PollContext::Softirq));
                    assert_eq!(c.ctxn, None);
                }
                _ => {}
            }
        }
    }

    #[test]
    fn ranges_merge_consecutive_numbers() {
        assert_eq!(ranges(&[1, 2, 3, 7, 9, 10]), [(1, 3), (7, 7), (9, 10)]);
        assert!(ranges(&[]).is_empty());
    }
}
