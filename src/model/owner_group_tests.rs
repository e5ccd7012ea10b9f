use super::*;
use crate::model::consumers::{SortDirection, SortKey, sort_consumers};
use crate::model::{
    KubeNames, ProcessInfo, ProcessKey, QpState, ResourceType, Runtime, StateCounts, TypeCounts,
};

fn process(pid: u32, name: &str, qps: u64, devices: &[&str]) -> Consumer {
    let key = ProcessKey { pid, start_time: 1 };
    let mut info = ProcessInfo::unknown(key);
    info.comm = name.to_string();
    info.uid = Some(1000);
    info.user = Some("svc".to_string());
    let mut counts = TypeCounts::default();
    counts.add(ResourceType::Qp, qps);
    let mut qp_states = StateCounts::default();
    qp_states.add(QpState::Rts, qps);
    Consumer {
        owner: OwnerKey::Process(key),
        name: name.to_string(),
        process: Some(info),
        counts,
        mr_bytes: qps * 1024,
        qp_states,
        devices: devices.iter().map(|d| d.to_string()).collect(),
    }
}

fn kube(namespace: &str, pod: &str, container: &str) -> Option<KubeNames> {
    Some(KubeNames {
        namespace: namespace.to_string(),
        pod: pod.to_string(),
        container: container.to_string(),
    })
}

fn inside(mut c: Consumer, container: Container) -> Consumer {
    if let Some(p) = c.process.as_mut() {
        p.container = Some(container);
    }
    c
}

fn containerd(id: &str, uid: &str, names: Option<KubeNames>) -> Container {
    Container {
        runtime: Runtime::Containerd,
        id: id.to_string(),
        pod: Some(uid.to_string()),
        kube: names,
    }
}

fn kernel(name: &str, qps: u64) -> Consumer {
    let mut counts = TypeCounts::default();
    counts.add(ResourceType::Qp, qps);
    Consumer {
        owner: OwnerKey::Kernel(name.to_string()),
        name: format!("[{name}]"),
        process: None,
        counts,
        mr_bytes: 0,
        qp_states: StateCounts::default(),
        devices: Vec::new(),
    }
}

fn unattributed(qps: u64) -> Consumer {
    Consumer {
        owner: OwnerKey::Unattributed,
        name: "(unattributed)".to_string(),
        ..kernel("x", qps)
    }
}

fn names(rows: &[OwnerGroupRow]) -> Vec<(String, usize, u64)> {
    rows.iter()
        .map(|r| {
            (
                r.name.clone(),
                r.members.len(),
                r.total.counts.get(ResourceType::Qp),
            )
        })
        .collect()
}

/// A training pod (two containerd containers), a CRI-O pod, a Docker container outside
/// Kubernetes, a host process, a kernel owner and the unattributed bucket.
fn node() -> Vec<Consumer> {
    let trainer = containerd(
        "aaaa1111aaaa1111",
        "uid-train-0000",
        kube("ml", "w-0", "pytorch"),
    );
    let sidecar = containerd(
        "bbbb2222bbbb2222",
        "uid-train-0000",
        kube("ml", "w-0", "nccl"),
    );
    let crio = Container {
        runtime: Runtime::Crio,
        id: "cccc3333cccc3333".to_string(),
        pod: Some("uid-infer-1111".to_string()),
        kube: kube("serving", "triton-0", "triton"),
    };
    let docker = Container {
        runtime: Runtime::Docker,
        id: "dddd4444dddd4444".to_string(),
        pod: None,
        kube: None,
    };
    vec![
        inside(process(10, "train.py", 5, &["mlx5_1"]), trainer.clone()),
        inside(process(11, "train.py", 7, &["mlx5_0", "mlx5_1"]), trainer),
        inside(process(12, "nccl-proxy", 1, &["mlx5_0"]), sidecar),
        inside(process(20, "tritonserver", 4, &["mlx5_2"]), crio),
        inside(process(30, "ib_write_bw", 2, &["mlx5_3"]), docker),
        process(40, "host-tool", 3, &["mlx5_0"]),
        kernel("ib_core", 6),
        unattributed(8),
    ]
}

#[test]
fn by_process_every_consumer_is_its_own_row() {
    let consumers = node();
    let rows = group_consumers(&consumers, OwnerGroup::Process);
    assert_eq!(rows.len(), consumers.len());
    for (row, c) in rows.iter().zip(&consumers) {
        assert!(!row.is_group());
        assert_eq!(&row.total, c);
        assert_eq!(row.cell(ConsumerColumn::Name), ConsumerColumn::Name.cell(c));
    }
}

#[test]
fn by_pod_a_pods_processes_are_summed_across_its_containers() {
    let rows = group_consumers(&node(), OwnerGroup::Pod);
    assert_eq!(
        names(&rows),
        [
            ("w-0".to_string(), 3, 13),
            ("triton-0".to_string(), 1, 4),
            ("ib_write_bw".to_string(), 1, 2),
            ("host-tool".to_string(), 1, 3),
            ("[ib_core]".to_string(), 1, 6),
            ("(unattributed)".to_string(), 1, 8),
        ]
    );
    let pod = &rows[0];
    assert!(pod.is_group());
    assert_eq!(pod.total.mr_bytes, 13 * 1024);
    assert_eq!(pod.total.qp_states.get(QpState::Rts), 13);
    assert_eq!(pod.total.devices, ["mlx5_0", "mlx5_1"]);
    assert_eq!(
        pod.total.owner,
        OwnerKey::Process(ProcessKey {
            pid: 10,
            start_time: 1
        })
    );
    assert_eq!(pod.cell(ConsumerColumn::Name), "w-0 (3 procs)");
    assert_eq!(pod.cell(ConsumerColumn::Pid), "-");
    assert_eq!(pod.cell(ConsumerColumn::User), "svc");
    assert_eq!(pod.cell(ConsumerColumn::Pod), "ml/w-0");
    // Two containers: none to name.
    assert_eq!(pod.cell(ConsumerColumn::Container), "");
    assert_eq!(pod.cell(ConsumerColumn::Count(ResourceType::Qp)), "13");
    // A one-container CRI-O pod names its container.
    assert_eq!(rows[1].cell(ConsumerColumn::Container), "cccc3333cccc");
    assert_eq!(rows[1].cell(ConsumerColumn::Name), "triton-0 (1 proc)");
}

#[test]
fn by_pod_processes_outside_pods_kernel_owners_and_the_bucket_stay_apart() {
    let rows = group_consumers(&node(), OwnerGroup::Pod);
    let lone: Vec<&GroupKey> = rows
        .iter()
        .filter(|r| !r.is_group())
        .map(|r| &r.key)
        .collect();
    assert_eq!(
        lone,
        [
            &GroupKey::Owner(OwnerKey::Process(ProcessKey {
                pid: 30,
                start_time: 1
            })),
            &GroupKey::Owner(OwnerKey::Process(ProcessKey {
                pid: 40,
                start_time: 1
            })),
            &GroupKey::Owner(OwnerKey::Kernel("ib_core".to_string())),
            &GroupKey::Owner(OwnerKey::Unattributed),
        ]
    );
    // The Docker container outside Kubernetes is still a process with its own pid.
    assert_eq!(rows[2].cell(ConsumerColumn::Pid), "30");
    assert_eq!(rows[2].cell(ConsumerColumn::Container), "dddd4444dddd");
}

#[test]
fn by_container_containerd_cri_o_and_docker_containers_are_rows() {
    let rows = group_consumers(&node(), OwnerGroup::Container);
    assert_eq!(
        names(&rows),
        [
            ("pytorch".to_string(), 2, 12),
            ("nccl".to_string(), 1, 1),
            ("triton".to_string(), 1, 4),
            // Docker outside Kubernetes: no name, so the short id.
            ("dddd4444dddd".to_string(), 1, 2),
            ("host-tool".to_string(), 1, 3),
            ("[ib_core]".to_string(), 1, 6),
            ("(unattributed)".to_string(), 1, 8),
        ]
    );
    assert_eq!(rows[0].cell(ConsumerColumn::Container), "aaaa1111aaaa");
    assert_eq!(rows[0].cell(ConsumerColumn::Pod), "ml/w-0");
    assert_eq!(rows[3].cell(ConsumerColumn::Pod), "");
}

#[test]
fn a_container_known_only_by_its_pod_is_no_container_row() {
    let pod_only = containerd("", "uid-pod-only-9", kube("ml", "w-1", ""));
    let rows = group_consumers(
        &[inside(process(50, "train.py", 1, &[]), pod_only.clone())],
        OwnerGroup::Container,
    );
    assert!(!rows[0].is_group());
    let rows = group_consumers(
        &[inside(process(50, "train.py", 1, &[]), pod_only)],
        OwnerGroup::Pod,
    );
    assert_eq!(rows[0].name, "w-1");
}

#[test]
fn pods_with_one_name_in_two_namespaces_stay_apart() {
    let a = containerd(
        "a1a1a1a1a1a1a1",
        "uid-a",
        kube("team-a", "worker-0", "main"),
    );
    let b = containerd(
        "b2b2b2b2b2b2b2",
        "uid-b",
        kube("team-b", "worker-0", "main"),
    );
    let rows = group_consumers(
        &[
            inside(process(1, "train.py", 2, &[]), a.clone()),
            inside(process(2, "train.py", 3, &[]), b),
            inside(process(3, "train.py", 4, &[]), a),
        ],
        OwnerGroup::Pod,
    );
    assert_eq!(
        names(&rows),
        [
            ("worker-0".to_string(), 2, 6),
            ("worker-0".to_string(), 1, 3)
        ]
    );
    assert_eq!(rows[0].cell(ConsumerColumn::Pod), "team-a/worker-0");
    assert_eq!(rows[1].cell(ConsumerColumn::Pod), "team-b/worker-0");
}

#[test]
fn a_pod_without_kubelet_names_is_named_by_its_uid() {
    let unnamed = containerd("e5e5e5e5e5e5e5", "0f1e2d3c-4b5a-6978", None);
    let rows = group_consumers(
        &[
            inside(process(1, "a", 1, &[]), unnamed.clone()),
            inside(process(2, "b", 1, &[]), unnamed),
        ],
        OwnerGroup::Pod,
    );
    assert_eq!(names(&rows), [("pod:0f1e2d3c".to_string(), 2, 2)]);
    assert_eq!(
        rows[0].key,
        GroupKey::Pod(PodKey {
            namespace: String::new(),
            pod: String::new(),
            uid: "0f1e2d3c-4b5a-6978".to_string(),
        })
    );
    assert_eq!(rows[0].cell(ConsumerColumn::Pod), "pod:0f1e2d3c");
}

#[test]
fn members_with_different_users_show_mixed() {
    let ct = containerd("f6f6f6f6f6f6f6", "uid-f", kube("ml", "w-2", "main"));
    let mut root = inside(process(2, "b", 1, &[]), ct.clone());
    if let Some(p) = root.process.as_mut() {
        p.user = Some("root".to_string());
    }
    let rows = group_consumers(
        &[inside(process(1, "a", 1, &[]), ct), root],
        OwnerGroup::Pod,
    );
    assert_eq!(rows[0].user(), None);
    assert_eq!(rows[0].cell(ConsumerColumn::User), "mixed");
}

#[test]
fn groups_sort_by_their_sums_and_names() {
    let mut rows = group_consumers(&node(), OwnerGroup::Pod);
    sort_consumers(
        &mut rows,
        SortKey::Count(ResourceType::Qp),
        SortDirection::Descending,
    );
    let order: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        order,
        [
            "w-0",
            "(unattributed)",
            "[ib_core]",
            "triton-0",
            "host-tool",
            "ib_write_bw"
        ]
    );
    sort_consumers(&mut rows, SortKey::Name, SortDirection::Ascending);
    let order: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        order,
        [
            "(unattributed)",
            "[ib_core]",
            "host-tool",
            "ib_write_bw",
            "triton-0",
            "w-0"
        ]
    );
}

#[test]
fn groupings_cycle_and_parse() {
    assert_eq!(OwnerGroup::Process.next(), OwnerGroup::Container);
    assert_eq!(OwnerGroup::Container.next(), OwnerGroup::Pod);
    assert_eq!(OwnerGroup::Pod.next(), OwnerGroup::Process);
    assert_eq!(OwnerGroup::from_name(" Pod "), Some(OwnerGroup::Pod));
    assert_eq!(OwnerGroup::from_name("node"), None);
}
