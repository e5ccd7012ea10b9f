//! Which network namespace a device was read in, and whose namespace that is.
//!
//! In the RDMA subsystem's exclusive netns mode a device is visible only in the
//! namespace it was moved to (`rdma dev set DEV netns NS`), so restop reads each
//! namespace on its own (`collect/netns/`) and every device it found outside
//! restop's own namespace carries a [`DeviceNetns`]. Devices of restop's own
//! namespace carry none. The kernel's device index is global (one table for all
//! namespaces), so tallies and objects keep naming devices by index; a device's
//! identity for people and for metric series is (namespace, name), since names
//! may one day be unique per namespace only.

use serde::{Deserialize, Serialize};

/// A network namespace other than restop's own.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DeviceNetns {
    /// The namespace's inode: `net:[INODE]` in `/proc/PID/ns/net`.
    pub inode: u64,
    /// Its names under `/var/run/netns` (`ip netns add NAME`), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// The process whose namespace it is (the oldest one in it), when one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<NetnsOwner>,
}

/// Who a namespace belongs to, through the same pod resolution as object owners.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NetnsOwner {
    pub pid: u32,
    pub comm: String,
    /// The container's short id, when the process runs in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// `namespace/pod`, when the node shows the pod's names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
}

impl DeviceNetns {
    /// What the namespace is called where a word is needed (the `netns` label, a
    /// column): its first `ip netns` name, else `net:[INODE]`.
    pub fn label(&self) -> String {
        match self.names.first() {
            Some(name) => name.clone(),
            None => format!("net:[{}]", self.inode),
        }
    }

    /// The label and, when known, whose it is: `ns1 (pid 42 vm_workload, pod ml/trainer-0)`.
    pub fn describe(&self) -> String {
        let mut out = self.label();
        if let Some(owner) = &self.owner {
            out.push_str(&format!(" (pid {} {}", owner.pid, owner.comm));
            if let Some(pod) = &owner.pod {
                out.push_str(&format!(", pod {pod}"));
            } else if let Some(container) = &owner.container {
                out.push_str(&format!(", container {container}"));
            }
            out.push(')');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_namespace_is_named_by_ip_netns_else_by_inode() {
        let mut ns = DeviceNetns {
            inode: 4026532300,
            names: Vec::new(),
            owner: None,
        };
        assert_eq!(ns.label(), "net:[4026532300]");
        ns.names = vec!["ns1".into()];
        ns.owner = Some(NetnsOwner {
            pid: 42,
            comm: "trainer".into(),
            container: Some("abcdef012345".into()),
            pod: Some("ml/trainer-0".into()),
        });
        assert_eq!(ns.describe(), "ns1 (pid 42 trainer, pod ml/trainer-0)");
    }
}
