//! The demo source as views see it: snapshots shaped like live ones, totals
//! that add up, and the scenario's events where the scenario puts them.

use restop::demo::DemoSource;
use restop::model::error_qps::error_qps;
use restop::model::filter::Filter;
use restop::model::{
    DetailScope, Object, OwnerKey, PortState, ProcessKey, QpState, ResourceType, Snapshot,
    SourceKind,
};
use restop::source::{CollectRequest, Source};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::OnceLock;
use std::time::Duration;

const SEED: u64 = 7;
const EPOCH_MS: u64 = 1_767_225_600_000;
const TICKS: usize = 300;

/// 301 snapshots, one per simulated second from the epoch, with the default
/// request. Shared: collecting them is the slow part of these tests.
fn run() -> &'static [Snapshot] {
    static RUN: OnceLock<Vec<Snapshot>> = OnceLock::new();
    RUN.get_or_init(|| {
        let mut source = DemoSource::new(SEED, Duration::from_secs(1));
        let request = CollectRequest::default();
        (0..=TICKS)
            .map(|_| source.collect(&request).unwrap())
            .collect()
    })
}

fn at_second(s: u64) -> &'static Snapshot {
    &run()[s as usize]
}

fn seconds(snapshot: &Snapshot) -> u64 {
    (snapshot.meta.collected_at_ms.as_u64() - EPOCH_MS) / 1000
}

/// The process shown under `name` (its display name, as in the consumers table).
fn key_of(snapshot: &Snapshot, name: &str) -> Option<ProcessKey> {
    snapshot
        .processes
        .iter()
        .find(|p| p.display_name() == name)
        .map(|p| p.key)
}

fn holdings(snapshot: &Snapshot, key: ProcessKey, t: ResourceType) -> u64 {
    snapshot
        .tallies
        .iter()
        .filter(|tally| tally.owner == OwnerKey::Process(key))
        .map(|tally| tally.counts.get(t))
        .sum()
}

fn ratio(snapshot: &Snapshot, device: &str, t: ResourceType) -> f64 {
    let d = snapshot.devices.iter().find(|d| d.name == device).unwrap();
    d.usage.get(t).unwrap().ratio().unwrap()
}

#[test]
fn the_source_says_it_is_a_demo() {
    let source = DemoSource::new(1, Duration::from_secs(1));
    assert_eq!(source.kind(), SourceKind::Demo);
    let meta = &at_second(0).meta;
    assert_eq!(meta.source, SourceKind::Demo);
    assert_eq!(meta.host, "demo-gpu-node-01");
    assert!(meta.kernel.contains("simulated"));
    assert!(meta.hidden_fields.is_empty());
}

#[test]
fn same_seed_and_requests_give_identical_snapshots() {
    let requests = [
        CollectRequest::default(),
        CollectRequest {
            details: DetailScope::Processes([21_407, 28_211].into_iter().collect()),
            force_objects: false,
        },
        CollectRequest {
            details: DetailScope::All,
            force_objects: true,
        },
    ];
    let mut a = DemoSource::new(42, Duration::from_secs(2));
    let mut b = DemoSource::new(42, Duration::from_secs(2));
    let mut c = DemoSource::new(43, Duration::from_secs(2));
    let mut differs = false;
    for i in 0..24 {
        let request = &requests[i % requests.len()];
        let (x, y, z) = (
            a.collect(request).unwrap(),
            b.collect(request).unwrap(),
            c.collect(request).unwrap(),
        );
        assert_eq!(x, y, "collection {i}");
        differs |= x != z;
    }
    assert!(differs, "another seed tells another story");
}

#[test]
fn the_clock_starts_at_the_epoch_and_moves_by_the_step() {
    let mut source = DemoSource::new(1, Duration::from_millis(2_500));
    let times: Vec<u64> = (0..4)
        .map(|_| {
            source
                .collect(&CollectRequest::default())
                .unwrap()
                .meta
                .collected_at_ms
                .as_u64()
        })
        .collect();
    assert_eq!(
        times,
        [
            EPOCH_MS,
            EPOCH_MS + 2_500,
            EPOCH_MS + 5_000,
            EPOCH_MS + 7_500
        ]
    );
    let d = &at_second(3).devices[0];
    assert_eq!(
        d.objects.collected_at_ms,
        Some(restop::model::UnixMs(EPOCH_MS + 3_000))
    );
    assert!(at_second(3).meta.collect_us > 1_000);
}

#[test]
fn usage_equals_the_sum_of_tallies_for_every_device_and_type() {
    for snapshot in run() {
        for device in &snapshot.devices {
            for t in ResourceType::ALL {
                let tallied: u64 = snapshot
                    .tallies
                    .iter()
                    .filter(|tally| tally.device == device.index)
                    .map(|tally| tally.counts.get(t))
                    .sum();
                assert_eq!(
                    device.usage.current(t),
                    Some(tallied),
                    "{} {t} at {} s",
                    device.name,
                    seconds(snapshot)
                );
            }
        }
    }
}

#[test]
fn devices_look_like_a_connectx_with_sriov() {
    let snapshot = at_second(0);
    let names: Vec<&str> = snapshot.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4"]);
    let pf0 = &snapshot.devices[0];
    assert_eq!(pf0.pci.as_deref(), Some("0000:17:00.0"));
    assert_eq!(pf0.node_type.as_deref(), Some("CA"));
    assert_eq!(pf0.ports[0].netdev.as_deref(), Some("ens1f0np0"));
    assert_eq!(pf0.usage.get(ResourceType::Qp).unwrap().max, Some(131_072));
    assert_eq!(pf0.usage.get(ResourceType::CmId).unwrap().max, None);
    let down: Vec<&str> = snapshot
        .devices
        .iter()
        .filter(|d| d.ports.iter().any(|p| p.state == Some(PortState::Down)))
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(down, ["mlx5_4"]);
}

#[test]
fn one_vf_sits_in_the_warning_band_and_one_in_the_critical_band() {
    for snapshot in run() {
        let qp = ratio(snapshot, "mlx5_2", ResourceType::Qp);
        assert!((0.80..0.95).contains(&qp), "mlx5_2 qp {qp}");
        let mr = ratio(snapshot, "mlx5_3", ResourceType::Mr);
        assert!((0.95..1.0).contains(&mr), "mlx5_3 mr {mr}");
        for d in &snapshot.devices {
            for (t, entry) in &d.usage.0 {
                assert!(entry.ratio().unwrap_or(0.0) < 1.0, "{} {t} full", d.name);
            }
        }
    }
}

#[test]
fn the_leaker_only_grows() {
    let key = key_of(at_second(0), "leaky_svc").unwrap();
    for t in [ResourceType::Mr, ResourceType::Qp] {
        let counts: Vec<u64> = run()[..=60].iter().map(|s| holdings(s, key, t)).collect();
        assert!(
            counts.windows(2).all(|w| w[0] <= w[1]),
            "{t} went down: {counts:?}"
        );
        let per_two_seconds = if t == ResourceType::Mr { 3 } else { 1 };
        assert_eq!(counts[60] - counts[0], 30 * per_two_seconds, "{t}");
    }
}

#[test]
fn an_err_qp_shows_up_in_the_first_half_minute_with_its_owner() {
    let found = run()[..=30].iter().find_map(|s| {
        error_qps(s, &Filter::default())
            .into_iter()
            .find(|e| e.qp.state == QpState::Err)
    });
    let e = found.expect("an ERR QP within 30 s");
    assert!(e.pid().is_some());
    assert!(
        ["train.py", "pretrain_moe.py", "tritonserver"].contains(&e.owner_name.as_str()),
        "{}",
        e.owner_name
    );
}

#[test]
fn err_qps_are_counted_in_the_tallies_too() {
    for snapshot in run() {
        let listed = error_qps(snapshot, &Filter::default()).len() as u64;
        let tallied: u64 = snapshot.tallies.iter().map(|t| t.qp_states.errors()).sum();
        assert_eq!(listed, tallied, "at {} s", seconds(snapshot));
    }
}

#[test]
fn a_finished_benchmark_leaves_nothing_behind() {
    let first = at_second(0);
    let key = key_of(first, "ib_write_bw").unwrap();
    assert_eq!(holdings(first, key, ResourceType::Qp), 4);
    for snapshot in &run()[41..=69] {
        assert!(
            snapshot
                .tallies
                .iter()
                .all(|t| t.owner != OwnerKey::Process(key))
        );
        assert!(snapshot.process(&key).is_none());
    }
}

#[test]
fn a_reused_pid_is_told_apart_by_its_start_time() {
    let mut by_pid: BTreeMap<u32, BTreeSet<(u64, String)>> = BTreeMap::new();
    for snapshot in run() {
        for p in &snapshot.processes {
            by_pid
                .entry(p.key.pid)
                .or_default()
                .insert((p.key.start_time, p.comm.clone()));
        }
    }
    let reused: Vec<_> = by_pid.values().filter(|v| v.len() > 1).collect();
    assert!(!reused.is_empty(), "no pid was reused");
    let comms: BTreeSet<&str> = reused[0].iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(comms, ["ib_read_bw", "ib_write_bw"].into_iter().collect());
}

#[test]
fn the_moe_job_fails_exits_and_comes_back_with_new_pids() {
    let before: BTreeSet<ProcessKey> = moe_keys(at_second(140));
    assert_eq!(before.len(), 2);
    let failing = at_second(155);
    for key in &before {
        let qps = holdings(failing, *key, ResourceType::Qp);
        let errs: u64 = failing
            .tallies
            .iter()
            .filter(|t| t.owner == OwnerKey::Process(*key))
            .map(|t| t.qp_states.get(QpState::Err))
            .sum();
        assert_eq!(errs, qps, "every QP of the failing job is in ERR");
    }
    assert!(moe_keys(at_second(170)).is_empty());
    let after = moe_keys(at_second(185));
    assert_eq!(after.len(), 2);
    assert!(after.is_disjoint(&before));
}

fn moe_keys(snapshot: &Snapshot) -> BTreeSet<ProcessKey> {
    snapshot
        .processes
        .iter()
        .filter(|p| p.cmdline.iter().any(|a| a == "pretrain_moe.py"))
        .map(|p| p.key)
        .collect()
}

#[test]
fn errors_only_keeps_only_err_and_sqe_qps() {
    let mut kept = 0;
    for snapshot in run() {
        for object in &snapshot.objects {
            assert!(
                matches!(object, Object::Qp(qp) if qp.state.is_error()),
                "{object:?}"
            );
            kept += 1;
        }
    }
    assert!(kept > 0);
}

#[test]
fn process_scope_keeps_every_object_of_that_process() {
    let mut source = DemoSource::new(SEED, Duration::from_secs(1));
    let mut snapshot = source.collect(&CollectRequest::default()).unwrap();
    let key = key_of(&snapshot, "nvmf_tgt").unwrap();
    for _ in 0..20 {
        snapshot = source
            .collect(&CollectRequest {
                details: DetailScope::Processes([key.pid].into_iter().collect()),
                force_objects: false,
            })
            .unwrap();
    }
    let owned: u64 = snapshot
        .tallies
        .iter()
        .filter(|t| t.owner == OwnerKey::Process(key))
        .map(|t| t.counts.total())
        .sum();
    let kept = snapshot
        .objects
        .iter()
        .filter(|o| o.owner() == &OwnerKey::Process(key))
        .count() as u64;
    assert_eq!(kept, owned);
    let others_are_errors = snapshot
        .objects
        .iter()
        .filter(|o| o.owner() != &OwnerKey::Process(key))
        .all(|o| matches!(o, Object::Qp(qp) if qp.state.is_error()));
    assert!(others_are_errors);
}

#[test]
fn every_owning_process_is_described_and_every_described_process_owns_something() {
    for snapshot in run().iter().step_by(10) {
        let tallied: BTreeSet<ProcessKey> = snapshot
            .tallies
            .iter()
            .filter_map(|t| match t.owner {
                OwnerKey::Process(k) => Some(k),
                _ => None,
            })
            .collect();
        let described: BTreeSet<ProcessKey> = snapshot.processes.iter().map(|p| p.key).collect();
        assert_eq!(tallied, described);
    }
}

#[test]
fn the_host_has_the_promised_cast() {
    let snapshot = at_second(0);
    let kernel: BTreeSet<&str> = snapshot
        .tallies
        .iter()
        .filter_map(|t| match &t.owner {
            OwnerKey::Kernel(name) => Some(name.as_str()),
            _ => None,
        })
        .collect();
    for module in ["ib_core", "nvme_rdma", "mlx5_ib"] {
        assert!(kernel.contains(module), "{module}");
    }
    assert!(
        snapshot
            .tallies
            .iter()
            .any(|t| t.owner == OwnerKey::Unattributed)
    );
    let trainers = snapshot
        .processes
        .iter()
        .filter(|p| p.comm == "pt_main_thread")
        .count();
    assert!(trainers >= 4);
    assert!(
        snapshot
            .processes
            .iter()
            .filter(|p| p.comm == "pt_main_thread")
            .all(|p| p.container.as_ref().is_some_and(|c| c.pod.is_some()))
    );
    let threaded = snapshot
        .processes
        .iter()
        .find(|p| p.comm == "tritonserver")
        .unwrap();
    assert!(!threaded.creator_threads.is_empty());
}

/// Checks the whole object set of one snapshot the way the kernel would keep it.
fn assert_consistent(snapshot: &Snapshot) {
    let mut seen = HashSet::new();
    let mut pds: HashSet<(u32, u32, OwnerKey)> = HashSet::new();
    let mut qps: HashSet<(u32, u32)> = HashSet::new();
    let mut ctxs: BTreeMap<(u32, OwnerKey), u32> = BTreeMap::new();
    for o in &snapshot.objects {
        let key = (o.device(), o.resource_type(), o.dedup_key().unwrap());
        assert!(seen.insert(key), "duplicate {o:?}");
        match o {
            Object::Pd(pd) => {
                pds.insert((pd.device, pd.pdn.unwrap(), pd.owner.clone()));
            }
            Object::Qp(qp) => {
                qps.insert((qp.device, qp.lqpn));
            }
            Object::Ctx(ctx) => *ctxs.entry((ctx.device, ctx.owner.clone())).or_default() += 1,
            _ => {}
        }
    }
    for o in &snapshot.objects {
        if let Some(pdn) = o.pdn() {
            assert!(
                pds.contains(&(o.device(), pdn, o.owner().clone())),
                "{o:?} names a PD its owner does not hold"
            );
        }
        if let Object::CmId(cm) = o
            && let Some(lqpn) = cm.lqpn
        {
            assert!(qps.contains(&(cm.device, lqpn)), "{cm:?}");
        }
        if let Object::Srq(srq) = o {
            for (first, last) in &srq.qp_ranges {
                assert!(qps.contains(&(srq.device, *first)) && qps.contains(&(srq.device, *last)));
            }
        }
    }
    for tally in &snapshot.tallies {
        if let OwnerKey::Process(_) = tally.owner {
            assert_eq!(
                ctxs.get(&(tally.device, tally.owner.clone())),
                Some(&1),
                "one user context per process and device"
            );
        }
    }
}

#[test]
fn all_objects_are_consistent_with_each_other() {
    let mut source = DemoSource::new(SEED, Duration::from_secs(3));
    let all = CollectRequest {
        details: DetailScope::All,
        force_objects: false,
    };
    for i in 0..70 {
        // Only look closely now and then: the full object set is large.
        let request = if i % 23 == 0 {
            &all
        } else {
            &CollectRequest::default()
        };
        let snapshot = source.collect(request).unwrap();
        if i % 23 == 0 {
            let total: u64 = snapshot.tallies.iter().map(|t| t.counts.total()).sum();
            assert_eq!(snapshot.objects.len() as u64, total);
            assert_consistent(&snapshot);
        }
    }
}

#[test]
fn a_snapshot_survives_a_json_round_trip() {
    let snapshot = at_second(20);
    let json = serde_json::to_string(snapshot).unwrap();
    let back: Snapshot = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, snapshot);
}

/// `cargo test --release --test demo_source -- --ignored`: the demo must not
/// be what makes the TUI slow.
#[test]
#[ignore = "timing; meaningful in release builds only"]
fn a_collection_takes_well_under_ten_milliseconds() {
    let mut source = DemoSource::new(SEED, Duration::from_secs(1));
    let request = CollectRequest::default();
    source.collect(&request).unwrap();
    let started = std::time::Instant::now();
    let n = 200;
    for _ in 0..n {
        source.collect(&request).unwrap();
    }
    let each = started.elapsed() / n;
    eprintln!("one collection: {each:?}");
    assert!(each < Duration::from_millis(10), "{each:?}");
}
