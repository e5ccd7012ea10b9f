//! Namespace, pod and container names of a Kubernetes container, from the kubelet's log
//! directories on the node.
//!
//! The cgroup path only carries the pod UID and the container id. Kubernetes queries join
//! on names (`kube_pod_info{namespace, pod}`), and the node shows them in two places the
//! kubelet keeps for every runtime (containerd, CRI-O, Docker):
//!
//! - `/var/log/pods/<namespace>_<pod>_<uid>/<container>/` — one directory per pod, one
//!   subdirectory per container;
//! - `/var/log/containers/<pod>_<namespace>_<container>-<id>.log` — one symlink per
//!   container, which ties the container id to its name.
//!
//! Namespaces, pod names and container names are DNS labels or subdomains, so they never
//! contain `_`: the separators are unambiguous. Both directories are read only when a
//! process in a pod is seen for the first time and its pod or container is not known yet,
//! at most once per collection round.

use crate::model::{Container, KubeNames};
use std::collections::HashMap;
use std::path::PathBuf;

/// Entries read from one directory at most: a node runs at most a few hundred pods, so
/// this only bounds a hostile or broken tree.
const MAX_ENTRIES: usize = 20_000;

#[derive(Debug, Clone, PartialEq, Eq)]
struct PodDir {
    namespace: String,
    pod: String,
    /// Container directory names, sorted.
    containers: Vec<String>,
}

/// The kubelet's view of the pods on this node, re-read when something unknown is asked.
#[derive(Debug)]
pub struct KubeletPods {
    /// The node's `/var/log` (a hostPath mount inside a container).
    log_root: PathBuf,
    by_uid: HashMap<String, PodDir>,
    /// Container id → container name.
    by_container_id: HashMap<String, String>,
    /// The round in which the directories were last read.
    scanned_in: Option<u64>,
}

impl KubeletPods {
    /// `log_root` is `/var/log` on a node; tests point it at a fake tree.
    pub fn new(log_root: impl Into<PathBuf>) -> KubeletPods {
        KubeletPods {
            log_root: log_root.into(),
            by_uid: HashMap::new(),
            by_container_id: HashMap::new(),
            scanned_in: None,
        }
    }

    /// The names of `container`'s pod (and of the container, when it can be told), or
    /// `None` outside Kubernetes or when the node does not show the pod.
    pub fn names(&mut self, container: &Container, round: u64) -> Option<KubeNames> {
        let uid = container.pod.as_deref()?;
        let known = self.by_uid.contains_key(uid)
            && (container.id.is_empty() || self.by_container_id.contains_key(&container.id));
        if !known && self.scanned_in != Some(round) {
            self.scan();
            self.scanned_in = Some(round);
        }
        let dir = self.by_uid.get(uid)?;
        let name = match self.by_container_id.get(&container.id) {
            Some(name) => name.clone(),
            // One container in the pod: it is that one.
            None if dir.containers.len() == 1 => dir.containers.first().cloned()?,
            None => String::new(),
        };
        Some(KubeNames {
            namespace: dir.namespace.clone(),
            pod: dir.pod.clone(),
            container: name,
        })
    }

    fn scan(&mut self) {
        self.by_uid.clear();
        self.by_container_id.clear();
        for name in dir_names(&self.log_root.join("pods")) {
            if let Some((namespace, pod, uid)) = parse_pod_dir(&name) {
                let mut containers = dir_names(&self.log_root.join("pods").join(&name));
                containers.sort();
                self.by_uid.insert(
                    uid.to_string(),
                    PodDir {
                        namespace: namespace.to_string(),
                        pod: pod.to_string(),
                        containers,
                    },
                );
            }
        }
        for name in dir_names(&self.log_root.join("containers")) {
            if let Some(link) = parse_container_log(&name) {
                self.by_container_id
                    .insert(link.id.to_string(), link.container.to_string());
            }
        }
    }
}

/// The names in a directory; nothing when it is missing or unreadable (not a node, or no
/// permission: the names are then simply not shown).
fn dir_names(dir: &std::path::Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .take(MAX_ENTRIES)
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect()
}

/// `<namespace>_<pod>_<uid>` → its three parts.
pub fn parse_pod_dir(name: &str) -> Option<(&str, &str, &str)> {
    let mut parts = name.split('_');
    let (namespace, pod, uid) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || !is_dns_name(namespace) || !is_dns_name(pod) || !is_uid(uid) {
        return None;
    }
    Some((namespace, pod, uid))
}

/// One `/var/log/containers` entry.
#[derive(Debug, PartialEq, Eq)]
pub struct ContainerLog<'a> {
    pub pod: &'a str,
    pub namespace: &'a str,
    pub container: &'a str,
    pub id: &'a str,
}

/// `<pod>_<namespace>_<container>-<id>.log` → its parts.
pub fn parse_container_log(name: &str) -> Option<ContainerLog<'_>> {
    let stem = name.strip_suffix(".log")?;
    let (rest, id) = stem.rsplit_once('-')?;
    let mut parts = rest.split('_');
    let (pod, namespace, container) = (parts.next()?, parts.next()?, parts.next()?);
    let hex = id.len() >= 12 && id.chars().all(|c| c.is_ascii_hexdigit());
    if parts.next().is_some()
        || !hex
        || !is_dns_name(pod)
        || !is_dns_name(namespace)
        || !is_dns_name(container)
    {
        return None;
    }
    Some(ContainerLog {
        pod,
        namespace,
        container,
        id,
    })
}

/// Lower-case letters, digits, `-` and `.`, at most 253 characters (a DNS subdomain).
fn is_dns_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
}

/// A pod UID (36 characters with dashes) or a static pod's hash (32 hex digits).
fn is_uid(s: &str) -> bool {
    s.len() >= 8 && s.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Runtime;

    const UID: &str = "1234abcd-5678-90ef-1234-567890abcdef";
    const ID: &str = "3f4e9c0b1a2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f";

    #[test]
    fn pod_directories() {
        assert_eq!(
            parse_pod_dir(&format!("ml-training_llama70b-worker-3_{UID}")),
            Some(("ml-training", "llama70b-worker-3", UID))
        );
        // Static pods are named by a hash without dashes.
        assert_eq!(
            parse_pod_dir("kube-system_etcd-node1_9c8f7b6a5d4e3f2a1b0c9d8e7f6a5b4c"),
            Some((
                "kube-system",
                "etcd-node1",
                "9c8f7b6a5d4e3f2a1b0c9d8e7f6a5b4c"
            ))
        );
        for bad in [
            "",
            "a_b",
            "a_b_c_d",
            "A_b_12345678",
            "a_b_xyz",
            "a__12345678",
        ] {
            assert_eq!(parse_pod_dir(bad), None, "{bad}");
        }
    }

    #[test]
    fn container_log_links() {
        assert_eq!(
            parse_container_log(&format!("llama70b-worker-3_ml-training_pytorch-{ID}.log")),
            Some(ContainerLog {
                pod: "llama70b-worker-3",
                namespace: "ml-training",
                container: "pytorch",
                id: ID,
            })
        );
        // A container name with dashes: the id is after the last one.
        let name = format!("p_ns_nccl-sidecar-{ID}.log");
        let log = parse_container_log(&name).unwrap();
        assert_eq!((log.container, log.id), ("nccl-sidecar", ID));
        for bad in [
            "x.log",
            "p_ns_c-zz.log",
            "p_ns-abcdefabcdef.log",
            "p_ns_c_d-abcdefabcdef.log",
        ] {
            assert_eq!(parse_container_log(bad), None, "{bad}");
        }
    }

    #[test]
    fn names_need_a_pod_uid_and_a_node_that_shows_it() {
        let mut pods = KubeletPods::new("/nonexistent/var/log");
        let c = Container {
            runtime: Runtime::Docker,
            id: ID.into(),
            pod: None,
            kube: None,
        };
        assert_eq!(pods.names(&c, 1), None);
        let c = Container {
            pod: Some(UID.into()),
            ..c
        };
        assert_eq!(pods.names(&c, 1), None);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_names_never_panic(name in "[a-z0-9_.-]{0,80}") {
            let _ = parse_pod_dir(&name);
            let _ = parse_container_log(&name);
        }
    }
}
