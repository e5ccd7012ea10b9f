//! A netdev's files under `/sys/class/net/<netdev>/`: `statistics/` (the
//! kernel's `rtnl_link_stats64`, one decimal file per counter) and
//! `carrier_changes`; and a RoCE port's netdev from its GID table
//! (`/sys/class/infiniband/<dev>/ports/<p>/gid_attrs/ndevs/0`) for kernels
//! whose `PORT_GET` names none.

use crate::collect::counters::sysfs::{port_dir, read_counter_dir};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// What a netdev's sysfs directory gave.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct NetdevFiles {
    /// Whether `/sys/class/net/<netdev>` exists (the netdev is in this
    /// network namespace).
    pub present: bool,
    pub stats: BTreeMap<String, u64>,
    pub carrier_changes: Option<u64>,
    /// Files that exist but could not be read, with why.
    pub problems: Vec<String>,
}

pub(crate) fn read_netdev(sys_root: &Path, netdev: &str) -> NetdevFiles {
    // A name with a slash or a dot-dot would leave class/net.
    if netdev.is_empty() || netdev.contains('/') || netdev == "." || netdev == ".." {
        return NetdevFiles::default();
    }
    let dir = sys_root.join("class/net").join(netdev);
    if !dir.is_dir() {
        return NetdevFiles::default();
    }
    let stats = read_counter_dir(&dir.join("statistics"));
    let mut out = NetdevFiles {
        present: true,
        stats: stats.values,
        carrier_changes: None,
        problems: stats.problems,
    };
    let file = dir.join("carrier_changes");
    match fs::read_to_string(&file) {
        Ok(text) => match text.trim().parse() {
            Ok(v) => out.carrier_changes = Some(v),
            Err(_) => out.problems.push(format!(
                "{}: not a counter value: {:?}",
                file.display(),
                text.trim()
            )),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => out.problems.push(format!("{}: {e}", file.display())),
    }
    out
}

/// The netdev of GID 0 of a port, when sysfs names one.
pub(crate) fn gid_netdev(sys_root: &Path, device: &str, port: u32) -> Option<String> {
    let text =
        fs::read_to_string(port_dir(sys_root, device, port).join("gid_attrs/ndevs/0")).ok()?;
    let name = text.trim();
    (!name.is_empty() && !name.contains('/')).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_and_carrier_changes_are_read_and_bad_files_named() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("class/net/eth0");
        fs::create_dir_all(dir.join("statistics")).unwrap();
        fs::write(dir.join("statistics/rx_dropped"), "7\n").unwrap();
        fs::write(dir.join("statistics/tx_errors"), "junk\n").unwrap();
        fs::write(dir.join("carrier_changes"), "12\n").unwrap();
        let got = read_netdev(tmp.path(), "eth0");
        assert!(got.present);
        assert_eq!(got.stats.get("rx_dropped"), Some(&7));
        assert!(!got.stats.contains_key("tx_errors"));
        assert_eq!(got.carrier_changes, Some(12));
        assert_eq!(got.problems.len(), 1);
        assert_eq!(read_netdev(tmp.path(), "eth1"), NetdevFiles::default());
        assert_eq!(read_netdev(tmp.path(), "../net"), NetdevFiles::default());
    }

    #[test]
    fn the_gid_table_names_the_ports_netdev() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = port_dir(tmp.path(), "rxe0", 1).join("gid_attrs/ndevs");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("0"), "veth0\n").unwrap();
        assert_eq!(gid_netdev(tmp.path(), "rxe0", 1).as_deref(), Some("veth0"));
        assert_eq!(gid_netdev(tmp.path(), "rxe0", 2), None);
    }
}
