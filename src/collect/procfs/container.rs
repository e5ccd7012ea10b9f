//! Which container a process runs in, read from its cgroup path.
//!
//! Runtimes name their cgroups by convention, not by any spec; these are the conventions of
//! docker, containerd, CRI-O, podman, systemd-nspawn and the kubelet (cgroupfs and systemd
//! drivers, cgroup v1 and v2). Anything else is "not a container".

use crate::model::{Container, Runtime};

/// Finds the container in the contents of `/proc/<pid>/cgroup`.
///
/// Each line is `hierarchy:controllers:path` (`0::/path` on cgroup v2). On cgroup v1 every
/// controller has a line; the most telling one wins (a container id beats a bare pod).
pub fn container_from_cgroup(cgroup_file_contents: &str) -> Option<Container> {
    let mut pod_only = None;
    for line in cgroup_file_contents.lines() {
        // The path is the third field and may itself contain ':' (see `split_colon_scope`).
        let Some(path) = line.splitn(3, ':').nth(2) else {
            continue;
        };
        match container_from_path(path) {
            Some(c) if !c.id.is_empty() => return Some(c),
            Some(c) => {
                pod_only.get_or_insert(c);
            }
            None => {}
        }
    }
    pod_only
}

/// Finds the container in one cgroup path. Nested containers (a kubernetes pod inside a
/// `kind` node container) resolve to the innermost one.
fn container_from_path(path: &str) -> Option<Container> {
    let mut in_kubepods = false;
    let mut pod: Option<String> = None;
    let mut found: Option<(Runtime, String)> = None;
    let mut previous = "";

    for part in path.split('/').filter(|p| !p.is_empty()) {
        // containerd with the systemd driver on cgroup v1 writes
        // `kubepods-…-pod<uid>.slice:cri-containerd:<id>` as one component.
        let (part, colon_scope) = split_colon_scope(part);
        if part.contains("kubepods") {
            in_kubepods = true;
        }
        if in_kubepods && let Some(uid) = pod_uid(part) {
            pod = Some(uid);
        }
        if let Some(hit) = colon_scope
            .or_else(|| scoped_container(part))
            .or_else(|| bare_id_container(previous, part, in_kubepods))
        {
            found = Some(hit);
        }
        previous = part;
    }

    match (found, pod) {
        (Some((runtime, id)), pod) => Some(Container {
            runtime,
            id,
            pod,
            kube: None,
        }),
        (None, Some(pod)) => Some(Container {
            runtime: Runtime::Kubernetes,
            id: String::new(),
            pod: Some(pod),
            kube: None,
        }),
        (None, None) => None,
    }
}

/// `<slice>:<runtime>:<id>` → (`<slice>`, the container named by the rest).
fn split_colon_scope(part: &str) -> (&str, Option<(Runtime, String)>) {
    let mut fields = part.splitn(3, ':');
    let (Some(head), Some(runtime), Some(id)) = (fields.next(), fields.next(), fields.next())
    else {
        return (part, None);
    };
    let runtime = match runtime {
        "cri-containerd" => Runtime::Containerd,
        "crio" => Runtime::Crio,
        "docker" => Runtime::Docker,
        _ => return (head, None),
    };
    let container = is_container_id(id).then(|| (runtime, id.to_string()));
    (head, container)
}

/// systemd-style scopes and services that runtimes create per container.
fn scoped_container(part: &str) -> Option<(Runtime, String)> {
    const PREFIXES: [(&str, Runtime); 6] = [
        ("cri-containerd-", Runtime::Containerd),
        ("nerdctl-", Runtime::Containerd),
        ("docker-", Runtime::Docker),
        ("crio-", Runtime::Crio),
        ("libpod-", Runtime::Podman),
        // podman with the cgroupfs manager names the cgroup without the `.scope`.
        ("libpod_", Runtime::Podman),
    ];
    let unit = part
        .strip_suffix(".scope")
        .or_else(|| part.strip_suffix(".service"))
        .unwrap_or(part);
    for (prefix, runtime) in PREFIXES {
        // `crio-conmon-<id>` and `libpod-conmon-<id>` hold the monitor, not the container:
        // the id check rejects them because "conmon-…" is not hex.
        if let Some(id) = unit.strip_prefix(prefix)
            && is_container_id(id)
        {
            return Some((runtime, id.to_string()));
        }
    }
    // systemd-nspawn and machined: `systemd-nspawn@<name>.service`, `machine-<name>.scope`.
    if let Some(name) = part
        .strip_prefix("systemd-nspawn@")
        .and_then(|s| s.strip_suffix(".service"))
        .or_else(|| {
            part.strip_prefix("machine-")
                .and_then(|s| s.strip_suffix(".scope"))
        })
        && !name.is_empty()
    {
        return Some((Runtime::Systemd, name.to_string()));
    }
    None
}

/// cgroupfs layouts put the bare id under a runtime directory: `/docker/<64hex>`,
/// `/kubepods/burstable/pod<uid>/<64hex>`. The kubelet path does not tell which runtime.
fn bare_id_container(parent: &str, part: &str, in_kubepods: bool) -> Option<(Runtime, String)> {
    if part.len() != 64 || !is_container_id(part) {
        return None;
    }
    let runtime = match parent {
        "docker" => Runtime::Docker,
        "libpod_parent" => Runtime::Podman,
        _ if in_kubepods => Runtime::Kubernetes,
        _ => return None,
    };
    Some((runtime, part.to_string()))
}

/// `kubepods-burstable-pod1234_5678.slice` or `pod1234-5678` → `1234-5678`.
fn pod_uid(part: &str) -> Option<String> {
    let name = part.strip_suffix(".slice").unwrap_or(part);
    let uid = if let Some(uid) = name.strip_prefix("pod") {
        uid
    } else {
        let at = name.rfind("-pod")?;
        name.get(at + "-pod".len()..)?
    };
    let looks_like_uid = uid.len() >= 8
        && uid
            .chars()
            .all(|c| c.is_ascii_hexdigit() || c == '-' || c == '_');
    // The systemd driver escapes the uid's dashes as underscores.
    looks_like_uid.then(|| uid.replace('_', "-"))
}

/// Runtimes use 64 hex digits; accept shorter hex ids (at least the 12 of `docker ps`).
fn is_container_id(id: &str) -> bool {
    id.len() >= 12 && id.chars().all(|c| c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "3f4e9c0b1a2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f";
    const ID2: &str = "aaaabbbbccccddddeeeeffff00001111222233334444555566667777888899990";

    fn container(runtime: Runtime, id: &str, pod: Option<&str>) -> Option<Container> {
        Some(Container {
            runtime,
            id: id.to_string(),
            pod: pod.map(str::to_string),
            kube: None,
        })
    }

    #[test]
    fn recognises_runtimes_from_realistic_cgroup_files() {
        let pod = "1234abcd-5678-90ef-1234-567890abcdef";
        let cases: Vec<(&str, String, Option<Container>)> = vec![
            (
                "docker, systemd driver, cgroup v2",
                format!("0::/system.slice/docker-{ID}.scope\n"),
                container(Runtime::Docker, ID, None),
            ),
            (
                "docker, cgroupfs driver, cgroup v1 (every controller names it)",
                format!("12:pids:/docker/{ID}\n11:memory:/docker/{ID}\n1:name=systemd:/docker/{ID}\n0::/\n"),
                container(Runtime::Docker, ID, None),
            ),
            (
                "rootless docker",
                format!("0::/user.slice/user-1000.slice/user@1000.service/user.slice/docker-{ID}.scope\n"),
                container(Runtime::Docker, ID, None),
            ),
            (
                "containerd via nerdctl",
                format!("0::/system.slice/nerdctl-{ID}.scope\n"),
                container(Runtime::Containerd, ID, None),
            ),
            (
                "podman rootful",
                format!("0::/machine.slice/libpod-{ID}.scope/container\n"),
                container(Runtime::Podman, ID, None),
            ),
            (
                "podman rootless",
                format!("0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-{ID}.scope\n"),
                container(Runtime::Podman, ID, None),
            ),
            (
                "podman, cgroupfs manager",
                format!("0::/libpod_parent/libpod-{ID}\n"),
                container(Runtime::Podman, ID, None),
            ),
            (
                "kubernetes + containerd, systemd driver, cgroup v2",
                format!("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234abcd_5678_90ef_1234_567890abcdef.slice/cri-containerd-{ID}.scope\n"),
                container(Runtime::Containerd, ID, Some(pod)),
            ),
            (
                "kubernetes + CRI-O, systemd driver, guaranteed QoS",
                format!("0::/kubepods.slice/kubepods-pod1234abcd_5678_90ef_1234_567890abcdef.slice/crio-{ID}.scope\n"),
                container(Runtime::Crio, ID, Some(pod)),
            ),
            (
                "kubernetes + docker, systemd driver",
                format!("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1234abcd_5678_90ef_1234_567890abcdef.slice/docker-{ID}.scope\n"),
                container(Runtime::Docker, ID, Some(pod)),
            ),
            (
                "kubernetes, cgroupfs driver, cgroup v1: runtime unknown from the path",
                format!("11:memory:/kubepods/burstable/pod{pod}/{ID}\n0::/\n"),
                container(Runtime::Kubernetes, ID, Some(pod)),
            ),
            (
                "kubernetes + containerd, systemd driver, cgroup v1 colon form",
                format!("1:name=systemd:/system.slice/containerd.service/kubepods-burstable-pod1234abcd_5678_90ef_1234_567890abcdef.slice:cri-containerd:{ID}\n"),
                container(Runtime::Containerd, ID, Some(pod)),
            ),
            (
                "kind: a pod inside a node container resolves to the innermost container",
                format!("0::/system.slice/docker-{ID2}.scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod1234abcd_5678_90ef_1234_567890abcdef.slice/cri-containerd-{ID}.scope\n"),
                container(Runtime::Containerd, ID, Some(pod)),
            ),
            (
                "only the pod is known",
                "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234abcd_5678_90ef_1234_567890abcdef.slice\n".to_string(),
                container(Runtime::Kubernetes, "", Some(pod)),
            ),
            (
                "a v1 line with the container wins over a v1 line with only the pod",
                format!("4:cpu:/kubepods/pod{pod}\n3:memory:/kubepods/pod{pod}/{ID}\n"),
                container(Runtime::Kubernetes, ID, Some(pod)),
            ),
            (
                "systemd-nspawn",
                "0::/machine.slice/systemd-nspawn@build01.service/payload\n".to_string(),
                container(Runtime::Systemd, "build01", None),
            ),
        ];
        for (what, file, expected) in cases {
            assert_eq!(container_from_cgroup(&file), expected, "{what}");
        }
    }

    #[test]
    fn hosts_and_monitors_are_not_containers() {
        let cases = [
            "0::/\n",
            "0::/user.slice/user-1000.slice/session-3.scope\n",
            "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1234.scope\n",
            "0::/system.slice/sshd.service\n",
            "0::/system.slice/docker.service\n",
            "0::/init.scope\n",
            "12:pids:/\n11:memory:/user.slice\n0::/\n",
            &format!("0::/machine.slice/crio-conmon-{ID}.scope\n"),
            &format!("0::/machine.slice/libpod-conmon-{ID}.scope\n"),
            // A 64-hex directory means nothing outside a runtime's own tree.
            &format!("0::/system.slice/{ID}\n"),
        ];
        for file in cases {
            assert_eq!(container_from_cgroup(file), None, "{file}");
        }
    }

    #[test]
    fn garbage_never_panics() {
        let cases = [
            "",
            "\n\n",
            "no colons at all",
            "0:",
            "0::",
            "0::kubepods-pod",
            "0::/kubepods/pod",
            "0::/kubepods.slice/x:cri-containerd:",
            "0::/docker-.scope",
            "0::/machine-.scope",
            "0::/a:b:c:d:e/f",
            "0::/kubepods/podé€🦀/🦀",
        ];
        for file in cases {
            let _ = container_from_cgroup(file);
        }
        assert_eq!(container_from_cgroup("0::/kubepods/pod"), None);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_cgroup_files_never_panic(text in "([0-9]{0,2}:[a-z=,]{0,8}:(/[a-z0-9_:.@-]{0,70}){0,6}\n?){0,4}") {
            let _ = container_from_cgroup(&text);
        }

        #[test]
        fn arbitrary_text_never_panics(text in ".*") {
            let _ = container_from_cgroup(&text);
        }
    }
}
