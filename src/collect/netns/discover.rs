//! Finding the network namespaces of the host: every process's
//! `/proc/PID/ns/net`, deduplicated by the namespace's inode, and the named
//! ones under `/var/run/netns` (`ip netns add`), which may have no process.
//!
//! `/proc/PID/ns/net` is a link to `net:[INODE]`; reading the link needs no
//! privilege beyond what `/proc` shows (`hidepid` hides others' processes), and
//! a process that exits between the directory listing and the read is skipped.
//! Only processes of restop's PID namespace are listed: from a container's PID
//! namespace, other pods' namespaces cannot be found (`NetnsScan::pid_ns_is_host`).

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// `PROC_PID_INIT_INO` (`include/linux/proc_ns.h`): the inode of the initial PID
/// namespace, the same on every boot.
const INIT_PID_NS_INODE: u64 = 0xEFFF_FFFC;

/// One network namespace other than restop's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetnsEntry {
    /// The inode of `/proc/<pid>/ns/net`: the namespace's identity.
    pub inode: u64,
    /// Names under `/var/run/netns`, sorted.
    pub names: Vec<String>,
    /// Processes in it, lowest pid first (at most [`MAX_PIDS`] are kept).
    pub pids: Vec<u32>,
    /// The file to enter it by: its `/var/run/netns` file if it has a name (it
    /// outlives any process), else its first process's `ns/net`.
    pub path: PathBuf,
}

/// At most this many pids are kept per namespace: enough to enter it when the
/// first has exited, and to name its owner.
pub(crate) const MAX_PIDS: usize = 4;

/// What one look at `/proc` and `/var/run/netns` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetnsScan {
    /// restop's own namespace, when its link could be read.
    pub own: Option<u64>,
    /// Every other namespace, by inode.
    pub others: Vec<NetnsEntry>,
    /// Whether restop runs in the initial PID namespace (`None`: unknown).
    pub pid_ns_is_host: Option<bool>,
    /// Processes whose `ns/net` could not be read for lack of permission
    /// (another user's, without CAP_SYS_PTRACE): their namespaces are unknown.
    pub unreadable: usize,
}

/// Scans `proc_root` (restop's process is `own_pid`) and the `run_netns`
/// folders (`/run/netns`, and `/var/run/netns` where it is not the same).
pub fn scan(proc_root: &Path, own_pid: u32, run_netns: &[PathBuf]) -> NetnsScan {
    let own = netns_inode(&proc_root.join(own_pid.to_string()).join("ns/net"));
    let pid_ns_is_host = std::fs::read_link(proc_root.join(own_pid.to_string()).join("ns/pid"))
        .ok()
        .and_then(|l| link_inode(&l.to_string_lossy(), "pid"))
        .map(|inode| inode == INIT_PID_NS_INODE);
    let mut found: BTreeMap<u64, NetnsEntry> = BTreeMap::new();
    let mut unreadable = 0;
    let mut pids: Vec<u32> = std::fs::read_dir(proc_root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    pids.sort_unstable();
    for pid in pids {
        let path = proc_root.join(pid.to_string()).join("ns/net");
        let inode = match std::fs::read_link(&path) {
            Ok(target) => link_inode(&target.to_string_lossy(), "net"),
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                unreadable += 1;
                continue;
            }
            Err(_) => std::fs::metadata(&path).ok().map(|m| m.ino()),
        };
        let Some(inode) = inode else {
            continue;
        };
        if Some(inode) == own {
            continue;
        }
        let entry = found.entry(inode).or_insert_with(|| NetnsEntry {
            inode,
            names: Vec::new(),
            pids: Vec::new(),
            path: path.clone(),
        });
        if entry.pids.len() < MAX_PIDS {
            entry.pids.push(pid);
        }
    }
    let mut names: Vec<(String, PathBuf)> = run_netns
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten())
        .filter_map(|e| Some((e.file_name().to_str()?.to_string(), e.path())))
        .collect();
    names.sort();
    for (name, path) in names {
        // A bind mount of the namespace: its inode is the namespace's. A plain
        // file left behind by a deleted namespace has an inode no process has.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        let inode = meta.ino();
        if Some(inode) == own {
            continue;
        }
        let entry = found.entry(inode).or_insert_with(|| NetnsEntry {
            inode,
            names: Vec::new(),
            pids: Vec::new(),
            path: path.clone(),
        });
        if entry.names.contains(&name) {
            continue; // /var/run is /run
        }
        if entry.names.is_empty() {
            entry.path = path;
        }
        entry.names.push(name);
    }
    NetnsScan {
        own,
        others: found.into_values().collect(),
        pid_ns_is_host,
        unreadable,
    }
}

/// The inode of the namespace a `ns/net` link names: from the link's text
/// (`net:[4026531840]`), else from the namespace file itself.
pub(crate) fn netns_inode(link: &Path) -> Option<u64> {
    match std::fs::read_link(link) {
        Ok(target) => link_inode(&target.to_string_lossy(), "net"),
        Err(_) => std::fs::metadata(link).ok().map(|m| m.ino()),
    }
}

/// `KIND:[INODE]` → INODE.
fn link_inode(text: &str, kind: &str) -> Option<u64> {
    text.strip_prefix(kind)?
        .strip_prefix(":[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn proc_with(dir: &Path, pid: u32, net: &str) {
        let ns = dir.join(pid.to_string()).join("ns");
        std::fs::create_dir_all(&ns).unwrap();
        symlink(net, ns.join("net")).unwrap();
    }

    #[test]
    fn namespaces_are_deduplicated_by_inode_and_named_ones_added() {
        let tmp = tempfile::tempdir().unwrap();
        let proc_root = tmp.path().join("proc");
        let run = tmp.path().join("netns");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(run.join("ns1"), b"").unwrap();
        std::fs::write(run.join("idle"), b"").unwrap();
        let ns1 = std::fs::metadata(run.join("ns1")).unwrap().ino();
        proc_with(&proc_root, 1, "net:[100]");
        proc_with(&proc_root, 7, "net:[100]"); // restop
        symlink("pid:[4026531836]", proc_root.join("7/ns/pid")).unwrap();
        proc_with(&proc_root, 30, "net:[200]");
        proc_with(&proc_root, 12, "net:[200]");
        proc_with(&proc_root, 40, &format!("net:[{ns1}]"));
        proc_with(&proc_root, 41, "garbage");
        std::fs::create_dir_all(proc_root.join("self")).unwrap();
        let scan = scan(&proc_root, 7, &[run.clone(), run.clone()]);
        assert_eq!(scan.own, Some(100));
        assert_eq!(scan.pid_ns_is_host, Some(true));
        let by_inode: BTreeMap<u64, &NetnsEntry> =
            scan.others.iter().map(|e| (e.inode, e)).collect();
        assert_eq!(by_inode.len(), 3, "{:?}", scan.others);
        assert_eq!(by_inode[&200].pids, [12, 30]);
        assert_eq!(by_inode[&200].path, proc_root.join("12/ns/net"));
        assert_eq!(by_inode[&ns1].names, ["ns1"]);
        assert_eq!(by_inode[&ns1].pids, [40]);
        assert_eq!(by_inode[&ns1].path, run.join("ns1"));
        let idle = std::fs::metadata(run.join("idle")).unwrap().ino();
        assert!(by_inode[&idle].pids.is_empty());
    }

    #[test]
    fn a_container_pid_namespace_is_told_and_missing_dirs_are_empty() {
        let tmp = tempfile::tempdir().unwrap();
        proc_with(tmp.path(), 1, "net:[5]");
        symlink("pid:[4026532999]", tmp.path().join("1/ns/pid")).unwrap();
        let found = scan(tmp.path(), 1, &[tmp.path().join("none")]);
        assert_eq!(found.pid_ns_is_host, Some(false));
        assert!(found.others.is_empty());
        let nothing = scan(&tmp.path().join("gone"), 1, &[]);
        assert_eq!(nothing, NetnsScan::default());
    }
}
