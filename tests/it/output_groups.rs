//! `--group container|pod` in the reports: the `--once` consumers table with one row per
//! container or pod, and the `--json` document's `groups`, over the fake kernel and a fake
//! node (a /proc whose processes run in pods, and the kubelet's /var/log).

use crate::kube_owners::{ID, ID2, SIDECAR, UID, UID2, kubelet_logs};
use crate::support::fake_kernel::FakeKernel;
use crate::support::fake_proc::FakeProc;
use restop::collect::{LiveOptions, LiveSource};
use restop::model::consumers::{Consumer, consumers};
use restop::model::filter::Filter;
use restop::model::owner_group::OwnerGroup;
use restop::model::{ResourceType, Snapshot};
use restop::nldev::NldevClient;
use restop::output::text::WIDTH;
use restop::output::{OnceOptions, render_json, render_json_grouped, render_once};
use restop::source::{CollectRequest, Source};
use serde_json::Value;
use std::process::Command;
use tempfile::TempDir;

/// A plain Docker container, outside Kubernetes.
const DOCKER: &str = "d0c0e0f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8";

/// The captured host's processes on a node: ibv_rc_pingpong 638 and 642 in container
/// `pytorch` and ibv_srq_pingpong 645 in `nccl-sidecar` of pod
/// `ml-training/llama70b-worker-3`, rping 659 in pod `team-alice/alice-finetune`,
/// ib_write_bw 667 in a Docker container; the others on the host.
fn node() -> (FakeProc, TempDir) {
    let proc = FakeProc::captured_host();
    let pod = format!(
        "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{}.slice",
        UID.replace('-', "_")
    );
    for (pid, cgroup) in [
        (638, format!("0::{pod}/cri-containerd-{ID}.scope\n")),
        (642, format!("0::{pod}/cri-containerd-{ID}.scope\n")),
        (645, format!("0::{pod}/cri-containerd-{SIDECAR}.scope\n")),
        (659, format!("0::/kubepods/pod{UID2}/{ID2}\n")),
        (667, format!("0::/system.slice/docker-{DOCKER}.scope\n")),
    ] {
        proc.write(format!("{pid}/cgroup"), cgroup);
    }
    (proc, kubelet_logs())
}

fn snapshot() -> Snapshot {
    snapshot_with(&[])
}

/// The node with these processes moved to other cgroups.
fn snapshot_with(cgroups: &[(u32, String)]) -> Snapshot {
    let (proc, logs) = node();
    for (pid, cgroup) in cgroups {
        proc.write(format!("{pid}/cgroup"), cgroup);
    }
    let options = LiveOptions {
        proc_root: proc.root().to_path_buf(),
        sys_root: proc.root().join("no-sysfs"),
        kubelet_logs: logs.path().to_path_buf(),
        verbs: false,
        ..LiveOptions::default()
    };
    let mut source =
        LiveSource::with_client(NldevClient::new(FakeKernel::captured_host()), options);
    source.collect(&CollectRequest::default()).expect("collect")
}

fn grouped(group: OwnerGroup) -> OnceOptions {
    OnceOptions {
        top: 0,
        group,
        ..OnceOptions::default()
    }
}

/// The report's consumers section (the header has this host's name and times).
fn consumers_section(report: &str) -> String {
    let start = report.find("TOP CONSUMERS").expect("consumers section");
    let section = &report[start..];
    let end = section.find("\n\n").map_or(section.len(), |i| i + 1);
    section[..end].to_string()
}

/// The pids of the section's rows (its first column).
fn pids(section: &str) -> Vec<u32> {
    section
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect()
}

fn assert_fits(text: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= WIDTH,
            "wider than {WIDTH}: {line:?}"
        );
    }
}

/// The consumers of these pids summed, as a group row must show them.
fn sum_of(rows: &[Consumer], pids: &[u32]) -> (u64, u64, u64) {
    let members: Vec<&Consumer> = rows
        .iter()
        .filter(|c| c.pid().is_some_and(|p| pids.contains(&p)))
        .collect();
    assert_eq!(members.len(), pids.len(), "{pids:?}");
    (
        members.iter().map(|c| c.counts.get(ResourceType::Qp)).sum(),
        members.iter().map(|c| c.counts.get(ResourceType::Mr)).sum(),
        members.iter().map(|c| c.mr_bytes).sum(),
    )
}

#[test]
fn grouped_by_pod_the_report_has_a_row_per_pod_and_keeps_the_others() {
    let snap = snapshot();
    let report = render_once(&snap, &Filter::default(), &grouped(OwnerGroup::Pod));
    assert_fits(&report);
    let section = consumers_section(&report);
    assert!(
        section.starts_with("TOP CONSUMERS by QP, grouped by pod\n"),
        "{section}"
    );
    let row = |name: &str| {
        section
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no row {name} in\n{section}"))
            .to_string()
    };
    // Three processes in two containers of one pod: one row, no pid, their sums.
    let pod = row("llama70b-worker-3 (3 procs)");
    assert!(pod.trim_start().starts_with("- "), "{pod}");
    let (qp, _, _) = sum_of(&consumers(&snap, &Filter::default()), &[638, 642, 645]);
    assert!(pod.split_whitespace().any(|c| c == qp.to_string()), "{pod}");
    row("alice-finetune (1 proc)");
    // A Docker container is in no pod; host processes, kernel owners and the
    // unattributed bucket stay rows of their own.
    assert_eq!(pids(&section), [679, 649, 670, 652, 656, 667]);
    row("[ib_core]");
    row("(unattributed)");
    insta::assert_snapshot!(section);
}

#[test]
fn grouped_by_container_a_pods_containers_are_rows_of_their_own() {
    let snap = snapshot();
    let report = render_once(&snap, &Filter::default(), &grouped(OwnerGroup::Container));
    assert_fits(&report);
    let section = consumers_section(&report);
    assert!(section.contains("grouped by container"), "{section}");
    for name in [
        "pytorch (2 procs)",
        "nccl-sidecar (1 proc)",
        "trainer (1 proc)",
        // Outside Kubernetes a container is named by its short id.
        "d0c0e0f0a1b2 (1 proc)",
    ] {
        assert!(section.contains(name), "no {name} in\n{section}");
    }
    insta::assert_snapshot!(section);
}

#[test]
fn grouping_by_process_is_the_report_as_it_was() {
    let snap = snapshot();
    let by_process = render_once(&snap, &Filter::default(), &grouped(OwnerGroup::Process));
    let section = consumers_section(&by_process);
    assert!(section.starts_with("TOP CONSUMERS by QP\n"), "{section}");
    let mut shown = pids(&section);
    shown.sort_unstable();
    assert_eq!(
        shown,
        [638, 642, 645, 649, 652, 656, 659, 667, 670, 679],
        "{section}"
    );
}

#[test]
fn the_totals_row_is_the_same_grouped_or_not() {
    let snap = snapshot();
    let total = |group| {
        let report = render_once(&snap, &Filter::default(), &grouped(group));
        consumers_section(&report)
            .lines()
            .find(|l| l.contains("TOTAL"))
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let by_process = total(OwnerGroup::Process);
    assert_eq!(total(OwnerGroup::Pod), by_process);
    assert_eq!(total(OwnerGroup::Container), by_process);
}

#[test]
fn top_counts_rows_as_grouped() {
    let snap = snapshot();
    let options = OnceOptions {
        top: 2,
        ..grouped(OwnerGroup::Pod)
    };
    let section = consumers_section(&render_once(&snap, &Filter::default(), &options));
    let first = section.lines().next().unwrap();
    assert!(
        first.starts_with("TOP CONSUMERS by QP, grouped by pod (2 of "),
        "{first}"
    );
}

#[test]
fn json_groups_list_each_pod_with_its_processes_and_sums() {
    let snap = snapshot();
    let filter = Filter::default();
    let doc = serde_json::to_value(render_json_grouped(
        &snap,
        &filter,
        &Default::default(),
        OwnerGroup::Pod,
    ))
    .unwrap();
    let groups = doc["groups"].as_array().expect("groups with --group pod");
    // Only the pods: the Docker container and host processes are in `processes` only.
    let names: Vec<&str> = groups.iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let pod = |name: &str| groups.iter().find(|g| g["name"] == name).unwrap();
    let worker = pod("llama70b-worker-3");
    assert_eq!(worker["kind"], "pod");
    assert_eq!(
        worker["pod"],
        serde_json::json!({"namespace": "ml-training", "name": "llama70b-worker-3", "uid": UID})
    );
    assert_eq!(worker["container"], Value::Null);
    let mut pids: Vec<u64> = worker["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap())
        .collect();
    pids.sort_unstable();
    assert_eq!(pids, [638, 642, 645]);
    let (qp, mr, mr_bytes) = sum_of(&consumers(&snap, &filter), &[638, 642, 645]);
    assert_eq!(worker["counts"]["qp"], qp);
    assert_eq!(worker["counts"]["mr"], mr);
    assert_eq!(worker["mr_bytes"], mr_bytes);
    assert_eq!(worker["devices"], serde_json::json!(["rxe0"]));
    let alice = pod("alice-finetune");
    assert_eq!(alice["processes"], serde_json::json!([659]));
    assert_eq!(alice["pod"]["namespace"], "team-alice");
    // Most QPs first, as `processes`.
    let qps: Vec<u64> = groups
        .iter()
        .map(|g| g["counts"]["qp"].as_u64().unwrap())
        .collect();
    assert!(qps.windows(2).all(|w| w[0] >= w[1]), "{qps:?}");
}

#[test]
fn json_groups_by_container_name_the_container() {
    let snap = snapshot();
    let doc = serde_json::to_value(render_json_grouped(
        &snap,
        &Filter::default(),
        &Default::default(),
        OwnerGroup::Container,
    ))
    .unwrap();
    let groups = doc["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 4, "{groups:#?}");
    let by_name = |name: &str| groups.iter().find(|g| g["name"] == name).unwrap();
    let pytorch = by_name("pytorch");
    assert_eq!(pytorch["kind"], "container");
    assert_eq!(pytorch["container"]["id"], ID);
    assert_eq!(pytorch["container"]["runtime"], "containerd");
    assert_eq!(pytorch["container"]["kubernetes"]["container"], "pytorch");
    assert_eq!(pytorch["pod"]["uid"], UID);
    let docker = by_name("d0c0e0f0a1b2");
    assert_eq!(docker["container"]["runtime"], "docker");
    assert_eq!(docker["pod"], Value::Null);
    assert_eq!(docker["processes"], serde_json::json!([667]));
}

#[test]
fn json_without_grouping_has_no_groups_and_grouping_leaves_the_rest_unchanged() {
    let snap = snapshot();
    let filter = Filter::default();
    let plain = serde_json::to_value(render_json(&snap, &filter)).unwrap();
    assert!(plain.get("groups").is_none(), "no `groups` unless asked");
    let process = serde_json::to_value(render_json_grouped(
        &snap,
        &filter,
        &Default::default(),
        OwnerGroup::Process,
    ))
    .unwrap();
    assert_eq!(process, plain);
    let mut by_pod = serde_json::to_value(render_json_grouped(
        &snap,
        &filter,
        &Default::default(),
        OwnerGroup::Pod,
    ))
    .unwrap();
    by_pod.as_object_mut().unwrap().remove("groups");
    assert_eq!(by_pod, plain);
}

#[test]
fn filters_pick_processes_before_they_are_grouped() {
    let snap = snapshot();
    let filter = Filter {
        pid: Some(638),
        ..Filter::default()
    };
    let doc = serde_json::to_value(render_json_grouped(
        &snap,
        &filter,
        &Default::default(),
        OwnerGroup::Pod,
    ))
    .unwrap();
    let groups = doc["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0]["processes"], serde_json::json!([638]));
    let report = render_once(&snap, &filter, &grouped(OwnerGroup::Pod));
    assert!(report.contains("llama70b-worker-3 (1 proc)"), "{report}");
}

#[test]
fn a_groups_devices_are_listed_as_devices_are_shown() {
    // ibv_ud_pingpong 652 (on rxe0) joins rping 659 (on rxe1) in alice-finetune, and rxe0 is
    // shown as a VF under rxe1: the pod's devices are rxe1, rxe0, as devices are shown.
    let mut snap = snapshot_with(&[(652, format!("0::/kubepods/pod{UID2}/{ID2}\n"))]);
    snap.devices[0].pf = Some("rxe1".into());
    let doc = serde_json::to_value(render_json_grouped(
        &snap,
        &Filter::default(),
        &Default::default(),
        OwnerGroup::Pod,
    ))
    .unwrap();
    let alice = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "alice-finetune")
        .unwrap();
    assert_eq!(alice["devices"], serde_json::json!(["rxe1", "rxe0"]));
    let devices: Vec<&Value> = doc["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["name"])
        .collect();
    assert_eq!(devices, ["rxe1", "rxe0"]);
}

fn restop(args: &[&str]) -> (String, std::process::ExitStatus) {
    let out = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(args)
        .env_remove("RESTOP_CONFIG")
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .output()
        .unwrap();
    (String::from_utf8(out.stdout).unwrap(), out.status)
}

#[test]
fn the_binary_groups_once_json_and_batch_by_the_flag_or_the_config_file() {
    let (text, status) = restop(&["--demo", "--once", "--group", "pod"]);
    assert!(status.success());
    assert!(
        text.contains("TOP CONSUMERS by QP, grouped by pod"),
        "{text}"
    );
    assert!(text.contains("(3 procs)"), "{text}");

    let dir = TempDir::new().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[interactive]\ngroup = \"container\"\n").unwrap();
    let config = config.to_str().unwrap();
    let (text, _) = restop(&["--demo", "--once", "--config", config]);
    assert!(text.contains("grouped by container"), "{text}");
    // The command line wins over the file.
    let (text, _) = restop(&["--demo", "--once", "--config", config, "--group", "process"]);
    assert!(text.contains("TOP CONSUMERS by QP\n"), "{text}");

    let (json, _) = restop(&["--demo", "--json", "--group", "pod"]);
    let doc: Value = serde_json::from_str(&json).unwrap();
    let training = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "llama70b-pretrain-worker-3")
        .unwrap();
    assert_eq!(training["processes"].as_array().unwrap().len(), 3);
    let (json, _) = restop(&["--demo", "--json"]);
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert!(doc.get("groups").is_none());

    let (lines, status) = restop(&["--demo", "--batch", "--json", "-n", "1", "--config", config]);
    assert!(status.success());
    let doc: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert!(
        doc["groups"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["kind"] == "container")
    );
    assert!(doc.get("trends").is_some());
    let (text, _) = restop(&["--demo", "--batch", "-n", "1", "--group", "pod"]);
    assert!(text.contains("grouped by pod"), "{text}");
}
