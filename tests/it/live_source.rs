//! The live source end to end over real kernel replies (a fake netlink peer
//! answering from captures) and a fake /proc: devices, summaries, owners,
//! tallies, ERROR QPs, cadence, and a device that disappears.

use crate::support::fake_kernel::FakeKernel;
use crate::support::fake_proc::FakeProc;
use restop::collect::{LiveOptions, LiveSource};
use restop::model::consumers::consumers;
use restop::model::error_qps::error_qps;
use restop::model::filter::Filter;
use restop::model::{
    DetailScope, Object, OwnerKey, ProcessKey, ResourceType, Snapshot, TypeCounts, WarningKind,
};
use restop::nldev::NldevClient;
use restop::nldev::consts::cmd;
use restop::source::{CollectRequest, Source};
use std::collections::BTreeMap;
use std::time::Duration;

fn source(kernel: FakeKernel, proc: &FakeProc, interval: Duration) -> LiveSource<FakeKernel> {
    let options = LiveOptions {
        object_interval: interval,
        proc_root: proc.root().to_path_buf(),
        sys_root: proc.root().join("no-sysfs"),
        ..LiveOptions::default()
    };
    LiveSource::with_client(NldevClient::new(kernel), options)
}

fn collect(src: &mut LiveSource<FakeKernel>) -> Snapshot {
    src.collect(&CollectRequest::default()).expect("collect")
}

fn key(pid: u32) -> OwnerKey {
    OwnerKey::Process(ProcessKey {
        pid,
        start_time: u64::from(pid) * 10,
    })
}

fn counts_of(snapshot: &Snapshot, owner: &OwnerKey) -> TypeCounts {
    let mut total = TypeCounts::default();
    for t in snapshot.tallies.iter().filter(|t| &t.owner == owner) {
        total += &t.counts;
    }
    total
}

fn counts(pairs: &[(ResourceType, u64)]) -> TypeCounts {
    let mut c = TypeCounts::default();
    for (t, n) in pairs {
        c.add(*t, *n);
    }
    c
}

/// Rows per (device, type) in what `rdma -j -d res show <type>` printed.
fn rdma_rows() -> BTreeMap<(String, ResourceType), u64> {
    let mut rows = BTreeMap::new();
    for (t, name) in [
        (ResourceType::Qp, "06-res-qp-d-json"),
        (ResourceType::Cq, "07-res-cq-d-json"),
        (ResourceType::Mr, "08-res-mr-d-json"),
        (ResourceType::Pd, "09-res-pd-d-json"),
        (ResourceType::CmId, "10-res-cm_id-d-json"),
        (ResourceType::Ctx, "11-res-ctx-d-json"),
        (ResourceType::Srq, "12-res-srq-d-json"),
    ] {
        let path = format!(
            "{}/tests/fixtures/netlink/{name}.out",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        for row in json.as_array().unwrap() {
            let dev = row["ifname"].as_str().unwrap().to_string();
            *rows.entry((dev, t)).or_insert(0) += 1;
        }
    }
    rows
}

#[test]
fn devices_carry_summary_ports_and_details() {
    let proc = FakeProc::captured_host();
    let snap = collect(&mut source(
        FakeKernel::captured_host(),
        &proc,
        Duration::ZERO,
    ));
    let names: Vec<&str> = snap.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["rxe0", "rxe1"]);
    let rxe0 = &snap.devices[0];
    assert_eq!(rxe0.usage.current(ResourceType::Qp), Some(25));
    assert_eq!(rxe0.usage.current(ResourceType::Ctx), Some(9));
    assert_eq!(rxe0.usage.current(ResourceType::Srq), Some(3));
    assert_eq!(rxe0.ports.len(), 1);
    assert_eq!(rxe0.ports[0].netdev.as_deref(), Some("lo"));
    assert_eq!(snap.devices[1].ports[0].netdev.as_deref(), Some("dummy0"));
    assert_eq!(rxe0.node_type.as_deref(), Some("CA"));
    assert!(rxe0.objects.collected_at_ms.is_some());
    assert_eq!(snap.meta.netns_mode, Some(restop::model::NetnsMode::Shared));
}

#[test]
fn tallies_add_up_to_every_dumped_object() {
    let proc = FakeProc::captured_host();
    let snap = collect(&mut source(
        FakeKernel::captured_host(),
        &proc,
        Duration::ZERO,
    ));
    let mut ours: BTreeMap<(String, ResourceType), u64> = BTreeMap::new();
    for tally in &snap.tallies {
        for (t, n) in tally.counts.iter().filter(|(_, n)| *n > 0) {
            *ours.entry((snap.device_name(tally.device), t)).or_insert(0) += n;
        }
    }
    assert_eq!(ours, rdma_rows());
}

#[test]
fn worker_thread_objects_are_counted_under_their_process() {
    let proc = FakeProc::captured_host();
    let snap = collect(&mut source(
        FakeKernel::captured_host(),
        &proc,
        Duration::ZERO,
    ));
    use ResourceType::*;
    // rping server: its own ctx, PD and 2 CM_IDs, plus worker 664's CM_ID, PD, CQ, QP and 4 MRs.
    assert_eq!(
        counts_of(&snap, &key(659)),
        counts(&[(CmId, 3), (Ctx, 1), (Pd, 2), (Cq, 1), (Qp, 1), (Mr, 4)])
    );
    let info = snap
        .processes
        .iter()
        .find(|p| p.key.pid == 659)
        .expect("rping is listed");
    assert_eq!(info.creator_threads, [(664, "rping".to_string())]);
    assert!(
        snap.processes.iter().all(|p| p.key.pid != 664),
        "a thread is never a row of its own"
    );
}

#[test]
fn kernel_and_unattributed_rows_are_explicit() {
    let proc = FakeProc::captured_host();
    let snap = collect(&mut source(
        FakeKernel::captured_host(),
        &proc,
        Duration::ZERO,
    ));
    use ResourceType::*;
    assert_eq!(
        counts_of(&snap, &OwnerKey::Kernel("ib_core".into())),
        counts(&[(Qp, 2), (Cq, 2), (Pd, 2)])
    );
    // ib_write_bw 676 exited before procfs was read: nothing leads to an owner.
    assert_eq!(
        counts_of(&snap, &OwnerKey::Unattributed),
        counts(&[(Qp, 1), (Cq, 1), (Mr, 1), (Pd, 1), (Ctx, 1)])
    );
    assert!(
        snap.meta
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::Unattributed)
    );
    let rows = consumers(&snap, &Filter::default());
    assert!(rows.iter().any(|c| c.name == "[ib_core]"));
    assert!(rows.iter().any(|c| c.name == "(unattributed)"));
}

#[test]
fn error_qps_are_kept_with_their_owner() {
    let proc = FakeProc::captured_host();
    let snap = collect(&mut source(
        FakeKernel::captured_host(),
        &proc,
        Duration::ZERO,
    ));
    let errors = error_qps(&snap, &Filter::default());
    let found: Vec<(String, u32, Option<u32>)> = errors
        .iter()
        .map(|e| (e.device.clone(), e.qp.lqpn, e.pid()))
        .collect();
    assert_eq!(
        found,
        [
            ("rxe0".to_string(), 34, Some(679)),
            ("rxe0".to_string(), 35, Some(679))
        ]
    );
    assert_eq!(errors[0].owner_name, "rxe_helper");
}

#[test]
fn mr_bytes_are_summed_per_process() {
    let proc = FakeProc::captured_host();
    let snap = collect(&mut source(
        FakeKernel::captured_host(),
        &proc,
        Duration::ZERO,
    ));
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/netlink/08-res-mr-d-json.out",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let rows: serde_json::Value = serde_json::from_str(&text).unwrap();
    let expected: u64 = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["pid"] == 679)
        .map(|r| r["mrlen"].as_u64().unwrap())
        .sum();
    let ours: u64 = snap
        .tallies
        .iter()
        .filter(|t| t.owner == key(679))
        .map(|t| t.mr_bytes)
        .sum();
    assert_eq!(ours, expected);
}

#[test]
fn object_dumps_follow_their_own_cadence() {
    let proc = FakeProc::captured_host();
    let mut src = source(
        FakeKernel::captured_host(),
        &proc,
        Duration::from_secs(3600),
    );
    let first = collect(&mut src);
    let second = collect(&mut src);
    assert_eq!(
        first.tallies, second.tallies,
        "tallies are reused between dumps"
    );
    let forced = src
        .collect(&CollectRequest {
            force_objects: true,
            ..CollectRequest::default()
        })
        .unwrap();
    assert_eq!(forced.tallies, first.tallies);
    let kernel = src_kernel(src);
    assert_eq!(kernel.count(cmd::RES_GET), 3, "summary every collection");
    assert_eq!(
        kernel.count(cmd::RES_QP_GET),
        2 * 2,
        "QP dumps: 2 rounds x 2 devices"
    );
}

fn src_kernel(src: LiveSource<FakeKernel>) -> FakeKernel {
    src.into_client().into_transport()
}

#[test]
fn asking_for_a_process_in_detail_dumps_again_and_keeps_its_objects() {
    let proc = FakeProc::captured_host();
    let mut src = source(
        FakeKernel::captured_host(),
        &proc,
        Duration::from_secs(3600),
    );
    let plain = collect(&mut src);
    assert!(
        plain
            .objects
            .iter()
            .all(|o| matches!(o, Object::Qp(q) if q.state.is_error()))
    );
    let detailed = src
        .collect(&CollectRequest {
            details: DetailScope::Processes([679].into_iter().collect()),
            force_objects: false,
        })
        .unwrap();
    let mrs = detailed
        .objects
        .iter()
        .filter(|o| matches!(o, Object::Mr(_)) && o.owner() == &key(679))
        .count();
    assert_eq!(mrs, 7);
}

#[test]
fn a_vanished_device_is_reported_and_the_rest_still_shown() {
    let proc = FakeProc::captured_host();
    let mut kernel = FakeKernel::captured_host();
    // rxe1 answers the summary (taken first) but is gone for everything after.
    let summary = kernel.clone_summary();
    kernel.remove_device(1);
    kernel.restore_summary(summary);
    let snap = collect(&mut source(kernel, &proc, Duration::ZERO));
    assert_eq!(snap.devices.len(), 2);
    assert!(
        snap.meta
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::DeviceVanished && w.message.contains("rxe1")),
        "{:?}",
        snap.meta.warnings
    );
    let rxe0_qps: u64 = snap
        .tallies
        .iter()
        .filter(|t| t.device == 0)
        .map(|t| t.counts[ResourceType::Qp])
        .sum();
    assert_eq!(rxe0_qps, 25);
    assert!(snap.tallies.iter().all(|t| t.device == 0));
}

#[test]
fn no_rdma_in_this_kernel_is_a_clear_error() {
    // This development machine's kernel has no RDMA; on one that does, this
    // test only checks that opening works.
    match LiveSource::open(LiveOptions::default()) {
        Ok(_) => {}
        Err(e) => {
            let message = e.to_string();
            assert!(message.contains("--demo"), "{message}");
        }
    }
}
