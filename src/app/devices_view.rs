//! The device pane's rows: devices in PF-then-VF order with their usage.

use crate::model::device::grouped_order;
use crate::model::filter::Filter;
use crate::model::{PortState, ResourceType, Snapshot, UsageEntry};

/// Where a device sits in the PF/VF tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tree {
    /// A device with no parent shown.
    Root,
    /// A VF under the PF above it; `last` when it is the PF's last VF.
    Vf { last: bool },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortSummary {
    pub index: u32,
    pub state: Option<PortState>,
    pub netdev: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeviceRow {
    pub name: String,
    pub tree: Tree,
    pub ports: Vec<PortSummary>,
    /// Usage per visible type; `None` when the kernel's summary had no entry.
    pub usage: Vec<(ResourceType, Option<UsageEntry>)>,
    /// Object dumps that failed on this device (shown as a marker).
    pub dump_errors: usize,
}

/// Rows for the device pane, honouring the device and type filters.
pub fn device_rows(snapshot: &Snapshot, filter: &Filter) -> Vec<DeviceRow> {
    let types = filter.visible_types();
    let ordered: Vec<_> = grouped_order(&snapshot.devices)
        .into_iter()
        .filter(|d| filter.shows_device(&d.name))
        .collect();
    let shown_names: Vec<&str> = ordered.iter().map(|d| d.name.as_str()).collect();
    ordered
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let under_shown_pf = d.pf.as_deref().is_some_and(|pf| shown_names.contains(&pf));
            let tree = if under_shown_pf {
                let next_is_sibling = ordered
                    .get(i + 1)
                    .is_some_and(|n| n.pf.is_some() && n.pf == d.pf);
                Tree::Vf {
                    last: !next_is_sibling,
                }
            } else {
                Tree::Root
            };
            DeviceRow {
                name: d.name.clone(),
                tree,
                ports: d
                    .ports
                    .iter()
                    .map(|p| PortSummary {
                        index: p.index,
                        state: p.state,
                        netdev: p.netdev.clone(),
                    })
                    .collect(),
                usage: types
                    .iter()
                    .map(|t| (*t, d.usage.get(*t).copied()))
                    .collect(),
                dump_errors: d.objects.errors.len(),
            }
        })
        .collect()
}
