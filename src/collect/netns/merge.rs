//! Putting one namespace's snapshot into the host's: its devices (tagged with
//! the namespace), their tallies, kept objects and owning processes, and its
//! warnings, prefixed with the namespace.
//!
//! Nothing is counted twice: a device the host's snapshot already has (shared
//! mode, or a device that moved while it was being read) is left out with
//! everything that names it, and a process already listed keeps one entry.

use crate::model::{DeviceNetns, Snapshot, Warning, WarningKind};
use std::collections::HashSet;

/// Adds `theirs`, read in the namespace `netns`, to `host`.
pub(crate) fn merge_namespace(host: &mut Snapshot, theirs: Snapshot, netns: &DeviceNetns) {
    let known: HashSet<u32> = host.devices.iter().map(|d| d.index).collect();
    let mut added = HashSet::new();
    for mut device in theirs.devices {
        if known.contains(&device.index) {
            continue;
        }
        device.netns = Some(netns.clone());
        added.insert(device.index);
        host.devices.push(device);
    }
    host.tallies.extend(
        theirs
            .tallies
            .into_iter()
            .filter(|t| added.contains(&t.device)),
    );
    host.objects.extend(
        theirs
            .objects
            .into_iter()
            .filter(|o| added.contains(&o.device())),
    );
    let listed: HashSet<_> = host.processes.iter().map(|p| p.key).collect();
    let named: HashSet<_> = host.tallies.iter().filter_map(|t| t.owner.pid()).collect();
    host.processes.extend(
        theirs
            .processes
            .into_iter()
            .filter(|p| !listed.contains(&p.key) && named.contains(&p.key.pid)),
    );
    for field in theirs.meta.hidden_fields {
        if !host.meta.hidden_fields.contains(&field) {
            host.meta.hidden_fields.push(field);
        }
    }
    let label = netns.label();
    host.meta.warnings.extend(
        theirs
            .meta
            .warnings
            .into_iter()
            // Its own exclusive-mode notice says what restop already does.
            .filter(|w| w.kind != WarningKind::Netns)
            .map(|w| Warning::new(w.kind, format!("netns {label}: {}", w.message))),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Device, OwnerKey, ProcessInfo, ProcessKey, SourceKind, Tally, UnixMs};

    fn snapshot(devices: &[(u32, &str)], owner_pid: u32) -> Snapshot {
        let mut s = Snapshot::empty(SourceKind::Live, UnixMs(0));
        for (index, name) in devices {
            s.devices.push(Device::new(*index, *name));
            let key = ProcessKey {
                pid: owner_pid,
                start_time: 1,
            };
            s.tallies.push(Tally::new(OwnerKey::Process(key), *index));
        }
        s.processes.push(ProcessInfo::unknown(ProcessKey {
            pid: owner_pid,
            start_time: 1,
        }));
        s
    }

    #[test]
    fn a_device_the_host_already_has_is_not_counted_twice() {
        let netns = DeviceNetns {
            inode: 9,
            names: vec!["ns1".into()],
            owner: None,
        };
        let mut host = snapshot(&[(0, "mlx5_0"), (1, "mlx5_1")], 10);
        let mut theirs = snapshot(&[(1, "mlx5_1"), (5, "mlx5_5")], 20);
        theirs.meta.warnings.push(Warning::new(
            WarningKind::DumpFailed,
            "qp dump of mlx5_5 failed",
        ));
        theirs
            .meta
            .warnings
            .push(Warning::new(WarningKind::Netns, "exclusive"));
        merge_namespace(&mut host, theirs, &netns);
        let names: Vec<_> = host.devices.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["mlx5_0", "mlx5_1", "mlx5_5"]);
        assert_eq!(host.devices[1].netns, None);
        assert_eq!(host.devices[2].netns.as_ref(), Some(&netns));
        assert_eq!(host.tallies.len(), 3);
        assert_eq!(host.processes.len(), 2);
        assert_eq!(host.meta.warnings.len(), 1);
        assert_eq!(
            host.meta.warnings[0].message,
            "netns ns1: qp dump of mlx5_5 failed"
        );
    }
}
