//! Who owns an RDMA object: a process, a kernel module, or nobody we can name.

use super::limits::RdmaCgroup;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What the kernel reported for an object (`RES_PID` / `RES_KERN_NAME`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportedOwner {
    /// `RES_PID`: the id of the **thread** that created the object, in our PID namespace.
    Task(u32),
    /// `RES_KERN_NAME`: the kernel module that owns it (`ib_core`, `nvme_rdma`, ...).
    Kernel(String),
    /// Neither: the creating thread has exited, or lives in another PID namespace.
    Missing,
}

/// A process, told apart from any later process that reuses its pid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ProcessKey {
    pub pid: u32,
    /// `starttime` from `/proc/<pid>/stat`, clock ticks since boot.
    pub start_time: u64,
}

/// The row an object is counted under.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "id")]
pub enum OwnerKey {
    Process(ProcessKey),
    Kernel(String),
    /// Objects whose owner could not be resolved, so totals still add up.
    Unattributed,
}

impl OwnerKey {
    pub fn pid(&self) -> Option<u32> {
        match self {
            OwnerKey::Process(k) => Some(k.pid),
            _ => None,
        }
    }
}

impl fmt::Display for OwnerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OwnerKey::Process(k) => write!(f, "pid {}", k.pid),
            OwnerKey::Kernel(name) => write!(f, "[{name}]"),
            OwnerKey::Unattributed => f.write_str("(unattributed)"),
        }
    }
}

/// The container runtime a process runs under, as far as its cgroup path tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Runtime {
    Docker,
    Containerd,
    Crio,
    Podman,
    Kubernetes,
    Systemd,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Container {
    pub runtime: Runtime,
    /// Container id (full, as in the cgroup path). Empty when only the pod is known.
    pub id: String,
    /// Kubernetes pod UID, when the cgroup path names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    /// Namespace, pod and container names, when the node shows them (the kubelet's log
    /// directories): what `kube_pod_info` and friends are labelled with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kube: Option<KubeNames>,
}

/// The names Kubernetes gives a container's pod, as kube-state-metrics labels them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KubeNames {
    pub namespace: String,
    pub pod: String,
    /// Empty when only the pod is known (a pod with several containers and no id to tell
    /// which one).
    #[serde(default)]
    pub container: String,
}

impl Runtime {
    /// The runtime as Kubernetes names it in `containerID` (`containerd://<id>`).
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Docker => "docker",
            Runtime::Containerd => "containerd",
            Runtime::Crio => "cri-o",
            Runtime::Podman => "podman",
            Runtime::Kubernetes => "kubernetes",
            Runtime::Systemd => "systemd",
        }
    }
}

impl Container {
    /// `<runtime>://<id>` as in a pod's `status.containerStatuses[].containerID`; empty
    /// when the id is unknown.
    pub fn qualified_id(&self) -> String {
        if self.id.is_empty() {
            return String::new();
        }
        format!("{}://{}", self.runtime.name(), self.id)
    }

    /// `namespace/pod`, when the names are known.
    pub fn pod_name(&self) -> Option<String> {
        self.kube
            .as_ref()
            .map(|k| format!("{}/{}", k.namespace, k.pod))
    }

    /// The short form operators know from `docker ps` (12 characters).
    pub fn short(&self) -> String {
        if self.id.is_empty() {
            return match &self.pod {
                Some(pod) => format!("pod:{}", pod.chars().take(8).collect::<String>()),
                None => String::new(),
            };
        }
        self.id.chars().take(12).collect()
    }
}

/// What procfs told us about an owning process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessInfo {
    pub key: ProcessKey,
    /// The process's (main thread's) comm, at most 15 characters.
    pub comm: String,
    /// Full command line; empty for zombies and kernel threads.
    pub cmdline: Vec<String>,
    pub uid: Option<u32>,
    pub user: Option<String>,
    pub container: Option<Container>,
    /// Start time as seconds since the Unix epoch, when boot time is known.
    pub started_at: Option<u64>,
    /// Threads that created objects (tid, thread comm) when they differ from the process.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub creator_threads: Vec<(u32, String)>,
    /// Quotas of the cgroup `rdma` controller that bind this process, when any is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rdma_cgroup: Option<Box<RdmaCgroup>>,
}

impl ProcessInfo {
    /// A minimal record for a process whose details could not be read.
    pub fn unknown(key: ProcessKey) -> ProcessInfo {
        ProcessInfo {
            key,
            comm: String::new(),
            cmdline: Vec::new(),
            uid: None,
            user: None,
            container: None,
            started_at: None,
            creator_threads: Vec::new(),
            rdma_cgroup: None,
        }
    }

    /// The most telling short name: the program (or script) from the command line,
    /// falling back to comm. Trainers are all `python3`/`pt_main_thread` by comm.
    pub fn display_name(&self) -> String {
        display_name(&self.comm, &self.cmdline)
    }
}

/// Picks a readable program name from a command line.
///
/// `python3 -m torch.distributed.run train.py` reads better as `train.py` than as
/// `python3`; interpreters are skipped in favour of the script or module they run.
pub(crate) fn display_name(comm: &str, cmdline: &[String]) -> String {
    const INTERPRETERS: [&str; 8] = [
        "python", "python3", "python2", "perl", "ruby", "node", "bash", "sh",
    ];
    let base = |s: &str| s.rsplit('/').next().unwrap_or(s).to_string();
    let Some(first) = cmdline.first() else {
        return comm.to_string();
    };
    let program = base(first);
    let is_interpreter = INTERPRETERS.contains(&program.as_str())
        || program.starts_with("python3.")
        || program.starts_with("python2.");
    if is_interpreter {
        let mut args = cmdline.iter().skip(1);
        while let Some(arg) = args.next() {
            if arg == "-m" {
                if let Some(module) = args.next() {
                    return module.clone();
                }
            } else if arg == "-c" {
                break;
            } else if !arg.starts_with('-') {
                return base(arg);
            }
        }
    }
    if program.is_empty() {
        comm.to_string()
    } else {
        program
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn display_name_prefers_the_script_over_the_interpreter() {
        assert_eq!(
            display_name(
                "pt_main_thread",
                &v(&["/usr/bin/python3", "-u", "train.py"])
            ),
            "train.py"
        );
        assert_eq!(
            display_name("python3", &v(&["python3", "-m", "torch.distributed.run"])),
            "torch.distributed.run"
        );
        assert_eq!(
            display_name("nvmet", &v(&["/opt/spdk/bin/nvmf_tgt", "-m", "0x3"])),
            "nvmf_tgt"
        );
    }

    #[test]
    fn display_name_falls_back_to_comm() {
        assert_eq!(display_name("ib_write_bw", &[]), "ib_write_bw");
        assert_eq!(display_name("x", &v(&[""])), "x");
    }

    #[test]
    fn container_short_id() {
        let c = Container {
            runtime: Runtime::Docker,
            id: "0123456789abcdef0123".into(),
            pod: None,
            kube: None,
        };
        assert_eq!(c.short(), "0123456789ab");
    }
}
