//! What one owner holds on one device, and the ways it changes: jitter,
//! growth, QPs falling into ERR/SQE and being replaced.
//!
//! Objects are kept in a compact form and turned into model records only when
//! a snapshot is taken, so a tick costs little more than the records it emits.
//! Everything the kernel would cross-reference is kept consistent: QPs and MRs
//! name PDs of the same owner, CQ and PD use counts match the objects using
//! them, SRQs list the QPs attached to them, CM_IDs name their QP.

mod emit;

pub(super) use emit::Attribution;

use super::clock::SimMs;
use super::host;
use super::ids::DeviceIds;
use super::rng::Rng;
use super::spec::{FootprintSpec, Privilege};
use crate::model::{QpState, QpType, ResourceType};
use std::net::{Ipv4Addr, SocketAddrV4};

#[derive(Clone, Debug)]
struct SimCm {
    cm_idn: u32,
    src: SocketAddrV4,
    dst: SocketAddrV4,
}

#[derive(Clone, Debug)]
struct SimQp {
    lqpn: u32,
    pool: u8,
    pd: u16,
    cq: u16,
    srq: Option<u16>,
    /// Creating thread, 0 for the main thread.
    creator: u32,
    rqpn: Option<u32>,
    sq_psn: u32,
    rq_psn: Option<u32>,
    state: QpState,
    /// When an ERR QP is destroyed or an SQE QP recovers.
    fault_until: Option<SimMs>,
    cm: Option<SimCm>,
}

#[derive(Clone, Copy, Debug)]
struct SimMr {
    mrn: u32,
    len: u64,
    pd: u16,
    key: u32,
}

#[derive(Clone, Debug)]
pub(super) struct Footprint {
    spec: FootprintSpec,
    ctxn: Option<u32>,
    pdns: Vec<u32>,
    cqns: Vec<u32>,
    srqns: Vec<u32>,
    listener: Option<u32>,
    qps: Vec<SimQp>,
    mrs: Vec<SimMr>,
    /// Round-robin cursor over CQs, SRQs and creator threads.
    turn: usize,
    /// Set once the owner is tearing down: no more churn.
    frozen: bool,
}

impl Footprint {
    /// Creates everything the spec asks for, in the order a program would.
    pub(super) fn create(spec: FootprintSpec, ids: &mut DeviceIds, rng: &mut Rng) -> Footprint {
        let ctxn = (spec.privilege == Privilege::User).then(|| ids.next(ResourceType::Ctx));
        let pdns = (0..spec.pds).map(|_| ids.next(ResourceType::Pd)).collect();
        let cqns = (0..spec.cqs).map(|_| ids.next(ResourceType::Cq)).collect();
        let srqns = spec
            .srqs
            .iter()
            .map(|_| ids.next(ResourceType::Srq))
            .collect();
        let listener = spec.listen_port.map(|_| ids.next(ResourceType::CmId));
        let mut fp = Footprint {
            spec,
            ctxn,
            pdns,
            cqns,
            srqns,
            listener,
            qps: Vec::new(),
            mrs: Vec::new(),
            turn: 0,
            frozen: false,
        };
        for pool in 0..fp.spec.qp_pools.len() {
            let target = fp.spec.qp_pools[pool].target as usize;
            fp.add_qps(pool, target, ids, rng);
        }
        fp.add_mrs(fp.spec.mrs.target as usize, ids, rng);
        fp
    }

    pub(super) fn device(&self) -> u32 {
        self.spec.device
    }

    pub(super) fn qp_count(&self, pool: usize) -> usize {
        self.qps
            .iter()
            .filter(|q| usize::from(q.pool) == pool)
            .count()
    }

    pub(super) fn mr_count(&self) -> usize {
        self.mrs.len()
    }

    #[cfg(test)]
    pub(super) fn qps_in(&self, state: QpState) -> usize {
        self.qps.iter().filter(|q| q.state == state).count()
    }

    /// Creates `n` QPs in `pool` (each with its CM_ID when the pool uses rdma_cm).
    pub(super) fn add_qps(&mut self, pool: usize, n: usize, ids: &mut DeviceIds, rng: &mut Rng) {
        let Some(spec) = self.spec.qp_pools.get(pool) else {
            return;
        };
        let local_ip = host::ip_of(self.spec.device);
        for _ in 0..n {
            self.turn = self.turn.wrapping_add(1);
            let lqpn = match spec.fixed_qpn {
                Some(q) => q,
                None => ids.qpn(rng),
            };
            let connected = matches!(spec.qp_type, QpType::Rc | QpType::Uc);
            let connected_psn = connected && spec.healthy == QpState::Rts;
            let cm = spec.cm.as_ref().map(|link| {
                let peer = u32::from(link.peer_base) + rng.below(u64::from(link.peers)) as u32;
                let ephemeral = |rng: &mut Rng| 32_768 + rng.below(28_232) as u16;
                SimCm {
                    cm_idn: ids.next(ResourceType::CmId),
                    src: SocketAddrV4::new(
                        local_ip,
                        link.local_port.unwrap_or_else(|| ephemeral(rng)),
                    ),
                    dst: SocketAddrV4::new(
                        Ipv4Addr::from(peer),
                        link.peer_port.unwrap_or_else(|| ephemeral(rng)),
                    ),
                }
            });
            let pool_index = u8::try_from(pool).unwrap_or(u8::MAX);
            self.qps.push(SimQp {
                lqpn,
                pool: pool_index,
                pd: pick(self.turn, self.pdns.len()),
                cq: pick(self.turn, self.cqns.len()),
                srq: (spec.on_srq && !self.srqns.is_empty())
                    .then(|| pick(self.turn, self.srqns.len())),
                creator: spec
                    .creators
                    .get(self.turn % spec.creators.len().max(1))
                    .copied()
                    .unwrap_or(0),
                // Connected types always report the remote side; it reads 0
                // until the QP is connected.
                rqpn: connected.then(|| {
                    if connected_psn {
                        0x100 + rng.below(0x00ff_ff00) as u32
                    } else {
                        0
                    }
                }),
                sq_psn: if connected_psn || spec.qp_type == QpType::Ud {
                    rng.below(1 << 24) as u32
                } else {
                    0
                },
                rq_psn: connected.then(|| {
                    if connected_psn {
                        rng.below(1 << 24) as u32
                    } else {
                        0
                    }
                }),
                state: spec.healthy,
                fault_until: None,
                cm,
            });
        }
    }

    /// Destroys `n` working QPs of `pool`, picked at random.
    pub(super) fn remove_qps(&mut self, pool: usize, n: usize, rng: &mut Rng) {
        for _ in 0..n {
            let Some(i) = self.pick_working_qp(pool, rng) else {
                return;
            };
            self.qps.swap_remove(i);
        }
    }

    pub(super) fn add_mrs(&mut self, n: usize, ids: &mut DeviceIds, rng: &mut Rng) {
        for _ in 0..n {
            self.turn = self.turn.wrapping_add(1);
            self.mrs.push(SimMr {
                mrn: ids.next(ResourceType::Mr),
                len: self.spec.mrs.draw_len(rng),
                pd: pick(self.turn, self.pdns.len()),
                key: ids.mkey(rng),
            });
        }
    }

    pub(super) fn remove_mrs(&mut self, n: usize, rng: &mut Rng) {
        for _ in 0..n.min(self.mrs.len()) {
            let i = rng.index(self.mrs.len());
            self.mrs.swap_remove(i);
        }
    }

    /// The ordinary churn of a busy program: connections and buffers come and
    /// go, the counts wandering within `target ± spread`.
    pub(super) fn jitter(&mut self, ids: &mut DeviceIds, rng: &mut Rng) {
        if self.frozen {
            return;
        }
        for pool in 0..self.spec.qp_pools.len() {
            let (target, spread) = {
                let p = &self.spec.qp_pools[pool];
                (p.target, p.spread)
            };
            if spread == 0 || !rng.chance(1, 2) {
                continue;
            }
            let current = self.qp_count(pool);
            match wander(current, target, spread, rng) {
                Change::Grow(n) => self.add_qps(pool, n, ids, rng),
                Change::Shrink(n) => self.remove_qps(pool, n, rng),
            }
        }
        let mrs = self.spec.mrs;
        if mrs.spread > 0 && rng.chance(1, 2) {
            match wander(self.mrs.len(), mrs.target, mrs.spread, rng) {
                Change::Grow(n) => self.add_mrs(n, ids, rng),
                Change::Shrink(n) => self.remove_mrs(n, rng),
            }
        }
    }

    /// Moves up to `n` working QPs of `pool` to `state` (ERR when the peer
    /// died, SQE after a send error) until `until`. Returns how many moved.
    pub(super) fn break_qps(
        &mut self,
        pool: usize,
        n: usize,
        state: QpState,
        until: SimMs,
        rng: &mut Rng,
    ) -> usize {
        let mut moved = 0;
        while moved < n {
            let Some(i) = self.pick_working_qp(pool, rng) else {
                break;
            };
            if let Some(qp) = self.qps.get_mut(i) {
                qp.state = state;
                qp.fault_until = Some(until);
                if let Some(rq) = qp.rq_psn.as_mut() {
                    // The PSNs froze wherever traffic stopped.
                    *rq = rq.wrapping_add(rng.below(4096) as u32) & 0x00ff_ffff;
                }
            }
            moved += 1;
        }
        moved
    }

    /// Every QP goes to ERR at once and churn stops: the job lost a peer
    /// and is tearing down.
    pub(super) fn break_all_qps(&mut self, until: SimMs) {
        self.frozen = true;
        for qp in &mut self.qps {
            qp.state = QpState::Err;
            qp.fault_until = Some(until);
        }
    }

    /// Ends faults that are due: ERR QPs are destroyed and, when `reconnect`
    /// (and the owner is not tearing down), replaced by fresh working ones;
    /// SQE QPs are recovered in place.
    pub(super) fn settle(
        &mut self,
        now: SimMs,
        reconnect: bool,
        ids: &mut DeviceIds,
        rng: &mut Rng,
    ) {
        let mut destroyed = vec![0usize; self.spec.qp_pools.len()];
        let mut i = 0;
        while i < self.qps.len() {
            let qp = &mut self.qps[i];
            let due = qp.fault_until.is_some_and(|t| t <= now);
            if due && qp.state == QpState::Err {
                if let Some(slot) = destroyed.get_mut(usize::from(qp.pool)) {
                    *slot += 1;
                }
                self.qps.swap_remove(i);
                continue;
            }
            if due {
                let healthy = self
                    .spec
                    .qp_pools
                    .get(usize::from(qp.pool))
                    .map_or(QpState::Rts, |p| p.healthy);
                qp.state = healthy;
                qp.fault_until = None;
            }
            i += 1;
        }
        if reconnect && !self.frozen {
            for (pool, n) in destroyed.into_iter().enumerate() {
                self.add_qps(pool, n, ids, rng);
            }
        }
    }

    /// Index of a random working (not faulted) QP of `pool`.
    fn pick_working_qp(&self, pool: usize, rng: &mut Rng) -> Option<usize> {
        let working = |q: &SimQp| usize::from(q.pool) == pool && q.fault_until.is_none();
        let count = self.qps.iter().filter(|q| working(q)).count();
        if count == 0 {
            return None;
        }
        let nth = rng.index(count);
        self.qps
            .iter()
            .enumerate()
            .filter(|(_, q)| working(q))
            .nth(nth)
            .map(|(i, _)| i)
    }
}

enum Change {
    Grow(usize),
    Shrink(usize),
}

/// A small random step of a count, kept within `target ± spread`.
fn wander(current: usize, target: u32, spread: u32, rng: &mut Rng) -> Change {
    let step = u64::from((spread / 3).max(1));
    let delta = rng.range(0, 2 * step) as i64 - step as i64;
    let lo = i64::from(target.saturating_sub(spread));
    let hi = i64::from(target.saturating_add(spread));
    let current = current as i64;
    let next = (current + delta).clamp(lo, hi);
    if next >= current {
        Change::Grow((next - current) as usize)
    } else {
        Change::Shrink((current - next) as usize)
    }
}

/// Round-robin choice among `len` items (0 when there are none).
fn pick(turn: usize, len: usize) -> u16 {
    u16::try_from(turn % len.max(1)).unwrap_or(0)
}

#[cfg(test)]
/// A storage-target-like footprint and the helpers the footprint tests share.
mod fixtures {
    use super::Footprint;
    use super::emit::Attribution;
    use crate::demo::spec::{CmLink, FootprintSpec, MrPool, QpPool};
    use crate::model::{Object, OwnerKey, ProcessKey, ReportedOwner, SrqType};
    use std::net::Ipv4Addr;

    pub(super) fn who() -> Attribution {
        Attribution {
            owner: OwnerKey::Process(ProcessKey {
                pid: 100,
                start_time: 5,
            }),
            main: ReportedOwner::Task(100),
        }
    }

    pub(super) fn collect(fp: &Footprint) -> Vec<Object> {
        let mut out = Vec::new();
        fp.emit(&who(), &mut |o| out.push(o));
        out
    }

    pub(super) fn storage_like() -> FootprintSpec {
        FootprintSpec::user(0, 2, 4095)
            .srqs(&[SrqType::Basic, SrqType::Basic])
            .qps(
                QpPool::rc(10, 2)
                    .on_srq()
                    .created_by(&[101, 102])
                    .via_cm(CmLink {
                        local_port: Some(4420),
                        peer_base: Ipv4Addr::new(192, 168, 100, 21),
                        peers: 4,
                        peer_port: None,
                    }),
            )
            .mrs(MrPool {
                target: 20,
                spread: 3,
                min_shift: 21,
                max_shift: 30,
            })
            .listen(4420)
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{collect, storage_like};
    use super::*;
    use crate::demo::spec::QpPool;
    use crate::model::{CmState, Object};

    #[test]
    fn jitter_stays_within_the_spread() {
        let mut ids = DeviceIds::default();
        let mut rng = Rng::new(4);
        let mut fp = Footprint::create(storage_like(), &mut ids, &mut rng);
        for _ in 0..500 {
            fp.jitter(&mut ids, &mut rng);
            assert!((8..=12).contains(&fp.qp_count(0)));
            assert!((17..=23).contains(&fp.mr_count()));
        }
    }

    #[test]
    fn err_qps_are_destroyed_and_replaced_when_due() {
        let mut ids = DeviceIds::default();
        let mut rng = Rng::new(5);
        let mut fp = Footprint::create(storage_like(), &mut ids, &mut rng);
        assert_eq!(fp.break_qps(0, 3, QpState::Err, 1_000, &mut rng), 3);
        let errs = |fp: &Footprint| {
            collect(fp)
                .iter()
                .filter(|o| matches!(o, Object::Qp(q) if q.state == QpState::Err))
                .count()
        };
        let disconnected = |fp: &Footprint| {
            collect(fp)
                .iter()
                .filter(|o| matches!(o, Object::CmId(c) if c.state == CmState::Disconnect))
                .count()
        };
        assert_eq!((errs(&fp), disconnected(&fp)), (3, 3));
        fp.settle(999, true, &mut ids, &mut rng);
        assert_eq!(errs(&fp), 3, "not due yet");
        fp.settle(1_000, true, &mut ids, &mut rng);
        assert_eq!(errs(&fp), 0);
        assert_eq!(fp.qp_count(0), 10, "reconnected");
    }

    #[test]
    fn sqe_qps_recover_in_place() {
        let mut ids = DeviceIds::default();
        let mut rng = Rng::new(6);
        let spec = FootprintSpec::user(0, 1, 255).qps(QpPool {
            qp_type: QpType::Ud,
            ..QpPool::rc(4, 0)
        });
        let mut fp = Footprint::create(spec, &mut ids, &mut rng);
        let qpns = |fp: &Footprint| {
            let mut v: Vec<u32> = collect(fp)
                .iter()
                .filter_map(|o| match o {
                    Object::Qp(q) => Some(q.lqpn),
                    _ => None,
                })
                .collect();
            v.sort();
            v
        };
        let before = qpns(&fp);
        fp.break_qps(0, 1, QpState::Sqe, 10, &mut rng);
        fp.settle(10, true, &mut ids, &mut rng);
        assert_eq!(qpns(&fp), before);
    }

    #[test]
    fn a_footprint_tearing_down_stops_churning_and_reconnecting() {
        let mut ids = DeviceIds::default();
        let mut rng = Rng::new(8);
        let mut fp = Footprint::create(storage_like(), &mut ids, &mut rng);
        fp.break_qps(0, 2, QpState::Err, 50, &mut rng);
        fp.break_all_qps(SimMs::MAX);
        for now in 0..100 {
            fp.jitter(&mut ids, &mut rng);
            fp.settle(now * 10, true, &mut ids, &mut rng);
        }
        assert_eq!(fp.qps_in(QpState::Err), fp.qp_count(0));
        assert_eq!(fp.qps_in(QpState::Rts), 0);
    }
}
