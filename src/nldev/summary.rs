//! `RES_GET` replies: per-device counts (and limits) per resource type.

use super::attr::{TlvError, attrs};
use super::consts::attr as a;
use crate::model::{LimitSource, ResourceType, Usage, UsageEntry};

/// One device's resource summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceSummary {
    pub index: u32,
    pub name: String,
    pub usage: Usage,
}

/// A summary message; `None` when it names no device. Entries with names
/// restop does not know (newer kernels) are ignored; `RES_SUMMARY_ENTRY_MAX`
/// becomes the limit when present and non-zero.
pub(crate) fn parse_summary(payload: &[u8]) -> Result<Option<DeviceSummary>, TlvError> {
    let (mut index, mut name) = (None, String::new());
    let mut usage = Usage::default();
    for item in attrs(payload) {
        let at = item?;
        match at.kind {
            a::DEV_INDEX => index = Some(at.u32()?),
            a::DEV_NAME => name = at.string(),
            a::RES_SUMMARY => {
                for entry in at.nested() {
                    let entry = entry?;
                    if entry.kind != a::RES_SUMMARY_ENTRY {
                        continue;
                    }
                    if let Some((t, e)) = parse_entry(entry.payload)? {
                        usage.set(t, e);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(index.map(|index| DeviceSummary { index, name, usage }))
}

fn parse_entry(payload: &[u8]) -> Result<Option<(ResourceType, UsageEntry)>, TlvError> {
    let (mut name, mut current, mut max) = (None, None, None);
    for item in attrs(payload) {
        let at = item?;
        match at.kind {
            a::RES_SUMMARY_ENTRY_NAME => name = Some(at.str_bytes()),
            a::RES_SUMMARY_ENTRY_CURR => current = Some(at.u64()?),
            a::RES_SUMMARY_ENTRY_MAX => max = Some(at.u64()?).filter(|&m| m != 0),
            _ => {}
        }
    }
    // Exact kernel spelling; no allocation per entry.
    let t = name.and_then(|n| {
        ResourceType::ALL
            .into_iter()
            .find(|t| t.name().as_bytes() == n)
    });
    let (Some(t), Some(current)) = (t, current) else {
        return Ok(None);
    };
    Ok(Some((
        t,
        UsageEntry {
            current,
            max,
            max_source: max.map(|_| LimitSource::Kernel),
        },
    )))
}
