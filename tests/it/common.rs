//! A hand-built snapshot that exercises every part of the report: two
//! physical devices and a VF, a multi-threaded containerised trainer, a
//! process procfs could not read, kernel owners, unattributed objects, QPs in
//! ERR and SQE, a failed object dump and a permission warning.

use restop::model::snapshot::Meta;
use restop::model::{
    Container, Device, DumpStatus, MrKeys, NetnsMode, Object, OwnerKey, PhysState, Port, PortState,
    ProcessInfo, ProcessKey, Qp, QpState, QpType, ReportedOwner, ResourceType, Runtime, Snapshot,
    SourceKind, StateCounts, Tally, TypeCounts, Usage, UsageEntry, Warning, WarningKind,
};

pub const MLX5_0: u32 = 0;
pub const MLX5_1: u32 = 1;
pub const RXE0: u32 = 3;

pub const TRAINER: ProcessKey = ProcessKey {
    pid: 4242,
    start_time: 81_000,
};
pub const BENCH: ProcessKey = ProcessKey {
    pid: 5151,
    start_time: 90_500,
};
pub const TARGET: ProcessKey = ProcessKey {
    pid: 777,
    start_time: 2_000,
};
/// Owns objects but exited before procfs could be read.
pub const GHOST: ProcessKey = ProcessKey {
    pid: 8888,
    start_time: 99_000,
};

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

pub fn fixture() -> Snapshot {
    let _ = MrKeys { rkey: 0, lkey: 0 };
    let mut meta = Meta::new(SourceKind::Live, restop::model::UnixMs(1_795_971_600_123));
    meta.host = "node1".into();
    meta.kernel = "6.1.0-57-amd64".into();
    meta.collect_us = 12_500;
    meta.netns_mode = Some(NetnsMode::Shared);
    meta.hidden_fields = vec![
        "mr.rkey".into(),
        "mr.lkey".into(),
        "pd.local_dma_lkey".into(),
    ];
    meta.warnings = vec![Warning::new(
        WarningKind::Permission,
        "MR keys hidden: needs CAP_NET_ADMIN",
    )];
    Snapshot {
        meta,
        devices: vec![rxe0(), mlx5_1_vf(), mlx5_0()],
        processes: vec![trainer(), bench(), target()],
        tallies: tallies(),
        objects: error_qps(),
    }
}

fn usage(entries: &[(ResourceType, u64, Option<u64>)]) -> Usage {
    let mut u = Usage::default();
    for (t, current, max) in entries {
        u.set(
            *t,
            UsageEntry {
                current: *current,
                max: *max,
                max_source: None,
            },
        );
    }
    u
}

fn port(index: u32, state: PortState, phys: PhysState, netdev: Option<&str>) -> Port {
    Port {
        index,
        state: Some(state),
        phys_state: Some(phys),
        netdev: netdev.map(String::from),
        netdev_index: None,
        counters: None,
    }
}

fn mlx5_0() -> Device {
    use ResourceType::*;
    let mut d = Device::new(MLX5_0, "mlx5_0");
    d.node_guid = Some(0x0c42_a103_0012_3456);
    d.fw_version = Some("20.31.1014".into());
    d.node_type = Some("CA".into());
    d.protocol = Some("roce".into());
    d.pci = Some("0000:17:00.0".into());
    d.ports = vec![
        port(1, PortState::Active, PhysState::LinkUp, Some("ens1f0np0")),
        port(2, PortState::Down, PhysState::Disabled, None),
    ];
    d.usage = usage(&[
        (Qp, 1024, Some(131_072)),
        (Cq, 530, Some(16_777_216)),
        (Mr, 2_100, Some(16_777_216)),
        (Pd, 12, Some(16_777_216)),
        (CmId, 3, None),
        (Ctx, 9, None),
        (Srq, 2, Some(8_388_608)),
    ]);
    d.objects = DumpStatus {
        collected_at_ms: Some(restop::model::UnixMs(1_795_971_600_123)),
        ..DumpStatus::default()
    };
    d
}

fn mlx5_1_vf() -> Device {
    use ResourceType::*;
    let mut d = Device::new(MLX5_1, "mlx5_1");
    d.node_type = Some("CA".into());
    d.protocol = Some("roce".into());
    d.pci = Some("0000:17:00.2".into());
    d.pf = Some("mlx5_0".into());
    d.ports = vec![port(
        1,
        PortState::Active,
        PhysState::LinkUp,
        Some("ens1f0v0"),
    )];
    d.usage = usage(&[
        (Qp, 6, Some(131_072)),
        (Cq, 4, Some(16_777_216)),
        (Mr, 2, Some(16_777_216)),
        (Pd, 1, Some(16_777_216)),
        (CmId, 0, None),
        (Ctx, 1, None),
        (Srq, 0, Some(8_388_608)),
    ]);
    d.objects = DumpStatus {
        collected_at_ms: Some(restop::model::UnixMs(1_795_971_600_123)),
        ..DumpStatus::default()
    };
    d
}

/// Soft-RoCE on an older kernel: no limits, and object dumps lag the summary.
fn rxe0() -> Device {
    use ResourceType::*;
    let mut d = Device::new(RXE0, "rxe0");
    d.node_guid = Some(0x0200_00ff_fe00_0000);
    d.node_type = Some("CA".into());
    d.protocol = Some("roce".into());
    d.ports = vec![port(1, PortState::Active, PhysState::LinkUp, Some("lo"))];
    d.usage = usage(&[
        (Qp, 5, None),
        (Cq, 4, None),
        (Mr, 6, None),
        (Pd, 3, None),
        (CmId, 1, None),
        (Ctx, 2, None),
    ]);
    d.objects = DumpStatus {
        collected_at_ms: Some(restop::model::UnixMs(1_795_971_597_000)),
        errors: vec![(Srq, "Operation not supported (os error 95)".into())],
        ..DumpStatus::default()
    };
    d
}

fn trainer() -> ProcessInfo {
    ProcessInfo {
        key: TRAINER,
        comm: "pt_main_thread".into(),
        cmdline: ["/usr/bin/python3", "-u", "train.py", "--epochs", "90"]
            .map(String::from)
            .to_vec(),
        uid: Some(1000),
        user: Some("alice".into()),
        container: Some(Container {
            runtime: Runtime::Docker,
            id: "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa".into(),
            pod: None,
            kube: None,
        }),
        started_at: Some(1_795_970_000),
        creator_threads: vec![(4250, "pt_nccl_0".into()), (4251, "pt_nccl_1".into())],
        rdma_cgroup: None,
    }
}

fn bench() -> ProcessInfo {
    ProcessInfo {
        key: BENCH,
        comm: "ib_write_bw".into(),
        cmdline: ["ib_write_bw", "-d", "mlx5_1", "--run_infinitely"]
            .map(String::from)
            .to_vec(),
        uid: Some(0),
        user: Some("root".into()),
        container: None,
        started_at: Some(1_795_971_500),
        creator_threads: vec![],
        rdma_cgroup: None,
    }
}

fn target() -> ProcessInfo {
    ProcessInfo {
        key: TARGET,
        comm: "reactor_0".into(),
        cmdline: ["/opt/spdk/bin/nvmf_tgt", "-m", "0x3"]
            .map(String::from)
            .to_vec(),
        uid: Some(1001),
        user: None,
        container: Some(Container {
            runtime: Runtime::Kubernetes,
            id: String::new(),
            pod: Some("9a8b7c6d-1111-2222-3333-444455556666".into()),
            kube: Some(restop::model::KubeNames {
                namespace: "storage".into(),
                pod: "spdk-target-0".into(),
                container: String::new(),
            }),
        }),
        started_at: None,
        creator_threads: vec![],
        rdma_cgroup: None,
    }
}

struct T {
    owner: OwnerKey,
    device: u32,
    counts: [u64; 7],
    mr_bytes: u64,
    states: Vec<(QpState, u64)>,
}

fn tally(t: T) -> Tally {
    let mut counts = TypeCounts::default();
    for (ty, n) in ResourceType::ALL.into_iter().zip(t.counts) {
        counts.add(ty, n);
    }
    let mut qp_states = StateCounts::default();
    for (s, n) in t.states {
        qp_states.add(s, n);
    }
    Tally {
        owner: t.owner,
        device: t.device,
        counts,
        mr_bytes: t.mr_bytes,
        qp_states,
    }
}

fn tallies() -> Vec<Tally> {
    use QpState::*;
    let p = OwnerKey::Process;
    let k = |name: &str| OwnerKey::Kernel(name.into());
    // counts: qp cq mr pd cm_id ctx srq
    vec![
        tally(T {
            owner: p(TRAINER),
            device: MLX5_0,
            counts: [1000, 512, 2048, 8, 0, 8, 2],
            mr_bytes: 48 * GIB,
            states: vec![(Rts, 997), (Err, 2), (Sqe, 1)],
        }),
        tally(T {
            owner: p(TARGET),
            device: MLX5_0,
            counts: [16, 16, 40, 2, 3, 0, 0],
            mr_bytes: 3 * GIB / 2,
            states: vec![(Rts, 16)],
        }),
        tally(T {
            owner: k("ib_core"),
            device: MLX5_0,
            counts: [2, 2, 0, 1, 0, 0, 0],
            mr_bytes: 0,
            states: vec![(Rts, 2)],
        }),
        tally(T {
            owner: OwnerKey::Unattributed,
            device: MLX5_0,
            counts: [6, 0, 12, 1, 0, 1, 0],
            mr_bytes: 96 * MIB,
            states: vec![(Init, 6)],
        }),
        tally(T {
            owner: p(BENCH),
            device: MLX5_1,
            counts: [4, 2, 2, 1, 0, 1, 0],
            mr_bytes: 8 * MIB,
            states: vec![(Rts, 3), (Err, 1)],
        }),
        tally(T {
            owner: k("ib_core"),
            device: MLX5_1,
            counts: [1, 1, 0, 0, 0, 0, 0],
            mr_bytes: 0,
            states: vec![(Rts, 1)],
        }),
        tally(T {
            owner: p(GHOST),
            device: MLX5_1,
            counts: [1, 1, 0, 0, 0, 0, 0],
            mr_bytes: 0,
            states: vec![(Rtr, 1)],
        }),
        tally(T {
            owner: k("ib_core"),
            device: RXE0,
            counts: [1, 1, 0, 1, 0, 0, 0],
            mr_bytes: 0,
            states: vec![(Rts, 1)],
        }),
        tally(T {
            owner: k("rdma_rxe"),
            device: RXE0,
            counts: [0, 0, 0, 0, 1, 0, 0],
            mr_bytes: 0,
            states: vec![],
        }),
        tally(T {
            owner: OwnerKey::Unattributed,
            device: RXE0,
            counts: [4, 3, 6, 2, 0, 2, 0],
            mr_bytes: 4096 * 6,
            states: vec![(Rts, 3), (Err, 1)],
        }),
    ]
}

fn qp(
    device: u32,
    port: Option<u32>,
    lqpn: u32,
    rqpn: Option<u32>,
    state: QpState,
    owner: OwnerKey,
) -> Object {
    let reported = match &owner {
        OwnerKey::Process(k) => ReportedOwner::Task(k.pid),
        OwnerKey::Kernel(n) => ReportedOwner::Kernel(n.clone()),
        OwnerKey::Unattributed => ReportedOwner::Missing,
    };
    Object::Qp(Qp {
        device,
        port,
        lqpn,
        rqpn,
        qp_type: QpType::Rc,
        state,
        pdn: Some(3),
        sq_psn: None,
        rq_psn: None,
        reported,
        owner,
    })
}

/// The QPs kept in detail: every one in ERR or SQE.
fn error_qps() -> Vec<Object> {
    use QpState::*;
    vec![
        qp(
            MLX5_0,
            Some(1),
            4711,
            Some(9021),
            Err,
            OwnerKey::Process(TRAINER),
        ),
        qp(
            MLX5_0,
            Some(1),
            4712,
            Some(9022),
            Sqe,
            OwnerKey::Process(TRAINER),
        ),
        qp(
            MLX5_0,
            Some(1),
            4690,
            Some(9001),
            Err,
            OwnerKey::Process(TRAINER),
        ),
        qp(MLX5_1, Some(1), 301, None, Err, OwnerKey::Process(BENCH)),
        qp(RXE0, None, 17, Some(0), Err, OwnerKey::Unattributed),
    ]
}
