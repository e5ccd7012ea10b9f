//! The shape of what an owner holds on a device: how many of each object,
//! how far the counts wander, and how QPs connect. Workloads are written as
//! these specs; `Footprint` brings them to life.

use super::rng::Rng;
use crate::model::{PollContext, QpState, QpType, SrqType};
use std::net::Ipv4Addr;

/// Kernel owners get fewer fields than user ones (no `pdn` on QPs and MRs,
/// no `ctxn`, a poll context on CQs) and no user context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Privilege {
    User,
    Kernel,
}

/// QPs connected through rdma_cm: each one has a CM_ID with addresses.
#[derive(Clone, Debug)]
pub(super) struct CmLink {
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
pub(super) struct QpPool {
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
    pub(super) fn rc(target: u32, spread: u32) -> QpPool {
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

    pub(super) fn via_cm(mut self, cm: CmLink) -> QpPool {
        self.cm = Some(cm);
        self
    }

    pub(super) fn created_by(mut self, threads: &[u32]) -> QpPool {
        self.creators = threads.to_vec();
        self
    }

    pub(super) fn on_srq(mut self) -> QpPool {
        self.on_srq = true;
        self
    }
}

/// Memory registrations whose number wanders around a target; lengths are
/// powers of two between `2^min_shift` and `2^max_shift`, small ones likelier.
#[derive(Clone, Copy, Debug)]
pub(super) struct MrPool {
    pub target: u32,
    pub spread: u32,
    pub min_shift: u32,
    pub max_shift: u32,
}

impl MrPool {
    pub(super) const NONE: MrPool = MrPool {
        target: 0,
        spread: 0,
        min_shift: 12,
        max_shift: 12,
    };

    pub(super) fn draw_len(&self, rng: &mut Rng) -> u64 {
        let span = u64::from(self.max_shift.saturating_sub(self.min_shift));
        // The smaller of two uniform draws: most buffers are small, a few huge.
        let shift = u64::from(self.min_shift) + rng.range(0, span).min(rng.range(0, span));
        1u64 << shift.min(40)
    }
}

/// The shape of a footprint: what it is created with and wanders around.
#[derive(Clone, Debug)]
pub(super) struct FootprintSpec {
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
    pub(super) fn user(device: u32, cqs: u16, cqe: u32) -> FootprintSpec {
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
    pub(super) fn kernel(device: u32, cqs: u16, cqe: u32, poll_ctx: PollContext) -> FootprintSpec {
        FootprintSpec {
            privilege: Privilege::Kernel,
            poll_ctx: Some(poll_ctx),
            ..FootprintSpec::user(device, cqs, cqe)
        }
    }

    pub(super) fn qps(mut self, pool: QpPool) -> FootprintSpec {
        self.qp_pools.push(pool);
        self
    }

    pub(super) fn mrs(mut self, mrs: MrPool) -> FootprintSpec {
        self.mrs = mrs;
        self
    }

    pub(super) fn srqs(mut self, srqs: &[SrqType]) -> FootprintSpec {
        self.srqs = srqs.to_vec();
        self
    }

    pub(super) fn listen(mut self, port: u16) -> FootprintSpec {
        self.listen_port = Some(port);
        self
    }
}
