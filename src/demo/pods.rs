//! The Kubernetes side of the simulated host: it is a GPU node, and its trainers and
//! services run in pods (containerd, the kubelet's systemd cgroup driver), so the POD
//! column, the pod filter and the exporter's `namespace`/`pod`/`container` labels show in
//! `--demo` as on a real node.
//!
//! | namespace     | pod                                | container      | process          |
//! |---------------|------------------------------------|----------------|------------------|
//! | `inference`   | `triton-llama-inference-0`         | `tritonserver` | `tritonserver`   |
//! | `ml-training` | `llama70b-pretrain-worker-3`       | `pytorch`      | `train.py` ×3    |
//! | `team-alice`  | `alice-finetune-llama8b`           | `trainer`      | `finetune.py`    |
//! | `ml-training` | `mixtral-moe-pretrain-worker-1`    | `pytorch`      | `pretrain_moe.py`|
//! | `databases`   | `postgres-primary-0`               | `postgres`     | `postgres`       |
//! | `acme`        | `acme-ingest-6f9c7d8b5-x2kqp`      | `ingest`       | `leaky_svc`      |

use super::clock::SimMs;
use super::host::{MLX5_0, MLX5_1, MLX5_2, MLX5_3};
use super::rng::Rng;
use super::spec::{FootprintSpec, MrPool, QpPool};
use super::workloads::{Blueprint, Role, SimOwner, WithThreads, process, storage_cluster};
use crate::model::{Container, KubeNames, QpType, Runtime};

/// A pod and the container restop's process runs in.
pub(super) struct KubePod {
    pub namespace: &'static str,
    pub name: &'static str,
    pub container: &'static str,
}

pub(super) const TRITON: KubePod = KubePod {
    namespace: "inference",
    name: "triton-llama-inference-0",
    container: "tritonserver",
};
pub(super) const PRETRAIN: KubePod = KubePod {
    namespace: "ml-training",
    name: "llama70b-pretrain-worker-3",
    container: "pytorch",
};
pub(super) const FINETUNE: KubePod = KubePod {
    namespace: "team-alice",
    name: "alice-finetune-llama8b",
    container: "trainer",
};
pub(super) const MOE: KubePod = KubePod {
    namespace: "ml-training",
    name: "mixtral-moe-pretrain-worker-1",
    container: "pytorch",
};
pub(super) const POSTGRES: KubePod = KubePod {
    namespace: "databases",
    name: "postgres-primary-0",
    container: "postgres",
};
pub(super) const INGEST: KubePod = KubePod {
    namespace: "acme",
    name: "acme-ingest-6f9c7d8b5-x2kqp",
    container: "ingest",
};

/// An inference server whose QPs are made by its communication threads, not
/// the main thread: RC QPs by NCCL's service thread, UD QPs by UCX.
pub(super) fn tritonserver() -> Blueprint {
    const NCCL_THREAD: u32 = 9_871;
    const UCX_THREAD: u32 = 9_874;
    let info = process(
        9_803,
        -3 * 3_600_000 - 17 * 60_000,
        "tritonserver",
        &[
            "/opt/tritonserver/bin/tritonserver",
            "--model-repository=/models",
            "--backend-config=vllm,tensor-parallel-size=8",
        ],
        (0, "root"),
        Some(pod(&TRITON)),
    )
    .with_threads(&[(NCCL_THREAD, "NCCL Service 0"), (UCX_THREAD, "ucx-async")]);
    Blueprint {
        role: Role::Inference,
        owner: SimOwner::Process(Box::new(info)),
        specs: vec![
            FootprintSpec::user(MLX5_0, 16, 4095)
                .qps(QpPool::rc(256, 8).created_by(&[NCCL_THREAD]))
                .qps(QpPool {
                    qp_type: QpType::Ud,
                    ..QpPool::rc(8, 0).created_by(&[UCX_THREAD])
                })
                .mrs(MrPool {
                    target: 320,
                    spread: 6,
                    min_shift: 21,
                    max_shift: 29,
                }),
        ],
    }
}

/// One rank of the llama-70b pre-training job: NCCL RC QPs to its peers, a
/// few rdma_cm QPs to the storage cluster, GPU memory registered in chunks.
pub(super) fn pretrain_rank(rank: u32) -> Blueprint {
    let cmdline = [
        "/usr/bin/python3",
        "-u",
        "train.py",
        "--model",
        "llama-70b",
        "--tensor-parallel",
        "8",
        "--pipeline-parallel",
        "4",
        "--global-batch-size",
        "1024",
    ];
    let mut info = process(
        21_407 + rank,
        -5 * 3_600_000 - 42 * 60_000,
        "pt_main_thread",
        &cmdline,
        (1001, "mlops"),
        Some(pod(&PRETRAIN)),
    );
    info.cmdline.push(format!("--local-rank={rank}"));
    Blueprint {
        role: Role::Pretrain,
        owner: SimOwner::Process(Box::new(info)),
        specs: vec![
            FootprintSpec::user(MLX5_2, 8, 4095)
                .qps(QpPool::rc(566, 6))
                .qps(QpPool::rc(4, 0).via_cm(storage_cluster(100)))
                .mrs(MrPool {
                    target: 1_150,
                    spread: 20,
                    min_shift: 21,
                    max_shift: 30,
                }),
        ],
    }
}

/// A LoRA fine-tune registering thousands of small pinned buffers: enough to
/// keep its VF's MR table above 95 %.
pub(super) fn finetune() -> Blueprint {
    let info = process(
        26_730,
        -41 * 60_000,
        "pt_main_thread",
        &[
            "/usr/bin/python3",
            "-u",
            "finetune.py",
            "--model",
            "llama-3.1-8b",
            "--lora-rank",
            "64",
            "--data",
            "/mnt/datasets/alpaca",
        ],
        (1002, "alice"),
        Some(pod(&FINETUNE)),
    );
    Blueprint {
        role: Role::Finetune,
        owner: SimOwner::Process(Box::new(info)),
        specs: vec![
            FootprintSpec::user(MLX5_3, 4, 2047)
                .qps(QpPool::rc(24, 2))
                .mrs(MrPool {
                    target: 7_840,
                    spread: 30,
                    min_shift: 21,
                    max_shift: 23,
                }),
        ],
    }
}

/// One rank of the mixture-of-experts job on mlx5_1 (restarted from time to
/// time with new pids, same pod).
pub(super) fn moe_rank(rank: u32, pid: u32, started: SimMs) -> Blueprint {
    let mut info = process(
        pid,
        started,
        "pt_main_thread",
        &[
            "/usr/bin/python3",
            "-u",
            "pretrain_moe.py",
            "--model",
            "mixtral-8x22b",
            "--expert-parallel",
            "8",
        ],
        (1001, "mlops"),
        Some(pod(&MOE)),
    );
    info.cmdline.push(format!("--local-rank={rank}"));
    Blueprint {
        role: Role::MoeJob,
        owner: SimOwner::Process(Box::new(info)),
        specs: vec![
            FootprintSpec::user(MLX5_1, 8, 4095)
                .qps(QpPool::rc(384, 6))
                .qps(QpPool::rc(4, 0).via_cm(storage_cluster(101)))
                .mrs(MrPool {
                    target: 1_400,
                    spread: 20,
                    min_shift: 21,
                    max_shift: 30,
                }),
        ],
    }
}

/// A containerd container in a Kubernetes pod, with ids derived from the pod
/// name so every run shows the same ones.
pub(super) fn pod(p: &KubePod) -> Container {
    // FNV-1a of the name seeds the id generator.
    let seed = p.name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let mut rng = Rng::new(seed);
    let id: String = (0..4).map(|_| format!("{:016x}", rng.next_u64())).collect();
    let u = format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64());
    let uid = format!(
        "{}-{}-{}-{}-{}",
        u.get(0..8).unwrap_or_default(),
        u.get(8..12).unwrap_or_default(),
        u.get(12..16).unwrap_or_default(),
        u.get(16..20).unwrap_or_default(),
        u.get(20..32).unwrap_or_default()
    );
    Container {
        runtime: Runtime::Containerd,
        id,
        pod: Some(uid),
        kube: Some(KubeNames {
            namespace: p.namespace.to_string(),
            pod: p.name.to_string(),
            container: p.container.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::owner::display_name;

    #[test]
    fn pod_ids_are_stable_and_well_formed() {
        let a = pod(&PRETRAIN);
        assert_eq!(a, pod(&PRETRAIN));
        assert_ne!(a.id, pod(&FINETUNE).id);
        assert_eq!(a.id.len(), 64);
        let uid = a.pod.unwrap();
        assert_eq!(uid.len(), 36);
        assert_eq!(uid.matches('-').count(), 4);
    }

    #[test]
    fn trainers_show_their_script_name() {
        let b = pretrain_rank(1);
        let p = b.owner.process().unwrap();
        assert_eq!(p.comm, "pt_main_thread");
        assert_eq!(display_name(&p.comm, &p.cmdline), "train.py");
        assert_eq!(p.cmdline.last().unwrap(), "--local-rank=1");
    }

    #[test]
    fn every_pod_has_its_names() {
        let c = pod(&INGEST);
        let kube = c.kube.unwrap();
        assert_eq!(
            (
                kube.namespace.as_str(),
                kube.pod.as_str(),
                kube.container.as_str()
            ),
            ("acme", "acme-ingest-6f9c7d8b5-x2kqp", "ingest")
        );
    }
}
