//! The netdev of every RoCE port, read on every collection next to the
//! port's RDMA counters: `/sys/class/net/<netdev>/statistics/` and
//! `carrier_changes` (`sysfs.rs`), the standard ethtool groups over ethtool
//! netlink and the driver's named statistics (`collect::ethtool`).
//!
//! Everything here is unprivileged. What a netdev or its driver does not
//! offer (no pause statistics, no `ethtool -S`, a netdev in another network
//! namespace) is a note on the netdev ("not available"), never a warning:
//! a host of a hundred VFs without them must not fill the warnings every
//! tick. A driver that refused once as unsupported is not asked again
//! until its netdev goes away.

pub(crate) mod sysfs;

use crate::collect::ethtool::ioctl::DriverStats;
use crate::collect::ethtool::netlink::{EthtoolError, EthtoolNetlink};
use crate::model::counters::netdev::{NetdevCounters, NetdevRead};
use crate::nldev::SocketTransport;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long ethtool netlink may take to answer one request.
const ETHTOOL_TIMEOUT: Duration = Duration::from_secs(1);

/// A netdev, told apart from a new one of the same name.
type NetdevKey = (String, Option<u32>);

/// Which source a netdev's driver does not offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Pause,
    Groups,
    Driver,
}

/// Reads netdevs and keeps each one's previous read.
pub(crate) struct NetdevReader {
    sys_root: PathBuf,
    previous: HashMap<NetdevKey, NetdevRead>,
    /// Whether the kernel's ethtool interfaces are read (they belong to the
    /// host whose `/sys` this is: only with the real `/sys`).
    ethtool: bool,
    netlink: Option<EthtoolNetlink<SocketTransport>>,
    /// Why ethtool netlink cannot be used at all, once known.
    netlink_unavailable: Option<String>,
    driver: DriverStats,
    /// (netdev, source) the driver refused as unsupported, with the words.
    unsupported: HashMap<(String, Kind), String>,
}

impl std::fmt::Debug for NetdevReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetdevReader")
            .field("sys_root", &self.sys_root)
            .field("ethtool", &self.ethtool)
            .field("netdevs", &self.previous.len())
            .finish()
    }
}

impl NetdevReader {
    /// A reader of the host under `sys_root`; the kernel's ethtool
    /// statistics are read only when that is the real `/sys` (a test's
    /// fake tree gets the files alone).
    pub(crate) fn new(sys_root: PathBuf) -> NetdevReader {
        let ethtool = sys_root == Path::new("/sys");
        NetdevReader::with_ethtool(sys_root, ethtool)
    }

    pub(crate) fn with_ethtool(sys_root: PathBuf, ethtool: bool) -> NetdevReader {
        NetdevReader {
            sys_root,
            previous: HashMap::new(),
            ethtool,
            netlink: None,
            netlink_unavailable: None,
            driver: DriverStats::default(),
            unsupported: HashMap::new(),
        }
    }

    /// The netdev of `device`'s port `port`: the one nldev named, else the
    /// one sysfs's GID table names (kernels without `NDEV_*` on ports).
    pub(crate) fn netdev_of(&self, device: &str, port: u32, named: Option<&str>) -> Option<String> {
        named
            .map(str::to_string)
            .or_else(|| sysfs::gid_netdev(&self.sys_root, device, port))
    }

    /// One read of `name`.
    pub(crate) fn read(&mut self, name: &str, ifindex: Option<u32>) -> NetdevCounters {
        let mut out = NetdevCounters {
            name: name.to_string(),
            ifindex,
            ..NetdevCounters::default()
        };
        let mut read = NetdevRead {
            at_ms: crate::model::time::now(),
            ..NetdevRead::default()
        };
        let files = sysfs::read_netdev(&self.sys_root, name);
        if !files.present {
            out.notes.push(format!(
                "netdev {name}: not available (not in {}; another network namespace?)",
                self.sys_root.join("class/net").display()
            ));
            return out;
        }
        read.stats = files.stats;
        read.carrier_changes = files.carrier_changes;
        out.notes.extend(files.problems);
        if self.ethtool {
            self.read_ethtool(name, &mut read, &mut out.notes);
        }
        let key = (name.to_string(), ifindex);
        out.previous = self.previous.insert(key, read.clone());
        out.read = read;
        out
    }

    fn read_ethtool(&mut self, name: &str, read: &mut NetdevRead, notes: &mut Vec<String>) {
        if self.netlink.is_none() && self.netlink_unavailable.is_none() {
            match SocketTransport::open_generic(ETHTOOL_TIMEOUT) {
                Ok(t) => self.netlink = Some(EthtoolNetlink::new(t)),
                Err(e) => self.netlink_unavailable = Some(format!("no generic netlink: {e}")),
            }
        }
        for kind in [Kind::Pause, Kind::Groups, Kind::Driver] {
            if let Some(why) = self.unsupported.get(&(name.to_string(), kind)) {
                notes.push(why.clone());
                continue;
            }
            let result = match kind {
                Kind::Driver => self.driver.read(name).map_err(|e| match e.raw_os_error() {
                    Some(errno) => EthtoolError::Kernel(errno),
                    None => EthtoolError::Other(e.to_string()),
                }),
                Kind::Pause | Kind::Groups => {
                    if let Some(why) = &self.netlink_unavailable {
                        notes.push(format!(
                            "standard ethtool statistics: not available ({why})"
                        ));
                        continue;
                    }
                    let Some(nl) = self.netlink.as_mut() else {
                        continue;
                    };
                    if kind == Kind::Pause {
                        nl.pause(name)
                    } else {
                        nl.stats(name)
                    }
                }
            };
            let what = match kind {
                Kind::Pause => "pause statistics",
                Kind::Groups => "standard statistics (eth-mac, eth-ctrl, rmon)",
                Kind::Driver => "driver statistics (ethtool -S)",
            };
            match result {
                Ok(values) => match kind {
                    Kind::Driver => read.driver = values,
                    _ => read.standard.extend(values),
                },
                Err(EthtoolError::NoFamily) => {
                    let why = "the kernel has no ethtool netlink".to_string();
                    notes.push(format!("{what}: not available ({why})"));
                    self.netlink_unavailable = Some(why);
                }
                Err(EthtoolError::Kernel(errno)) if is_unsupported(errno) => {
                    let why = format!(
                        "{what} of {name}: not available ({})",
                        nix::errno::Errno::from_raw(errno).desc()
                    );
                    notes.push(why.clone());
                    self.unsupported.insert((name.to_string(), kind), why);
                }
                Err(e) => notes.push(format!("{what} of {name}: {e}")),
            }
        }
    }

    /// Forgets netdevs that are no longer ports' (after a collection).
    pub(crate) fn retain(&mut self, seen: &HashSet<String>) {
        self.previous.retain(|(name, _), _| seen.contains(name));
        self.unsupported.retain(|(name, _), _| seen.contains(name));
        let keep: Vec<&str> = seen.iter().map(String::as_str).collect();
        self.driver.retain(&keep);
    }
}

/// The driver has no such statistics (EOPNOTSUPP), or restop's kernel has
/// no such request (EINVAL for an unknown command or group, on older kernels).
fn is_unsupported(errno: i32) -> bool {
    use nix::errno::Errno;
    [
        Errno::EOPNOTSUPP,
        Errno::ENOTSUP,
        Errno::EINVAL,
        Errno::ENOENT,
    ]
    .iter()
    .any(|e| *e as i32 == errno)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree() -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        let stats = tmp.path().join("class/net/eth0/statistics");
        fs::create_dir_all(&stats).unwrap();
        fs::write(stats.join("rx_dropped"), "3\n").unwrap();
        fs::write(stats.join("rx_bytes"), "1000\n").unwrap();
        fs::write(tmp.path().join("class/net/eth0/carrier_changes"), "2\n").unwrap();
        tmp
    }

    #[test]
    fn a_netdev_is_read_from_sysfs_and_keeps_its_previous_read() {
        let tmp = tree();
        let mut r = NetdevReader::with_ethtool(tmp.path().to_path_buf(), false);
        let first = r.read("eth0", Some(2));
        assert_eq!(first.read.stats.get("rx_dropped"), Some(&3));
        assert_eq!(first.read.carrier_changes, Some(2));
        assert!(first.previous.is_none());
        assert!(first.notes.is_empty(), "{:?}", first.notes);
        fs::write(tmp.path().join("class/net/eth0/carrier_changes"), "4\n").unwrap();
        let second = r.read("eth0", Some(2));
        assert_eq!(second.previous.as_ref().unwrap().carrier_changes, Some(2));
        assert_eq!(second.read.carrier_changes, Some(4));
        // Gone from the ports: forgotten.
        r.retain(&HashSet::new());
        assert!(r.read("eth0", Some(2)).previous.is_none());
    }

    #[test]
    fn a_missing_netdev_is_not_available_not_an_error() {
        let tmp = tree();
        let mut r = NetdevReader::with_ethtool(tmp.path().to_path_buf(), false);
        let c = r.read("eth9", None);
        assert!(c.read.stats.is_empty());
        assert_eq!(c.notes.len(), 1);
        assert!(c.notes[0].contains("not available"), "{:?}", c.notes);
    }

    #[test]
    fn only_the_real_sysfs_gets_ethtool_reads() {
        assert!(NetdevReader::new(PathBuf::from("/sys")).ethtool);
        assert!(!NetdevReader::new(PathBuf::from("/tmp/fake")).ethtool);
    }
}
