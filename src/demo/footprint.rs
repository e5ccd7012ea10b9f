//! What one owner holds on one device, and the ways it changes: jitter,
//! growth, QPs falling into ERR/SQE and being replaced.
//!
//! Objects are kept in a compact form and turned into model records only when
//! a snapshot is taken, so a tick costs little more than the records it emits.
//! Everything the kernel would cross-reference is kept consistent: QPs and MRs
//! name PDs of the same owner, CQ and PD use counts match the objects using
//! them, SRQs list the QPs attached to them, CM_IDs name their QP.

use super::clock::SimMs;
use super::host;
use super::ids::DeviceIds;
use super::rng::Rng;
use crate::model::{
    CmId, CmState, Cq, Ctx, Mr, MrKeys, Object, OwnerKey, Pd, PollContext, Qp, QpState, QpType,
    ReportedOwner, ResourceType, Srq, SrqType,
};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

/// `RDMA_PS_TCP`: the port space of every rdma_cm id in the simulation.
const PS_TCP: u32 = 0x0106;

/// Kernel owners get fewer fields than user ones (no `pdn` on QPs and MRs,
/// no `ctxn`, a poll context on CQs) and no user context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Privilege {
    User,
    Kernel,
}

/// QPs connected through rdma_cm: each one has a CM_ID with addresses.
#[derive(Clone, Debug)]
pub struct CmLink {
    /// Local port; `None` for an ephemeral port per connection (we connected out).
    pub local_port: Option<u16>,
    /// Peers are `peer_base`, `peer_base + 1`, ... (`peers` of them).
    pub peer_base: Ipv4Addr,
    pub peers: u8,
    /// Remote port; `None` for an ephemeral port (the peer connected to us).
    pub peer_port: Option<u16>,
}

/// A group of alike QPs whose number wanders around a target.
#[derive(Clone, Debug)]
pub struct QpPool {
    pub qp_type: QpType,
    pub target: u32,
    /// How far the count may wander from `target` either way (0: fixed).
    pub spread: u32,
    /// State of a working QP: RTS, or INIT for QPs that never get connected.
    pub healthy: QpState,
    /// Threads that create these QPs, in turn; empty for the main thread.
    pub creators: Vec<u32>,
    /// Receive through the footprint's SRQs (round robin).
    pub on_srq: bool,
    pub cm: Option<CmLink>,
    /// Fixed QP number (1 for the GSI QP), for pools of one.
    pub fixed_qpn: Option<u32>,
}

impl QpPool {
    /// Connected RC QPs owned by the main thread, without rdma_cm.
    pub fn rc(target: u32, spread: u32) -> QpPool {
        QpPool {
            qp_type: QpType::Rc,
            target,
            spread,
            healthy: QpState::Rts,
            creators: Vec::new(),
            on_srq: false,
            cm: None,
            fixed_qpn: None,
        }
    }

    pub fn via_cm(mut self, cm: CmLink) -> QpPool {
        self.cm = Some(cm);
        self
    }

    pub fn created_by(mut self, threads: &[u32]) -> QpPool {
        self.creators = threads.to_vec();
        self
    }

    pub fn on_srq(mut self) -> QpPool {
        self.on_srq = true;
        self
    }
}

/// Memory registrations whose number wanders around a target; lengths are
/// powers of two between `2^min_shift` and `2^max_shift`, small ones likelier.
#[derive(Clone, Copy, Debug)]
pub struct MrPool {
    pub target: u32,
    pub spread: u32,
    pub min_shift: u32,
    pub max_shift: u32,
}

impl MrPool {
    pub const NONE: MrPool = MrPool {
        target: 0,
        spread: 0,
        min_shift: 12,
        max_shift: 12,
    };

    fn draw_len(&self, rng: &mut Rng) -> u64 {
        let span = u64::from(self.max_shift.saturating_sub(self.min_shift));
        // The smaller of two uniform draws: most buffers are small, a few huge.
        let shift = u64::from(self.min_shift) + rng.range(0, span).min(rng.range(0, span));
        1u64 << shift.min(40)
    }
}

/// The shape of a footprint: what it is created with and wanders around.
#[derive(Clone, Debug)]
pub struct FootprintSpec {
    pub device: u32,
    pub privilege: Privilege,
    pub pds: u16,
    pub cqs: u16,
    /// CQ size as the kernel reports it (`2^n - 1` on mlx5).
    pub cqe: u32,
    /// Kernel CQs only.
    pub poll_ctx: Option<PollContext>,
    pub srqs: Vec<SrqType>,
    pub qp_pools: Vec<QpPool>,
    pub mrs: MrPool,
    /// An rdma_cm listener on this port of the device's address.
    pub listen_port: Option<u16>,
}

impl FootprintSpec {
    /// A user-space footprint with a PD and some CQs and nothing else yet.
    pub fn user(device: u32, cqs: u16, cqe: u32) -> FootprintSpec {
        FootprintSpec {
            device,
            privilege: Privilege::User,
            pds: 1,
            cqs,
            cqe,
            poll_ctx: None,
            srqs: Vec::new(),
            qp_pools: Vec::new(),
            mrs: MrPool::NONE,
            listen_port: None,
        }
    }

    /// A kernel footprint: one PD and `cqs` CQs polled from `poll_ctx`.
    pub fn kernel(device: u32, cqs: u16, cqe: u32, poll_ctx: PollContext) -> FootprintSpec {
        FootprintSpec {
            privilege: Privilege::Kernel,
            poll_ctx: Some(poll_ctx),
            ..FootprintSpec::user(device, cqs, cqe)
        }
    }

    pub fn qps(mut self, pool: QpPool) -> FootprintSpec {
        self.qp_pools.push(pool);
        self
    }

    pub fn mrs(mut self, mrs: MrPool) -> FootprintSpec {
        self.mrs = mrs;
        self
    }

    pub fn srqs(mut self, srqs: &[SrqType]) -> FootprintSpec {
        self.srqs = srqs.to_vec();
        self
    }

    pub fn listen(mut self, port: u16) -> FootprintSpec {
        self.listen_port = Some(port);
        self
    }
}

/// Who the emitted records belong to.
#[derive(Clone, Debug)]
pub struct Attribution {
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
pub struct Footprint {
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
}

impl Footprint {
    /// Creates everything the spec asks for, in the order a program would.
    pub fn create(spec: FootprintSpec, ids: &mut DeviceIds, rng: &mut Rng) -> Footprint {
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
        };
        for pool in 0..fp.spec.qp_pools.len() {
            let target = fp.spec.qp_pools[pool].target as usize;
            fp.add_qps(pool, target, ids, rng);
        }
        fp.add_mrs(fp.spec.mrs.target as usize, ids, rng);
        fp
    }

    pub fn device(&self) -> u32 {
        self.spec.device
    }

    pub fn qp_count(&self, pool: usize) -> usize {
        self.qps
            .iter()
            .filter(|q| usize::from(q.pool) == pool)
            .count()
    }

    pub fn mr_count(&self) -> usize {
        self.mrs.len()
    }

    /// Creates `n` QPs in `pool` (each with its CM_ID when the pool uses rdma_cm).
    pub fn add_qps(&mut self, pool: usize, n: usize, ids: &mut DeviceIds, rng: &mut Rng) {
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
    pub fn remove_qps(&mut self, pool: usize, n: usize, rng: &mut Rng) {
        for _ in 0..n {
            let Some(i) = self.pick_working_qp(pool, rng) else {
                return;
            };
            self.qps.swap_remove(i);
        }
    }

    pub fn add_mrs(&mut self, n: usize, ids: &mut DeviceIds, rng: &mut Rng) {
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

    pub fn remove_mrs(&mut self, n: usize, rng: &mut Rng) {
        for _ in 0..n.min(self.mrs.len()) {
            let i = rng.index(self.mrs.len());
            self.mrs.swap_remove(i);
        }
    }

    /// The ordinary churn of a busy program: connections and buffers come and
    /// go, the counts wandering within `target ± spread`.
    pub fn jitter(&mut self, ids: &mut DeviceIds, rng: &mut Rng) {
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
    pub fn break_qps(
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

    /// Every QP goes to ERR at once: the job lost a peer and is tearing down.
    pub fn break_all_qps(&mut self, until: SimMs) {
        for qp in &mut self.qps {
            if !qp.state.is_error() {
                qp.state = QpState::Err;
                qp.fault_until = Some(until);
            }
        }
    }

    /// Ends faults that are due: ERR QPs are destroyed and, when `reconnect`,
    /// replaced by fresh working ones; SQE QPs are recovered in place.
    pub fn settle(&mut self, now: SimMs, reconnect: bool, ids: &mut DeviceIds, rng: &mut Rng) {
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
        if reconnect {
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

    /// Emits every object as the kernel's dumps would list it.
    pub fn emit(&self, who: &Attribution, sink: &mut impl FnMut(Object)) {
        let device = self.spec.device;
        let user = self.spec.privilege == Privilege::User;
        let main = who.reported(0);
        let record = |creator: u32| (who.reported(creator), who.owner.clone());

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
            let mut qpns = srq_qpns.get(i).cloned().unwrap_or_default();
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
    use super::*;
    use crate::model::ProcessKey;

    fn who() -> Attribution {
        Attribution {
            owner: OwnerKey::Process(ProcessKey {
                pid: 100,
                start_time: 5,
            }),
            main: ReportedOwner::Task(100),
        }
    }

    fn collect(fp: &Footprint) -> Vec<Object> {
        let mut out = Vec::new();
        fp.emit(&who(), &mut |o| out.push(o));
        out
    }

    fn storage_like() -> FootprintSpec {
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
