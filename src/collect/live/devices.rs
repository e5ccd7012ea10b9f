//! Phase 1 of a collection (docs/architecture.md): the summary, device details, ports, netns
//! mode, topology and NIC counters, every collection; which devices need limits from
//! libibverbs, and putting them on the devices once read.

use super::{LiveSource, vanished};
use crate::collect::sysfs::sysfs_device;
use crate::collect::verbs::DeviceKey;
use crate::model::{Device, NetnsMode, Port, ResourceType, Warning, WarningKind};
use crate::nldev::{DeviceInfo, DeviceSummary, Transport};
use crate::source::CollectError;

/// The summary and the device list: what the rest of a collection starts from. Read
/// before restop opens any device, so no count holds an object of restop's own.
pub(super) struct Summaries {
    summaries: Vec<DeviceSummary>,
    infos: Vec<DeviceInfo>,
    warnings: Vec<Warning>,
}

/// What the device phase read.
pub(super) struct DeviceRead {
    pub devices: Vec<Device>,
    pub netns_mode: Option<NetnsMode>,
    /// `SYS_GET`'s monitor mode: whether the kernel sends device events.
    pub monitor: Option<bool>,
    pub warnings: Vec<Warning>,
}

impl<T: Transport> LiveSource<T> {
    /// Reads every device's counts and the device list. Fails only when the
    /// summary cannot be read: without it there is nothing to show.
    pub(super) fn read_summaries(&mut self) -> Result<Summaries, CollectError> {
        let mut warnings = Vec::new();
        let summaries = self.client.summaries()?;
        let infos = match self.client.devices() {
            Ok(infos) => infos,
            Err(e) => {
                warnings.push(Warning::new(
                    WarningKind::Other,
                    format!("device details unavailable: {e}"),
                ));
                Vec::new()
            }
        };
        Ok(Summaries {
            summaries,
            infos,
            warnings,
        })
    }

    /// Every device's details, ports, topology and NIC counters, and the
    /// netns mode (limits from libibverbs come later: [`Self::apply_limits`]).
    pub(super) fn read_devices(&mut self, read: Summaries) -> DeviceRead {
        let Summaries {
            summaries,
            infos,
            mut warnings,
        } = read;
        let (netns_mode, monitor) = match self.client.sys() {
            Ok(sys) => (sys.netns_mode, sys.monitor),
            Err(_) => (None, None), // older kernels have no SYS_GET; nothing to tell
        };
        // With other namespaces read (collect/netns), what could not be read is
        // its own warning.
        if netns_mode == Some(NetnsMode::Exclusive) && !self.options.other_netns {
            warnings.push(Warning::new(
                WarningKind::Netns,
                "RDMA netns mode is exclusive: only devices of this network namespace are visible",
            ));
        }
        let devices = summaries
            .iter()
            .map(|summary| self.device_of(summary, &infos, &mut warnings))
            .collect::<Vec<_>>();
        self.counters.retain(&devices);
        // Renamed or removed devices must not keep stale topology.
        self.sysfs
            .retain(|name, _| devices.iter().any(|d| &d.name == name));
        DeviceRead {
            devices,
            netns_mode,
            monitor,
            warnings,
        }
    }

    /// The limits libibverbs gave, where the kernel's summary has none, and
    /// what the library and the transport had to say.
    pub(super) fn apply_limits(&mut self, devices: &mut [Device]) {
        for device in devices.iter_mut() {
            if let Some(attrs) = self.verbs.attrs(device.index, &device.name) {
                attrs.apply_to(device);
            }
            // Still a maximum missing that verbs could give: say why (the exporter's
            // restop_device_limits_unread).
            let missing = VERBS_LIMITED
                .iter()
                .any(|t| device.usage.get(*t).is_some_and(|e| e.max.is_none()));
            device.limits_unread = if missing {
                self.verbs.unread(device.index, &device.name)
            } else {
                None
            };
        }
        let mut notes = self.verbs.take_notes();
        notes.extend(self.client.take_transport_notes());
        self.note(notes);
    }
}

/// The devices libibverbs is asked about: those whose summary lacks a kernel
/// maximum. When every device has its kernel maxima, the library is never
/// loaded: that is most of a small host's start-up otherwise.
pub(super) fn verbs_keys(read: &Summaries) -> Vec<DeviceKey> {
    read.summaries
        .iter()
        .filter(|s| lacks_kernel_max(s))
        .map(|s| DeviceKey {
            index: s.index,
            name: s.name.clone(),
            node_guid: read
                .infos
                .iter()
                .find(|i| i.index == s.index)
                .and_then(|i| i.node_guid),
        })
        .collect()
}

impl<T: Transport> LiveSource<T> {
    /// One device: its summary, details, ports and topology.
    fn device_of(
        &mut self,
        summary: &DeviceSummary,
        infos: &[DeviceInfo],
        warnings: &mut Vec<Warning>,
    ) -> Device {
        let mut device = Device::new(summary.index, summary.name.clone());
        device.usage = summary.usage.clone();
        if let Some(info) = infos.iter().find(|i| i.index == summary.index) {
            apply_info(&mut device, info);
            match self.client.ports(summary.index) {
                Ok(ports) => {
                    device.ports = ports
                        .into_iter()
                        .map(|p| Port {
                            index: p.port,
                            state: p.state,
                            phys_state: p.phys_state,
                            netdev: p.netdev,
                            netdev_index: p.netdev_index,
                            counters: None,
                        })
                        .collect();
                }
                Err(e) if e.is_no_device() => warnings.push(vanished(&device.name)),
                Err(e) => warnings.push(Warning::new(
                    WarningKind::Other,
                    format!("ports of {} unavailable: {e}", device.name),
                )),
            }
        }
        let topo = self
            .sysfs
            .entry(device.name.clone())
            .or_insert_with(|| sysfs_device(&self.options.sys_root, &summary.name));
        device.pci = topo.pci.clone();
        device.pf = topo.pf.clone();
        // Counters every collection, before any object dump can delay them.
        if self.options.counters {
            self.counters
                .read_device(&mut self.client, &mut device, warnings);
        }
        device
    }
}

/// True when the summary has no maximum for a type libibverbs knows a limit of.
fn lacks_kernel_max(summary: &DeviceSummary) -> bool {
    VERBS_LIMITED
        .iter()
        .any(|t| summary.usage.get(*t).is_none_or(|e| e.max.is_none()))
}

/// The types `ibv_query_device` gives a count limit for.
const VERBS_LIMITED: [ResourceType; 5] = [
    ResourceType::Qp,
    ResourceType::Cq,
    ResourceType::Mr,
    ResourceType::Pd,
    ResourceType::Srq,
];

fn apply_info(device: &mut Device, info: &DeviceInfo) {
    device.node_guid = info.node_guid;
    device.sys_image_guid = info.sys_image_guid;
    device.fw_version = info.fw_version.clone();
    device.node_type = info
        .node_type
        .map(|t| crate::model::device::node_type_name(t).to_string());
    device.protocol = info.protocol.clone();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LimitSource, UsageEntry};

    fn summary(max_of: &[ResourceType]) -> DeviceSummary {
        let mut s = DeviceSummary {
            index: 0,
            name: "mlx5_0".into(),
            usage: Default::default(),
        };
        for t in ResourceType::ALL {
            let max = max_of.contains(&t).then_some(1000);
            s.usage.set(
                t,
                UsageEntry {
                    current: 1,
                    max,
                    max_source: max.map(|_| LimitSource::Kernel),
                },
            );
        }
        s
    }

    #[test]
    fn libibverbs_is_needed_only_without_kernel_maxima() {
        assert!(!lacks_kernel_max(&summary(&VERBS_LIMITED)));
        assert!(lacks_kernel_max(&summary(&[ResourceType::Qp])));
        assert!(lacks_kernel_max(&summary(&[])));
    }
}
