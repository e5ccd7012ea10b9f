//! The labels that name a device in every device-scoped series: `device`
//! and, for a device of another network namespace (exclusive netns mode),
//! `netns`.
//!
//! A device's identity is (namespace, name) (`model/netns.rs`), so every
//! series with a `device` label carries `netns` by the same rule: the
//! namespace's label (`DeviceNetns::label`) on a device of another
//! namespace, no label at all on a device of restop's own namespace (its
//! series stay what they were; an empty label is an absent one to
//! Prometheus). Every device-scoped family is written through
//! `Writer::device_sample` with one of these, which places both labels; the
//! writer's other methods refuse a family with a `device` label (debug
//! builds) and the catalog's test wants `netns` wherever `device` is, so a
//! new family cannot leave the namespace out.

use crate::model::{Device, Snapshot};
use std::collections::HashMap;

/// `device` and `netns` of one device's series.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct DeviceLabels<'a> {
    pub(crate) device: &'a str,
    pub(crate) netns: Option<String>,
}

impl<'a> DeviceLabels<'a> {
    pub(crate) fn of(d: &'a Device) -> DeviceLabels<'a> {
        DeviceLabels {
            device: &d.name,
            netns: d.netns.as_ref().map(|ns| ns.label()),
        }
    }

    /// The empty `device` of a series about no device (a host's problem).
    pub(crate) fn no_device() -> DeviceLabels<'static> {
        DeviceLabels {
            device: "",
            netns: None,
        }
    }

    pub(crate) fn netns(&self) -> Option<&str> {
        self.netns.as_deref()
    }
}

/// The namespace of each device of a snapshot by name, for readings that
/// name a device only by name (problems, ERROR-QP ages). Kernel device
/// names are unique on a host today; should they become unique per
/// namespace only, those readings would need the namespace themselves.
#[derive(Default)]
pub(crate) struct NetnsByName<'a>(HashMap<&'a str, String>);

impl<'a> NetnsByName<'a> {
    /// Only the devices of other namespaces: the rest have no `netns`.
    pub(crate) fn of(snapshot: &'a Snapshot) -> NetnsByName<'a> {
        NetnsByName(
            snapshot
                .devices
                .iter()
                .filter_map(|d| Some((d.name.as_str(), d.netns.as_ref()?.label())))
                .collect(),
        )
    }

    /// The labels of the device called `name` (`""`: no device).
    pub(crate) fn labels<'n>(&self, name: &'n str) -> DeviceLabels<'n> {
        DeviceLabels {
            device: name,
            netns: self.0.get(name).cloned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DeviceNetns;

    #[test]
    fn a_device_of_another_namespace_is_named_with_it_and_ours_without() {
        let ours = Device::new(0, "mlx5_0");
        let mut theirs = Device::new(1, "mlx5_1");
        theirs.netns = Some(DeviceNetns {
            inode: 4026532300,
            names: Vec::new(),
            owner: None,
        });
        assert_eq!(DeviceLabels::of(&ours).netns(), None);
        assert_eq!(DeviceLabels::of(&theirs).netns(), Some("net:[4026532300]"));
        let mut snapshot = Snapshot::empty(crate::model::SourceKind::Demo, crate::model::UnixMs(0));
        snapshot.devices = vec![ours, theirs];
        let by_name = NetnsByName::of(&snapshot);
        assert_eq!(by_name.labels("mlx5_1").netns(), Some("net:[4026532300]"));
        assert_eq!(by_name.labels("mlx5_0").netns(), None);
        assert_eq!(by_name.labels("").netns(), None);
    }
}
