//! Resource dump messages → model records.
//!
//! A dump message is `DEV_INDEX, DEV_NAME, <table>{ <entry>{..}, .. }`; a
//! large table continues in the next message. Entries lacking what the
//! record cannot do without (a QP without number, type or state; a CQ without
//! size or users; an MR without length; a PD without users; a CM_ID or SRQ
//! without state/type) are skipped: the kernel always sends those, so such an
//! entry is one restop does not understand, and the rest of the dump stays
//! usable. Kernel CTX entries are empty nests and become records without id
//! or owner, so counts still match the summary.

use super::attr::{TlvError, attrs};
use super::consts::{attr as a, cmd};
use super::entry::{EntryFields, qp_ranges};
use super::sockaddr;
use crate::model::{
    CmId, CmState, Cq, Ctx, Mr, MrKeys, Object, OwnerKey, Pd, PollContext, Qp, QpState, QpType,
    ReportedOwner, ResourceType, Srq, SrqType,
};

/// The nldev command, table attribute and entry attribute of a resource type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub command: u16,
    pub op: &'static str,
    pub table: u16,
    pub entry: u16,
}

pub fn layout(t: ResourceType) -> Layout {
    let (command, op, table, entry) = match t {
        ResourceType::Qp => (cmd::RES_QP_GET, "RES_QP_GET", a::RES_QP, a::RES_QP_ENTRY),
        ResourceType::Cq => (cmd::RES_CQ_GET, "RES_CQ_GET", a::RES_CQ, a::RES_CQ_ENTRY),
        ResourceType::Mr => (cmd::RES_MR_GET, "RES_MR_GET", a::RES_MR, a::RES_MR_ENTRY),
        ResourceType::Pd => (cmd::RES_PD_GET, "RES_PD_GET", a::RES_PD, a::RES_PD_ENTRY),
        ResourceType::CmId => (
            cmd::RES_CM_ID_GET,
            "RES_CM_ID_GET",
            a::RES_CM_ID,
            a::RES_CM_ID_ENTRY,
        ),
        ResourceType::Ctx => (
            cmd::RES_CTX_GET,
            "RES_CTX_GET",
            a::RES_CTX,
            a::RES_CTX_ENTRY,
        ),
        ResourceType::Srq => (
            cmd::RES_SRQ_GET,
            "RES_SRQ_GET",
            a::RES_SRQ,
            a::RES_SRQ_ENTRY,
        ),
    };
    Layout {
        command,
        op,
        table,
        entry,
    }
}

/// Parses one dump message, handing each record to `sink`; returns how many.
/// `requested` is the device asked for, used when the message has no
/// `DEV_INDEX`.
pub fn parse_message(
    payload: &[u8],
    t: ResourceType,
    requested: u32,
    sink: &mut dyn FnMut(Object),
) -> Result<usize, TlvError> {
    let layout = layout(t);
    let mut device = None;
    for item in attrs(payload) {
        let at = item?;
        if at.kind == a::DEV_INDEX {
            device = Some(at.u32()?);
        }
    }
    let device = device.unwrap_or(requested);
    let mut count = 0;
    for item in attrs(payload) {
        let table = item?;
        if table.kind != layout.table {
            continue;
        }
        for entry in table.nested() {
            let entry = entry?;
            if entry.kind != layout.entry {
                continue;
            }
            let fields = EntryFields::parse(entry.payload)?;
            if let Some(object) = build(t, device, &fields)? {
                sink(object);
                count += 1;
            }
        }
    }
    Ok(count)
}

fn reported(f: &EntryFields<'_>) -> ReportedOwner {
    match (f.pid, f.kern_name) {
        (Some(pid), _) => ReportedOwner::Task(pid),
        (None, Some(name)) if !name.is_empty() => {
            ReportedOwner::Kernel(String::from_utf8_lossy(name).into_owned())
        }
        _ => ReportedOwner::Missing,
    }
}

/// Builds the record, or `None` for an entry lacking required fields.
#[allow(clippy::too_many_lines)] // one arm per object type
fn build(t: ResourceType, device: u32, f: &EntryFields<'_>) -> Result<Option<Object>, TlvError> {
    let owner = OwnerKey::Unattributed;
    let object = match t {
        ResourceType::Qp => {
            let (Some(lqpn), Some(qp_type), Some(state)) = (f.lqpn, f.res_type, f.state) else {
                return Ok(None);
            };
            Object::Qp(Qp {
                device,
                port: f.port,
                lqpn,
                rqpn: f.rqpn,
                qp_type: QpType::from_raw(qp_type),
                state: QpState::from_raw(state),
                pdn: f.pdn,
                sq_psn: f.sq_psn,
                rq_psn: f.rq_psn,
                reported: reported(f),
                owner,
            })
        }
        ResourceType::Cq => {
            let (Some(cqe), Some(users)) = (f.cqe, f.usecnt) else {
                return Ok(None);
            };
            Object::Cq(Cq {
                device,
                cqn: f.cqn,
                cqe,
                users,
                poll_ctx: f.poll_ctx.map(PollContext::from_raw),
                adaptive_moderation: f.dim.map(|d| d != 0),
                ctxn: f.ctxn,
                reported: reported(f),
                owner,
            })
        }
        ResourceType::Mr => {
            let Some(len) = f.mrlen else {
                return Ok(None);
            };
            let keys = match (f.rkey, f.lkey) {
                (Some(rkey), Some(lkey)) => Some(MrKeys { rkey, lkey }),
                _ => None,
            };
            Object::Mr(Mr {
                device,
                mrn: f.mrn,
                len,
                pdn: f.pdn,
                keys,
                reported: reported(f),
                owner,
            })
        }
        ResourceType::Pd => {
            let Some(users) = f.usecnt else {
                return Ok(None);
            };
            Object::Pd(Pd {
                device,
                pdn: f.pdn,
                users,
                ctxn: f.ctxn,
                local_dma_lkey: f.local_dma_lkey,
                reported: reported(f),
                owner,
            })
        }
        ResourceType::CmId => {
            let Some(state) = f.state else {
                return Ok(None);
            };
            Object::CmId(CmId {
                device,
                port: f.port,
                cm_idn: f.cm_idn,
                lqpn: f.lqpn,
                qp_type: f.res_type.map(QpType::from_raw),
                state: CmState::from_raw(state),
                ps: f.ps,
                src: f.src_addr.and_then(sockaddr::decode),
                dst: f.dst_addr.and_then(sockaddr::decode),
                reported: reported(f),
                owner,
            })
        }
        ResourceType::Ctx => Object::Ctx(Ctx {
            device,
            ctxn: f.ctxn,
            reported: reported(f),
            owner,
        }),
        ResourceType::Srq => {
            let Some(srq_type) = f.res_type else {
                return Ok(None);
            };
            Object::Srq(Srq {
                device,
                srqn: f.srqn,
                srq_type: SrqType::from_raw(srq_type),
                pdn: f.pdn,
                cqn: f.cqn,
                qp_ranges: match f.qp_list {
                    Some(list) => qp_ranges(list)?,
                    None => Vec::new(),
                },
                reported: reported(f),
                owner,
            })
        }
    };
    Ok(Some(object))
}
