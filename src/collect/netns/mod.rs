//! Devices in other network namespaces (the RDMA subsystem's exclusive netns
//! mode, `rdma system set netns exclusive`).
//!
//! In exclusive mode a device moved to a namespace (rdma-cni moving a VF into
//! its pod, DraNet moving a whole HCA) is visible only there: the host's
//! netlink and sysfs show nothing of it. After the host's own collection,
//! [`Namespaces::collect_into`] looks for the host's network namespaces
//! (`discover.rs`) and reads each one other than restop's own with a live
//! source of its own, whose NETLINK_RDMA socket was opened inside that
//! namespace (`nldev/netns.rs`): devices, ports, objects and owners as there,
//! counters by `STAT_GET` (that namespace's sysfs is not visible from here).
//! Each namespace's snapshot is merged into the host's (`merge.rs`), its
//! devices tagged with the namespace and whose it is ([`DeviceNetns`], the
//! owner through the same process and pod resolution as object owners).
//!
//! Entering a namespace needs CAP_SYS_ADMIN, and finding them all needs the
//! host's PID namespace: what could not be read is one `netns` warning that
//! names the namespaces, never silence. In shared mode every device is
//! visible everywhere, so no namespace is entered and nothing is counted twice.

pub mod discover;
pub(crate) mod merge;

use self::discover::{NetnsEntry, NetnsScan, scan};
use self::merge::merge_namespace;
use super::procfs::ProcReader;
use crate::model::{DeviceNetns, NetnsOwner, Snapshot, Warning, WarningKind};
use crate::source::{CollectRequest, Source};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Opens the source that reads one namespace (a live source over a socket
/// opened there; tests hand in fake kernels).
pub trait NamespaceOpener: Send {
    /// A source reading inside `entry`'s namespace; the error text is shown as a warning.
    fn open(&mut self, entry: &NetnsEntry) -> Result<Box<dyn Source>, String>;
}

/// The readers of the other namespaces, kept from one collection to the next
/// (each with its sockets, object cadence and previous counter reads).
pub(crate) struct Namespaces {
    opener: Box<dyn NamespaceOpener>,
    readers: BTreeMap<u64, Box<dyn Source>>,
    procs: ProcReader,
    proc_root: PathBuf,
    run_netns: Vec<PathBuf>,
    own_pid: u32,
}

impl Namespaces {
    pub(crate) fn new(
        opener: Box<dyn NamespaceOpener>,
        proc_root: PathBuf,
        run_netns: Vec<PathBuf>,
        own_pid: u32,
    ) -> Namespaces {
        Namespaces {
            opener,
            readers: BTreeMap::new(),
            procs: ProcReader::new(proc_root.clone()),
            proc_root,
            run_netns,
            own_pid,
        }
    }

    /// The process and pod resolution for the namespaces' owners (the
    /// kubelet's log directories, as for object owners).
    pub(crate) fn with_procs(mut self, procs: ProcReader) -> Namespaces {
        self.procs = procs;
        self
    }

    /// Reads every other namespace and merges what it holds into `host`.
    pub(crate) fn collect_into(&mut self, host: &mut Snapshot, request: &CollectRequest) {
        let found = scan(&self.proc_root, self.own_pid, &self.run_netns);
        let mut unread: Vec<String> = Vec::new();
        if found.own.is_none() {
            unread.push(format!(
                "restop's own network namespace is unknown ({} unreadable): no other namespace is read",
                self.proc_root.join(self.own_pid.to_string()).join("ns/net").display()
            ));
        }
        if found.unreadable > 0 {
            unread.push(format!(
                "the namespaces of {} processes, whose /proc/PID/ns/net this user may not read",
                found.unreadable
            ));
        }
        let found = match found.own {
            Some(_) => found,
            None => NetnsScan::default(),
        };
        self.readers
            .retain(|inode, _| found.others.iter().any(|e| e.inode == *inode));
        self.procs.begin_tick();
        for entry in &found.others {
            let netns = DeviceNetns {
                inode: entry.inode,
                names: entry.names.clone(),
                owner: self.owner_of(entry),
            };
            let reader = match self.readers.entry(entry.inode) {
                std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
                std::collections::btree_map::Entry::Vacant(v) => match self.opener.open(entry) {
                    Ok(source) => v.insert(source),
                    Err(why) => {
                        unread.push(format!("{}: {why}", netns.describe()));
                        continue;
                    }
                },
            };
            match reader.collect(request) {
                Ok(theirs) => merge_namespace(host, theirs, &netns),
                Err(e) => {
                    unread.push(format!("{}: {e}", netns.describe()));
                    // Opened again at the next collection.
                    self.readers.remove(&entry.inode);
                }
            }
        }
        let _ = self.procs.end_tick();
        if found.pid_ns_is_host == Some(false) {
            host.meta.warnings.push(Warning::new(
                WarningKind::Netns,
                "RDMA netns mode is exclusive and restop is not in the host's PID namespace: \
                 network namespaces of processes outside it are not found (run it with the \
                 host's PID namespace, hostPID in Kubernetes)",
            ));
        }
        if !unread.is_empty() {
            host.meta.warnings.push(Warning::new(
                WarningKind::Netns,
                format!(
                    "RDMA netns mode is exclusive: the devices of {} network namespace{} could not be read \
                     (entering one needs CAP_SYS_ADMIN): {}",
                    unread.len(),
                    if unread.len() == 1 { "" } else { "s" },
                    unread.join("; ")
                ),
            ));
        }
    }

    /// The oldest process of the namespace (lowest pid), through procfs and
    /// the pod resolution.
    fn owner_of(&mut self, entry: &NetnsEntry) -> Option<NetnsOwner> {
        entry.pids.iter().find_map(|pid| {
            let key = self.procs.process_of_thread(*pid)?;
            let info = self.procs.info(&key)?;
            Some(NetnsOwner {
                pid: key.pid,
                comm: info.comm.clone(),
                container: info
                    .container
                    .as_ref()
                    .map(|c| c.short())
                    .filter(|s| !s.is_empty()),
                pod: info.container.as_ref().and_then(|c| c.pod_name()),
            })
        })
    }
}
