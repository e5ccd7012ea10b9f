//! The attributes of one resource entry, gathered in a single pass.
//!
//! Every `RES_*_ENTRY` nest is walked once into this struct of borrowed,
//! optional fields; [`super::objects`] then builds the typed record. Unknown
//! attributes, PAD and driver tables are skipped; a repeated attribute keeps
//! its last value.

use super::attr::{Attr, TlvError, attrs};
use super::consts::attr as a;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntryFields<'a> {
    pub port: Option<u32>,
    pub lqpn: Option<u32>,
    pub rqpn: Option<u32>,
    pub rq_psn: Option<u32>,
    pub sq_psn: Option<u32>,
    pub res_type: Option<u8>,
    pub state: Option<u8>,
    pub pid: Option<u32>,
    pub kern_name: Option<&'a [u8]>,
    pub ps: Option<u32>,
    pub src_addr: Option<&'a [u8]>,
    pub dst_addr: Option<&'a [u8]>,
    pub cqe: Option<u32>,
    pub usecnt: Option<u64>,
    pub poll_ctx: Option<u8>,
    pub dim: Option<u8>,
    pub rkey: Option<u32>,
    pub lkey: Option<u32>,
    pub mrlen: Option<u64>,
    pub local_dma_lkey: Option<u32>,
    pub pdn: Option<u32>,
    pub cqn: Option<u32>,
    pub mrn: Option<u32>,
    pub cm_idn: Option<u32>,
    pub ctxn: Option<u32>,
    pub srqn: Option<u32>,
    /// The SRQ's `RES_QP` nest (QP numbers and ranges), unparsed.
    pub qp_list: Option<&'a [u8]>,
}

impl<'a> EntryFields<'a> {
    /// Walks one entry nest's payload.
    pub fn parse(payload: &'a [u8]) -> Result<EntryFields<'a>, TlvError> {
        let mut f = EntryFields::default();
        for item in attrs(payload) {
            let at: Attr<'a> = item?;
            match at.kind {
                a::PORT_INDEX => f.port = Some(at.u32()?),
                a::RES_LQPN => f.lqpn = Some(at.u32()?),
                a::RES_RQPN => f.rqpn = Some(at.u32()?),
                a::RES_RQ_PSN => f.rq_psn = Some(at.u32()?),
                a::RES_SQ_PSN => f.sq_psn = Some(at.u32()?),
                a::RES_TYPE => f.res_type = Some(at.u8()?),
                a::RES_STATE => f.state = Some(at.u8()?),
                // The kernel omits PID 0; treat a stray 0 the same way.
                a::RES_PID => f.pid = Some(at.u32()?).filter(|&p| p != 0),
                a::RES_KERN_NAME => f.kern_name = Some(at.str_bytes()),
                a::RES_PS => f.ps = Some(at.u32()?),
                a::RES_SRC_ADDR => f.src_addr = Some(at.payload),
                a::RES_DST_ADDR => f.dst_addr = Some(at.payload),
                a::RES_CQE => f.cqe = Some(at.u32()?),
                a::RES_USECNT => f.usecnt = Some(at.u64()?),
                a::RES_POLL_CTX => f.poll_ctx = Some(at.u8()?),
                a::DEV_DIM => f.dim = Some(at.u8()?),
                a::RES_RKEY => f.rkey = Some(at.u32()?),
                a::RES_LKEY => f.lkey = Some(at.u32()?),
                a::RES_MRLEN => f.mrlen = Some(at.u64()?),
                a::RES_LOCAL_DMA_LKEY => f.local_dma_lkey = Some(at.u32()?),
                a::RES_PDN => f.pdn = Some(at.u32()?),
                a::RES_CQN => f.cqn = Some(at.u32()?),
                a::RES_MRN => f.mrn = Some(at.u32()?),
                a::RES_CM_IDN => f.cm_idn = Some(at.u32()?),
                a::RES_CTXN => f.ctxn = Some(at.u32()?),
                a::RES_SRQN => f.srqn = Some(at.u32()?),
                a::RES_QP => f.qp_list = Some(at.payload),
                _ => {} // PAD, driver tables, attributes newer than restop
            }
        }
        Ok(f)
    }
}

/// The QPs attached to an SRQ, as inclusive ranges: each `RES_QP_ENTRY`
/// holds either one `RES_LQPN` or a `MIN_RANGE`/`MAX_RANGE` pair. Entries
/// with neither (or an inverted range) are skipped.
pub fn qp_ranges(list: &[u8]) -> Result<Vec<(u32, u32)>, TlvError> {
    let mut ranges = Vec::new();
    for item in attrs(list) {
        let entry = item?;
        if entry.kind != a::RES_QP_ENTRY {
            continue;
        }
        let (mut lqpn, mut min, mut max) = (None, None, None);
        for inner in entry.nested() {
            let at = inner?;
            match at.kind {
                a::RES_LQPN => lqpn = Some(at.u32()?),
                a::MIN_RANGE => min = Some(at.u32()?),
                a::MAX_RANGE => max = Some(at.u32()?),
                _ => {}
            }
        }
        match (min, max, lqpn) {
            (Some(lo), Some(hi), _) if lo <= hi => ranges.push((lo, hi)),
            (None, None, Some(n)) => ranges.push((n, n)),
            _ => {}
        }
    }
    Ok(ranges)
}
