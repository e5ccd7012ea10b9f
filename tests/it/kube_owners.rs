//! Owners Kubernetes can join: fake node roots (a /proc and the kubelet's /var/log) with
//! the cgroup layouts of containerd, CRI-O and Docker on cgroup v1 and v2, resolved to the
//! container id and runtime, the pod UID and the namespace/pod/container names.

use crate::support::fake_proc::FakeProc;
use restop::model::{KubeNames, Runtime};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use tempfile::TempDir;

pub(crate) const UID: &str = "6a7b0f32-fddf-4944-bb99-fd1131e31d10";
pub(crate) const UID2: &str = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
pub(crate) const ID: &str = "7f0670cee5ace8a56a89c18e84099f0bd727cad7160fb272307560690656c47e";
pub(crate) const SIDECAR: &str = "aaaabbbbccccddddeeeeffff0000111122223333444455556666777788889999";
pub(crate) const ID2: &str = "1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef";

/// A node's `/var/log` as the kubelet lays it out: pod `ml-training/llama70b-worker-3` with
/// containers `pytorch` and `nccl-sidecar`, pod `team-alice/alice-finetune` with `trainer`.
pub(crate) fn kubelet_logs() -> TempDir {
    let dir = TempDir::new().unwrap();
    let pods = dir.path().join("pods");
    for (pod_dir, containers) in [
        (
            format!("ml-training_llama70b-worker-3_{UID}"),
            vec!["pytorch", "nccl-sidecar"],
        ),
        (format!("team-alice_alice-finetune_{UID2}"), vec!["trainer"]),
    ] {
        for c in containers {
            fs::create_dir_all(pods.join(&pod_dir).join(c)).unwrap();
            fs::write(pods.join(&pod_dir).join(c).join("0.log"), "").unwrap();
        }
    }
    let links = dir.path().join("containers");
    fs::create_dir_all(&links).unwrap();
    for (name, target) in [
        (
            format!("llama70b-worker-3_ml-training_pytorch-{ID}.log"),
            format!("/var/log/pods/ml-training_llama70b-worker-3_{UID}/pytorch/0.log"),
        ),
        (
            format!("llama70b-worker-3_ml-training_nccl-sidecar-{SIDECAR}.log"),
            format!("/var/log/pods/ml-training_llama70b-worker-3_{UID}/nccl-sidecar/0.log"),
        ),
    ] {
        symlink(target, links.join(name)).unwrap();
    }
    dir
}

struct Resolved {
    runtime: Runtime,
    id: String,
    uid: Option<String>,
    kube: Option<KubeNames>,
}

fn resolve(cgroup: &str, logs: &Path) -> Option<Resolved> {
    let proc = FakeProc::new();
    proc.process(500, "pt_main_thread", 100, &["python3", "train.py"], 1000);
    proc.write("500/cgroup", cgroup);
    let mut reader = proc.reader().with_kubelet_logs(logs);
    reader.begin_tick();
    let key = reader.process_of_thread(500).unwrap();
    let c = reader.info(&key).unwrap().container.clone()?;
    Some(Resolved {
        runtime: c.runtime,
        id: c.id,
        uid: c.pod,
        kube: c.kube,
    })
}

fn names(namespace: &str, pod: &str, container: &str) -> Option<KubeNames> {
    Some(KubeNames {
        namespace: namespace.into(),
        pod: pod.into(),
        container: container.into(),
    })
}

/// The systemd cgroup driver escapes the UID's dashes as underscores.
fn escaped(uid: &str) -> String {
    uid.replace('-', "_")
}

#[test]
fn containerd_cri_o_and_docker_on_cgroup_v1_and_v2_resolve_to_names() {
    let logs = kubelet_logs();
    let u = escaped(UID);
    let cases: Vec<(&str, String, Runtime)> = vec![
        (
            "containerd, systemd driver, cgroup v2",
            format!(
                "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{u}.slice/cri-containerd-{ID}.scope\n"
            ),
            Runtime::Containerd,
        ),
        (
            "containerd, systemd driver, cgroup v1",
            format!(
                "12:memory:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{u}.slice/cri-containerd-{ID}.scope\n11:pids:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{u}.slice/cri-containerd-{ID}.scope\n1:name=systemd:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{u}.slice/cri-containerd-{ID}.scope\n0::/\n"
            ),
            Runtime::Containerd,
        ),
        (
            "containerd, cgroupfs driver, cgroup v1 (the path does not name the runtime)",
            format!(
                "11:memory:/kubepods/burstable/pod{UID}/{ID}\n1:name=systemd:/kubepods/burstable/pod{UID}/{ID}\n"
            ),
            Runtime::Kubernetes,
        ),
        (
            "containerd, cgroupfs driver, cgroup v2",
            format!("0::/kubepods/besteffort/pod{UID}/{ID}\n"),
            Runtime::Kubernetes,
        ),
        (
            "CRI-O, systemd driver, cgroup v2",
            format!("0::/kubepods.slice/kubepods-pod{u}.slice/crio-{ID}.scope\n"),
            Runtime::Crio,
        ),
        (
            "CRI-O, systemd driver, cgroup v1",
            format!(
                "10:cpu,cpuacct:/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod{u}.slice/crio-{ID}.scope\n"
            ),
            Runtime::Crio,
        ),
        (
            "Docker (cri-dockerd), systemd driver, cgroup v2",
            format!(
                "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{u}.slice/docker-{ID}.scope\n"
            ),
            Runtime::Docker,
        ),
        (
            "Docker (cri-dockerd), cgroupfs driver, cgroup v1",
            format!("9:memory:/kubepods/burstable/pod{UID}/{ID}\n"),
            Runtime::Kubernetes,
        ),
        (
            "a private cgroup namespace shows the path relative to the reader's",
            format!("0::/../../kubepods-burstable-pod{u}.slice/cri-containerd-{ID}.scope\n"),
            Runtime::Containerd,
        ),
    ];
    for (what, cgroup, runtime) in cases {
        let r = resolve(&cgroup, logs.path()).unwrap_or_else(|| panic!("{what}: no container"));
        assert_eq!(r.runtime, runtime, "{what}");
        assert_eq!(r.id, ID, "{what}");
        assert_eq!(r.uid.as_deref(), Some(UID), "{what}");
        assert_eq!(
            r.kube,
            names("ml-training", "llama70b-worker-3", "pytorch"),
            "{what}"
        );
    }
}

#[test]
fn the_container_id_picks_the_container_among_several() {
    let logs = kubelet_logs();
    let cgroup = format!(
        "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{}.slice/cri-containerd-{SIDECAR}.scope\n",
        escaped(UID)
    );
    let r = resolve(&cgroup, logs.path()).unwrap();
    assert_eq!(
        r.kube,
        names("ml-training", "llama70b-worker-3", "nccl-sidecar")
    );
}

#[test]
fn a_pod_with_one_container_names_it_without_a_log_link() {
    let logs = kubelet_logs();
    let cgroup = format!("0::/kubepods/pod{UID2}/{ID2}\n");
    let r = resolve(&cgroup, logs.path()).unwrap();
    assert_eq!(r.kube, names("team-alice", "alice-finetune", "trainer"));
}

#[test]
fn a_container_of_a_pod_with_several_and_no_link_has_only_the_pod() {
    let logs = kubelet_logs();
    let cgroup = format!("0::/kubepods/pod{UID}/{ID2}\n");
    let r = resolve(&cgroup, logs.path()).unwrap();
    assert_eq!(r.kube, names("ml-training", "llama70b-worker-3", ""));
}

#[test]
fn without_kubelet_directories_only_ids_are_known() {
    let empty = TempDir::new().unwrap();
    let cgroup = format!("0::/kubepods/pod{UID}/{ID}\n");
    let r = resolve(&cgroup, empty.path()).unwrap();
    assert_eq!((r.id.as_str(), r.uid.as_deref()), (ID, Some(UID)));
    assert_eq!(r.kube, None);
    // Plain Docker outside Kubernetes has no pod, so no names are looked for.
    let r = resolve(
        &format!("0::/system.slice/docker-{ID}.scope\n"),
        empty.path(),
    )
    .unwrap();
    assert_eq!((r.runtime, r.uid, r.kube), (Runtime::Docker, None, None));
}

#[test]
fn hostile_kubelet_directories_are_ignored() {
    let logs = TempDir::new().unwrap();
    let pods = logs.path().join("pods");
    for bad in [
        format!("ns_pod_{UID}_extra"),
        format!("NS_pod_{UID}"),
        "no-underscores".to_string(),
        format!("ns_po\u{e9}d_{UID}"),
    ] {
        fs::create_dir_all(pods.join(bad)).unwrap();
    }
    // A file where a directory is expected, and an unreadable name.
    fs::write(logs.path().join("containers"), "not a directory").unwrap();
    let r = resolve(&format!("0::/kubepods/pod{UID}/{ID}\n"), logs.path()).unwrap();
    assert_eq!(r.kube, None);
}
