//! Typed records for the objects the kernel lists in `RES_*_GET` dumps.
//!
//! Every record carries the device index, what the kernel reported as owner
//! (`reported`) and the row it is counted under once resolved (`owner`; the
//! parser leaves it `Unattributed`, the collector fills it in). Optional fields
//! are `None` when the kernel did not send them (older kernels, unprivileged
//! callers, objects without a port).

use super::enums::{CmState, PollContext, QpState, QpType, SrqType};
use super::owner::{OwnerKey, ReportedOwner};
use super::resource::ResourceType;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Qp {
    pub device: u32,
    pub port: Option<u32>,
    pub lqpn: u32,
    pub rqpn: Option<u32>,
    pub qp_type: QpType,
    pub state: QpState,
    pub pdn: Option<u32>,
    pub sq_psn: Option<u32>,
    pub rq_psn: Option<u32>,
    pub reported: ReportedOwner,
    pub owner: OwnerKey,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cq {
    pub device: u32,
    pub cqn: Option<u32>,
    pub cqe: u32,
    pub users: u64,
    pub poll_ctx: Option<PollContext>,
    pub adaptive_moderation: Option<bool>,
    pub ctxn: Option<u32>,
    pub reported: ReportedOwner,
    pub owner: OwnerKey,
}

/// MR keys are only sent to callers with CAP_NET_ADMIN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MrKeys {
    pub rkey: u32,
    pub lkey: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mr {
    pub device: u32,
    pub mrn: Option<u32>,
    /// Registered length in bytes (pinned memory for ordinary MRs).
    pub len: u64,
    pub pdn: Option<u32>,
    /// `None` when hidden (no CAP_NET_ADMIN), never zero for hidden.
    pub keys: Option<MrKeys>,
    pub reported: ReportedOwner,
    pub owner: OwnerKey,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pd {
    pub device: u32,
    pub pdn: Option<u32>,
    pub users: u64,
    pub ctxn: Option<u32>,
    /// `None` when hidden (no CAP_NET_ADMIN).
    pub local_dma_lkey: Option<u32>,
    pub reported: ReportedOwner,
    pub owner: OwnerKey,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmId {
    pub device: u32,
    pub port: Option<u32>,
    pub cm_idn: Option<u32>,
    pub lqpn: Option<u32>,
    pub qp_type: Option<QpType>,
    pub state: CmState,
    /// Port space (0x0106 TCP, 0x0111 UDP, 0x0002 IPoIB, 0x013F IB).
    pub ps: Option<u32>,
    pub src: Option<SocketAddr>,
    pub dst: Option<SocketAddr>,
    pub reported: ReportedOwner,
    pub owner: OwnerKey,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ctx {
    pub device: u32,
    pub ctxn: Option<u32>,
    pub reported: ReportedOwner,
    pub owner: OwnerKey,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Srq {
    pub device: u32,
    pub srqn: Option<u32>,
    pub srq_type: SrqType,
    pub pdn: Option<u32>,
    pub cqn: Option<u32>,
    /// QPs attached to the SRQ as inclusive ranges `(first, last)`.
    pub qp_ranges: Vec<(u32, u32)>,
    pub reported: ReportedOwner,
    pub owner: OwnerKey,
}

/// Any one object, as parsed from a dump entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Object {
    Qp(Qp),
    Cq(Cq),
    Mr(Mr),
    Pd(Pd),
    CmId(CmId),
    Ctx(Ctx),
    Srq(Srq),
}

impl Object {
    pub fn resource_type(&self) -> ResourceType {
        match self {
            Object::Qp(_) => ResourceType::Qp,
            Object::Cq(_) => ResourceType::Cq,
            Object::Mr(_) => ResourceType::Mr,
            Object::Pd(_) => ResourceType::Pd,
            Object::CmId(_) => ResourceType::CmId,
            Object::Ctx(_) => ResourceType::Ctx,
            Object::Srq(_) => ResourceType::Srq,
        }
    }

    pub fn device(&self) -> u32 {
        match self {
            Object::Qp(o) => o.device,
            Object::Cq(o) => o.device,
            Object::Mr(o) => o.device,
            Object::Pd(o) => o.device,
            Object::CmId(o) => o.device,
            Object::Ctx(o) => o.device,
            Object::Srq(o) => o.device,
        }
    }

    pub fn reported(&self) -> &ReportedOwner {
        match self {
            Object::Qp(o) => &o.reported,
            Object::Cq(o) => &o.reported,
            Object::Mr(o) => &o.reported,
            Object::Pd(o) => &o.reported,
            Object::CmId(o) => &o.reported,
            Object::Ctx(o) => &o.reported,
            Object::Srq(o) => &o.reported,
        }
    }

    pub fn owner(&self) -> &OwnerKey {
        match self {
            Object::Qp(o) => &o.owner,
            Object::Cq(o) => &o.owner,
            Object::Mr(o) => &o.owner,
            Object::Pd(o) => &o.owner,
            Object::CmId(o) => &o.owner,
            Object::Ctx(o) => &o.owner,
            Object::Srq(o) => &o.owner,
        }
    }

    pub fn set_owner(&mut self, owner: OwnerKey) {
        let slot = match self {
            Object::Qp(o) => &mut o.owner,
            Object::Cq(o) => &mut o.owner,
            Object::Mr(o) => &mut o.owner,
            Object::Pd(o) => &mut o.owner,
            Object::CmId(o) => &mut o.owner,
            Object::Ctx(o) => &mut o.owner,
            Object::Srq(o) => &mut o.owner,
        };
        *slot = owner;
    }

    /// The object's id within its device and type, for de-duplication.
    /// `None` on old kernels that send no ids (such objects are never deduplicated).
    pub fn id(&self) -> Option<u32> {
        match self {
            Object::Qp(o) => Some(o.lqpn),
            Object::Cq(o) => o.cqn,
            Object::Mr(o) => o.mrn,
            Object::Pd(o) => o.pdn,
            Object::CmId(o) => o.cm_idn,
            Object::Ctx(o) => o.ctxn,
            Object::Srq(o) => o.srqn,
        }
    }

    /// QP ids are only unique per port for QP0/QP1 (the kernel keys them by
    /// `qpn | port << 24`); this returns that kernel key for QPs and `id()` otherwise.
    pub fn dedup_key(&self) -> Option<u64> {
        match self {
            Object::Qp(o) => Some(u64::from(o.lqpn) | (u64::from(o.port.unwrap_or(0)) << 32)),
            other => other.id().map(u64::from),
        }
    }

    /// The protection domain this object hangs off, used to find an owner
    /// for objects whose creating thread is gone.
    pub fn pdn(&self) -> Option<u32> {
        match self {
            Object::Qp(o) => o.pdn,
            Object::Mr(o) => o.pdn,
            Object::Srq(o) => o.pdn,
            _ => None,
        }
    }

    /// The user context this object belongs to.
    pub fn ctxn(&self) -> Option<u32> {
        match self {
            Object::Cq(o) => o.ctxn,
            Object::Pd(o) => o.ctxn,
            Object::Ctx(o) => o.ctxn,
            _ => None,
        }
    }
}
