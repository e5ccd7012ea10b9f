//! Who uses RDMA on the simulated host, and what each one holds.
//!
//! | owner                     | devices        | what it looks like                                   |
//! |---------------------------|----------------|------------------------------------------------------|
//! | `[mlx5_ib]`, `[ib_core]`  | every device   | driver PD/CQ/SRQs; the GSI QP1, its CQ and PD        |
//! | `[nvme_rdma]`             | mlx5_1         | NVMe-oF initiator: 2 controllers × 9 queues, FRMRs   |
//! | `[rpcrdma]`               | mlx5_0         | NFS/RDMA mount of the dataset store                  |
//! | (unattributed)            | mlx5_1         | leftovers whose creating thread is gone              |
//! | `nvmf_tgt` (SPDK)         | mlx5_0, mlx5_1 | NVMe-oF target: QPs on SRQs, made by reactor threads  |
//! | `postgres` (pod)          | mlx5_0         | a database replicating over RDMA                     |
//! | `tritonserver`            | mlx5_0         | inference: QPs created by NCCL/UCX worker threads    |
//! | `train.py` ×3 (llama-70b) | mlx5_2 (VF)    | hundreds of RC QPs and ~1150 GPU MRs per rank        |
//! | `finetune.py` (alice)     | mlx5_3 (VF)    | ~7800 small MRs: the VF's MR table ~96 % full         |
//! | `pretrain_moe.py` ×2      | mlx5_1         | the job that crashes and restarts                    |
//! | `ib_*_bw` benchmarks      | mlx5_1         | short runs, one after another                        |
//! | `leaky_svc` (pod)         | mlx5_1         | leaks MRs and QPs, never frees                       |
//!
//! The trainers, the inference server and the services run in Kubernetes pods: `pods.rs`.

use super::clock::{self, SimMs};
use super::footprint::Attribution;
use super::host::{MLX5_0, MLX5_1, MLX5_2, MLX5_3, MLX5_4};
use super::pods;
pub(super) use super::pods::moe_rank;
use super::spec::{CmLink, FootprintSpec, MrPool, QpPool};
use crate::model::{
    Container, OwnerKey, PollContext, ProcessInfo, ProcessKey, QpState, QpType, ReportedOwner,
    SrqType,
};
use std::net::Ipv4Addr;

/// What part an owner plays in the scenario; events pick their targets by role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    Kernel,
    Unattributed,
    Storage,
    Database,
    Inference,
    /// The llama-70b pre-training ranks on the busy VF.
    Pretrain,
    Finetune,
    /// The mixture-of-experts job that crashes and is restarted.
    MoeJob,
    Benchmark,
    Leaker,
}

/// The owner as the simulation knows it.
#[derive(Clone, Debug)]
pub(super) enum SimOwner {
    Process(Box<ProcessInfo>),
    Kernel(&'static str),
    Unattributed,
}

impl SimOwner {
    pub(super) fn attribution(&self) -> Attribution {
        match self {
            SimOwner::Process(p) => Attribution {
                owner: OwnerKey::Process(p.key),
                main: ReportedOwner::Task(p.key.pid),
            },
            SimOwner::Kernel(name) => Attribution {
                owner: OwnerKey::Kernel((*name).to_string()),
                main: ReportedOwner::Kernel((*name).to_string()),
            },
            SimOwner::Unattributed => Attribution {
                owner: OwnerKey::Unattributed,
                main: ReportedOwner::Missing,
            },
        }
    }

    pub(super) fn process(&self) -> Option<&ProcessInfo> {
        match self {
            SimOwner::Process(p) => Some(p.as_ref()),
            _ => None,
        }
    }
}

/// An owner and the footprints it is created with.
#[derive(Clone, Debug)]
pub(super) struct Blueprint {
    pub role: Role,
    pub owner: SimOwner,
    pub specs: Vec<FootprintSpec>,
}

/// Everything running when the demo starts, in the order it was set up
/// (which fixes the object ids, as on a real host).
pub(super) fn initial() -> Vec<Blueprint> {
    let mut out = Vec::new();
    for device in [MLX5_0, MLX5_1, MLX5_2, MLX5_3, MLX5_4] {
        out.push(mlx5_ib(device));
        out.push(ib_core(device));
    }
    out.push(nvme_rdma());
    out.push(rpcrdma());
    out.push(nvmf_tgt());
    out.push(postgres());
    out.push(pods::tritonserver());
    for rank in 0..3 {
        out.push(pods::pretrain_rank(rank));
    }
    out.push(pods::finetune());
    for (rank, pid) in [19_840, 19_841].into_iter().enumerate() {
        out.push(moe_rank(rank as u32, pid, -2 * 3_600_000));
    }
    out.push(unattributed());
    out
}

/// The driver's own objects, made when the device registers.
fn mlx5_ib(device: u32) -> Blueprint {
    Blueprint {
        role: Role::Kernel,
        owner: SimOwner::Kernel("mlx5_ib"),
        specs: vec![
            FootprintSpec::kernel(device, 1, 1, PollContext::Direct)
                .srqs(&[SrqType::Xrc, SrqType::Basic]),
        ],
    }
}

/// The MAD layer: QP1 (GSI) per port. RoCE ports have no QP0 (SMI).
fn ib_core(device: u32) -> Blueprint {
    Blueprint {
        role: Role::Kernel,
        owner: SimOwner::Kernel("ib_core"),
        specs: vec![
            FootprintSpec::kernel(device, 1, 1023, PollContext::UnboundWorkqueue).qps(QpPool {
                qp_type: QpType::Gsi,
                fixed_qpn: Some(1),
                ..QpPool::rc(1, 0)
            }),
        ],
    }
}

/// Two NVMe-oF controllers on a remote array, 1 admin + 8 I/O queues each,
/// a CQ per queue and a fast-registration MR pool.
fn nvme_rdma() -> Blueprint {
    Blueprint {
        role: Role::Kernel,
        owner: SimOwner::Kernel("nvme_rdma"),
        specs: vec![
            FootprintSpec::kernel(MLX5_1, 18, 511, PollContext::Softirq)
                .qps(QpPool::rc(18, 0).via_cm(CmLink {
                    local_port: None,
                    peer_base: Ipv4Addr::new(192, 168, 101, 50),
                    peers: 2,
                    peer_port: Some(4420),
                }))
                .mrs(MrPool {
                    target: 512,
                    spread: 0,
                    min_shift: 12,
                    max_shift: 20,
                }),
        ],
    }
}

/// The NFS/RDMA mount holding the training datasets.
fn rpcrdma() -> Blueprint {
    Blueprint {
        role: Role::Kernel,
        owner: SimOwner::Kernel("rpcrdma"),
        specs: vec![
            FootprintSpec::kernel(MLX5_0, 2, 1023, PollContext::Workqueue)
                .qps(QpPool::rc(1, 0).via_cm(CmLink {
                    local_port: None,
                    peer_base: Ipv4Addr::new(192, 168, 100, 40),
                    peers: 1,
                    peer_port: Some(20_049),
                }))
                .mrs(MrPool {
                    target: 128,
                    spread: 0,
                    min_shift: 12,
                    max_shift: 20,
                }),
        ],
    }
}

/// A few objects nobody can be named for: the thread that created them lives
/// in another PID namespace, so the kernel reports neither pid nor module.
fn unattributed() -> Blueprint {
    Blueprint {
        role: Role::Unattributed,
        owner: SimOwner::Unattributed,
        specs: vec![
            FootprintSpec::user(MLX5_1, 1, 255)
                .qps(QpPool::rc(1, 0))
                .mrs(MrPool {
                    target: 3,
                    spread: 0,
                    min_shift: 21,
                    max_shift: 23,
                }),
        ],
    }
}

/// SPDK's NVMe-oF target: one poll group (CQ + SRQ) per reactor; each host
/// connection's QP is created by the reactor that polls it.
fn nvmf_tgt() -> Blueprint {
    const PID: u32 = 4_121;
    let reactors = [
        (4_125, "reactor_1"),
        (4_126, "reactor_2"),
        (4_127, "reactor_3"),
    ];
    let creators = [PID, 4_125, 4_126, 4_127];
    let info = process(
        PID,
        -12 * 86_400_000 + 95_000,
        "reactor_0",
        &[
            "/opt/spdk/build/bin/nvmf_tgt",
            "-m",
            "0xF",
            "-c",
            "/etc/spdk/nvmf_tgt.json",
        ],
        (0, "root"),
        None,
    )
    .with_threads(&reactors);
    let port = |device: u32, subnet: u8, hosts: u32| {
        FootprintSpec::user(device, 4, 4095)
            .srqs(&[SrqType::Basic; 4])
            .qps(
                QpPool::rc(hosts, 4)
                    .on_srq()
                    .created_by(&creators)
                    .via_cm(CmLink {
                        local_port: Some(4420),
                        peer_base: Ipv4Addr::new(192, 168, subnet, 21),
                        peers: 24,
                        peer_port: None,
                    }),
            )
            .mrs(MrPool {
                target: 32,
                spread: 0,
                min_shift: 21,
                max_shift: 30,
            })
            .listen(4420)
    };
    Blueprint {
        role: Role::Storage,
        owner: SimOwner::Process(Box::new(info)),
        specs: vec![port(MLX5_0, 100, 96), port(MLX5_1, 101, 64)],
    }
}

/// A database streaming to two replicas over RDMA, shared buffers registered.
fn postgres() -> Blueprint {
    let info = process(
        2_290,
        -12 * 86_400_000 + 140_000,
        "postgres",
        &[
            "/usr/lib/postgresql/16/bin/postgres",
            "-D",
            "/var/lib/postgresql/16/main",
            "-c",
            "config_file=/etc/postgresql/16/main/postgresql.conf",
        ],
        (114, "postgres"),
        Some(pods::pod(&pods::POSTGRES)),
    );
    Blueprint {
        role: Role::Database,
        owner: SimOwner::Process(Box::new(info)),
        specs: vec![
            FootprintSpec::user(MLX5_0, 2, 1023)
                .qps(QpPool::rc(8, 1).via_cm(CmLink {
                    local_port: Some(5433),
                    peer_base: Ipv4Addr::new(192, 168, 100, 61),
                    peers: 2,
                    peer_port: None,
                }))
                .mrs(MrPool {
                    target: 24,
                    spread: 0,
                    min_shift: 26,
                    max_shift: 30,
                })
                .listen(5433),
        ],
    }
}

/// Benchmarks someone runs one after another against a peer server.
pub(super) fn benchmark(run: u32, pid: u32, started: SimMs, duration_s: u64) -> Blueprint {
    let (program, qps, size_shift): (&str, u32, u32) = match run % 3 {
        0 => ("ib_write_bw", 4, 16),
        1 => ("ib_read_bw", 8, 20),
        _ => ("ib_send_bw", 2, 12),
    };
    let size = (1u64 << size_shift).to_string();
    let qps_arg = qps.to_string();
    let duration = duration_s.to_string();
    let info = process(
        pid,
        started,
        program,
        &[
            program,
            "-d",
            "mlx5_1",
            "-q",
            &qps_arg,
            "-s",
            &size,
            "-D",
            &duration,
            "--report_gbits",
            "192.168.101.31",
        ],
        (0, "root"),
        None,
    );
    Blueprint {
        role: Role::Benchmark,
        owner: SimOwner::Process(Box::new(info)),
        specs: vec![
            FootprintSpec::user(MLX5_1, 2, 255)
                .qps(QpPool::rc(qps, 0))
                .mrs(MrPool {
                    target: 1,
                    spread: 0,
                    min_shift: (size_shift + 2).max(12),
                    max_shift: (size_shift + 2).max(12),
                }),
        ],
    }
}

/// A service that registers a buffer per request and creates a QP per
/// connection attempt, and never releases either. Its QPs stay in INIT.
pub(super) fn leaker(pid: u32, started: SimMs) -> Blueprint {
    let info = process(
        pid,
        started,
        "leaky_svc",
        &[
            "/opt/acme/bin/leaky_svc",
            "--listen",
            "192.168.101.11:7471",
            "--workers",
            "4",
        ],
        (998, "acme"),
        Some(pods::pod(&pods::INGEST)),
    );
    Blueprint {
        role: Role::Leaker,
        owner: SimOwner::Process(Box::new(info)),
        specs: vec![
            FootprintSpec::user(MLX5_1, 2, 1023)
                .qps(QpPool {
                    healthy: QpState::Init,
                    ..QpPool::rc(0, 0)
                })
                .mrs(MrPool {
                    target: 0,
                    spread: 0,
                    min_shift: 22,
                    max_shift: 22,
                })
                .listen(7471),
        ],
    }
}

/// The storage cluster the trainers read checkpoints and data from.
pub(super) fn storage_cluster(subnet: u8) -> CmLink {
    CmLink {
        local_port: None,
        peer_base: Ipv4Addr::new(192, 168, subnet, 50),
        peers: 4,
        peer_port: Some(20_049),
    }
}

pub(super) trait WithThreads {
    fn with_threads(self, threads: &[(u32, &str)]) -> Self;
}

impl WithThreads for ProcessInfo {
    fn with_threads(mut self, threads: &[(u32, &str)]) -> ProcessInfo {
        self.creator_threads = threads
            .iter()
            .map(|(tid, comm)| (*tid, (*comm).to_string()))
            .collect();
        self
    }
}

pub(super) fn process(
    pid: u32,
    started: SimMs,
    comm: &str,
    cmdline: &[&str],
    (uid, user): (u32, &str),
    container: Option<Container>,
) -> ProcessInfo {
    ProcessInfo {
        key: ProcessKey {
            pid,
            start_time: clock::start_ticks(started),
        },
        comm: comm.chars().take(15).collect(),
        cmdline: cmdline.iter().map(|s| (*s).to_string()).collect(),
        uid: Some(uid),
        user: Some(user.to_string()),
        container,
        started_at: Some(clock::started_at_secs(started)),
        creator_threads: Vec::new(),
        rdma_cgroup: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comm_is_cut_to_fifteen_characters() {
        let p = process(1, 0, "a_very_long_program_name", &[], (0, "root"), None);
        assert_eq!(p.comm.len(), 15);
    }

    #[test]
    fn initial_processes_have_distinct_pids() {
        let mut pids: Vec<u32> = initial()
            .iter()
            .filter_map(|b| b.owner.process())
            .flat_map(|p| {
                std::iter::once(p.key.pid).chain(p.creator_threads.iter().map(|(t, _)| *t))
            })
            .collect();
        let n = pids.len();
        pids.sort();
        pids.dedup();
        assert_eq!(pids.len(), n);
    }
}
