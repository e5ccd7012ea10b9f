//! Owners of RDMA objects, through procfs.
//!
//! The kernel reports the *thread* that created an object (`RES_PID`); restop groups
//! objects per process, so each thread id is mapped to its thread group through
//! `/proc/<tid>/status` (`/proc/<tid>` exists for every thread even though readdir lists
//! only processes), and each process is told apart from a later one reusing its pid by its
//! start time.

mod container;
mod files;
mod kubelet;
mod reader;
mod users;

pub use container::container_from_cgroup;
/// The bounded read the cgroup quota reader shares.
pub(crate) use files::read_limited;
pub use kubelet::{KubeletPods, parse_container_log, parse_pod_dir};
pub use reader::ProcReader;
pub use users::UserNames;

/// The start time (`/proc/<pid>/stat` field 22, clock ticks since boot) of
/// process `pid` under `proc_root`, read now: `None` when the process is gone
/// or its stat cannot be read. What tells a process from a later one that
/// reused its pid.
pub fn process_start_time(proc_root: &std::path::Path, pid: u32) -> Option<u64> {
    let text = files::read_text(&proc_root.join(pid.to_string()).join("stat")).ok()?;
    files::parse_stat(&text).map(|s| s.start_time)
}
