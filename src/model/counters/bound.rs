//! QP-bound counters (`rdma statistic qp show`): counters an admin bound
//! QPs to (`rdma statistic qp set link D/P auto type on`, or `bind`). They
//! exist only where someone bound QPs; restop reads them and never binds,
//! unbinds or changes a counter mode.
//!
//! The kernel names the counter's task and lists the bound QPs by number;
//! who owns each QP is a question for the snapshot ([`qp_owner`]): the QP's
//! own entry when the snapshot lists it, else the counter's task matched to
//! a process (or one of its creating threads), else the kernel module.

use crate::model::{Object, OwnerKey, ReportedOwner, Snapshot};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The command an admin runs to bind a port's QPs to counters (shown where
/// nothing is bound, instead of zeros).
pub(crate) fn bind_hint(device: &str, port: u32) -> String {
    format!("rdma statistic qp set link {device}/{port} auto type on")
}

/// One counter of one port with the QPs bound to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundCounter {
    /// `STAT_COUNTER_ID`, per device.
    pub id: u32,
    /// `auto` or `manual` (iproute2's spelling), when the kernel said.
    pub mode: Option<String>,
    /// The task (thread id) or kernel module the counter was allocated for.
    pub reported: ReportedOwner,
    /// Local QP numbers bound to it.
    pub qps: Vec<u32>,
    /// Its counters by kernel name (`rdma -j statistic qp show` keys).
    pub counters: BTreeMap<String, u64>,
}

/// The process (or module) the kernel named for the counter, as a row of
/// the snapshot.
pub(crate) fn counter_owner(counter: &BoundCounter, snapshot: &Snapshot) -> Option<OwnerKey> {
    match &counter.reported {
        ReportedOwner::Task(tid) => snapshot
            .processes
            .iter()
            .find(|p| p.key.pid == *tid || p.creator_threads.iter().any(|(t, _)| t == tid))
            .map(|p| OwnerKey::Process(p.key)),
        ReportedOwner::Kernel(name) => Some(OwnerKey::Kernel(name.clone())),
        ReportedOwner::Missing => None,
    }
}

/// The owner of QP `lqpn` of device `device_index`: its entry in the
/// snapshot's objects, else the counter's owner.
pub(crate) fn qp_owner(
    lqpn: u32,
    device_index: u32,
    counter: &BoundCounter,
    snapshot: &Snapshot,
) -> Option<OwnerKey> {
    snapshot
        .objects
        .iter()
        .find_map(|o| match o {
            Object::Qp(qp) if qp.device == device_index && qp.lqpn == lqpn => {
                Some(qp.owner.clone())
            }
            _ => None,
        })
        .or_else(|| counter_owner(counter, snapshot))
}

/// One bound counter where it lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundAt<'a> {
    pub device: &'a str,
    pub device_index: u32,
    pub port: u32,
    pub counter: &'a BoundCounter,
}

/// Every bound counter of the snapshot, in device and port order.
pub fn bound_counters(snapshot: &Snapshot) -> Vec<BoundAt<'_>> {
    let mut out = Vec::new();
    for d in &snapshot.devices {
        for p in &d.ports {
            let Some(c) = &p.counters else { continue };
            for counter in &c.bound {
                out.push(BoundAt {
                    device: &d.name,
                    device_index: d.index,
                    port: p.index,
                    counter,
                });
            }
        }
    }
    out
}

/// The bound counters with at least one QP of `owner` (or allocated for it).
pub(crate) fn bound_of_owner<'a>(snapshot: &'a Snapshot, owner: &OwnerKey) -> Vec<BoundAt<'a>> {
    bound_counters(snapshot)
        .into_iter()
        .filter(|b| {
            counter_owner(b.counter, snapshot).as_ref() == Some(owner)
                || b.counter.qps.iter().any(|q| {
                    qp_owner(*q, b.device_index, b.counter, snapshot).as_ref() == Some(owner)
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ProcessInfo, ProcessKey};

    fn counter(reported: ReportedOwner) -> BoundCounter {
        BoundCounter {
            id: 3,
            mode: Some("auto".into()),
            reported,
            qps: vec![17, 18],
            counters: [("rx_read_requests".to_string(), 5)].into_iter().collect(),
        }
    }

    fn snapshot_with_process(pid: u32, threads: &[u32]) -> Snapshot {
        use crate::source::{CollectRequest, Source};
        let mut demo = crate::demo::DemoSource::new(1, std::time::Duration::from_secs(2));
        let mut s = demo.collect(&CollectRequest::default()).unwrap();
        s.processes.clear();
        let mut p = ProcessInfo::unknown(ProcessKey { pid, start_time: 9 });
        p.creator_threads = threads.iter().map(|t| (*t, "worker".to_string())).collect();
        s.processes.push(p);
        s
    }

    #[test]
    fn the_counter_task_is_matched_to_its_process_or_creating_thread() {
        let s = snapshot_with_process(100, &[105]);
        let key = OwnerKey::Process(ProcessKey {
            pid: 100,
            start_time: 9,
        });
        assert_eq!(
            counter_owner(&counter(ReportedOwner::Task(100)), &s),
            Some(key.clone())
        );
        assert_eq!(
            counter_owner(&counter(ReportedOwner::Task(105)), &s),
            Some(key)
        );
        assert_eq!(counter_owner(&counter(ReportedOwner::Task(7)), &s), None);
        assert_eq!(
            counter_owner(&counter(ReportedOwner::Kernel("nvme_rdma".into())), &s),
            Some(OwnerKey::Kernel("nvme_rdma".into()))
        );
        assert_eq!(counter_owner(&counter(ReportedOwner::Missing), &s), None);
    }

    #[test]
    fn the_hint_is_the_command_an_admin_runs() {
        assert_eq!(
            bind_hint("rxe0", 1),
            "rdma statistic qp set link rxe0/1 auto type on"
        );
    }
}
