//! The ERROR-QP list: every kept QP in ERR or SQE, with its owner's name.

use super::consumers::owner_label;
use super::filter::Filter;
use super::objects::{Object, Qp};
use super::owner::OwnerKey;
use super::snapshot::Snapshot;

#[derive(Clone, Debug, PartialEq)]
pub struct ErrorQp {
    pub qp: Qp,
    pub device: String,
    /// Owner label as in the consumers table.
    pub owner_name: String,
    /// The owning process's comm, when it is a process with one.
    pub comm: Option<String>,
}

impl ErrorQp {
    pub fn pid(&self) -> Option<u32> {
        self.qp.owner.pid()
    }

    pub fn owner(&self) -> &OwnerKey {
        &self.qp.owner
    }
}

/// QPs in ERR/SQE, ordered by device, port, lqpn.
pub fn error_qps(snapshot: &Snapshot, filter: &Filter) -> Vec<ErrorQp> {
    let mut out: Vec<ErrorQp> = snapshot
        .objects
        .iter()
        .filter_map(|o| match o {
            Object::Qp(qp) if qp.state.is_error() => Some(qp),
            _ => None,
        })
        .filter(|qp| filter.state.is_none_or(|s| s == qp.state))
        .filter(|qp| filter.pid.is_none_or(|p| qp.owner.pid() == Some(p)))
        .map(|qp| {
            let process = match &qp.owner {
                OwnerKey::Process(key) => snapshot.process(key),
                _ => None,
            };
            ErrorQp {
                device: snapshot.device_name(qp.device),
                owner_name: owner_label(&qp.owner, process),
                comm: process.map(|p| p.comm.clone()).filter(|c| !c.is_empty()),
                qp: qp.clone(),
            }
        })
        .filter(|e| filter.shows_device(&e.device))
        .filter(|e| {
            let pid = e.pid().map(|p| p.to_string()).unwrap_or_default();
            filter.text_matches([e.owner_name.as_str(), e.device.as_str(), pid.as_str()])
        })
        .collect();
    out.sort_by(|a, b| {
        a.qp.device
            .cmp(&b.qp.device)
            .then(a.qp.port.cmp(&b.qp.port))
            .then(a.qp.lqpn.cmp(&b.qp.lqpn))
    });
    out
}
