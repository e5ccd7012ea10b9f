//! Parsers for the values whose text names a model value, shared by the
//! command line and the config file (durations are in `duration`).

use crate::model::consumers::SortKey;
use crate::model::{QpState, ResourceType};

pub fn parse_resource_type(text: &str) -> Result<ResourceType, String> {
    ResourceType::from_name(text).ok_or_else(|| {
        format!("unknown resource type {text:?}: expected one of qp, cq, mr, pd, cm_id, ctx, srq")
    })
}

pub fn parse_qp_state(text: &str) -> Result<QpState, String> {
    QpState::from_name(text).ok_or_else(|| {
        format!("unknown QP state {text:?}: expected one of RESET, INIT, RTR, RTS, SQD, SQE, ERR")
    })
}

pub fn parse_sort_key(text: &str) -> Result<SortKey, String> {
    SortKey::from_name(text).ok_or_else(|| {
        format!(
            "unknown sort key {text:?}: expected a type (qp, cq, mr, pd, cm_id, ctx, srq), \
             mr_bytes, err, pid, name, user or container"
        )
    })
}
