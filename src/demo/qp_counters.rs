//! QP-bound counters on the simulated host (`rdma statistic qp show`), so
//! the drill-down's bound-counter line, `ports[].bound_counters` and the
//! exporter's per-counter series have something to show in `--demo`.
//!
//! The story: the database admin bound `postgres`'s replication QPs on
//! `mlx5_0` port 1 in auto mode (`rdma statistic qp set link mlx5_0/1 auto
//! type on`: one counter for the process's RC QPs, whichever exist now);
//! the storage team bound two QPs of `nvmf_tgt`'s `reactor_1` thread on
//! `mlx5_1` port 1 by hand (`rdma statistic qp bind ...`), and they see the
//! out-of-sequence storm of that port (see `counters.rs`) in them. Values
//! are pure functions of simulated time, so the same seed and step give the
//! same reads; they never go down.

use super::clock::SimMs;
use super::counter_traffic::{STORM_LEN_S, STORM_PERIOD_S, STORM_START_S, windows_elapsed};
use super::host::{MLX5_0, MLX5_1};
use super::scenario::World;
use super::workloads::SimOwner;
use crate::model::counters::bound::BoundCounter;
use crate::model::{Device, Object, QpType, ReportedOwner};
use std::collections::BTreeMap;

/// Which QPs of whom a counter holds.
#[derive(Clone, Copy, Debug)]
enum Bind {
    /// Every RC QP of the process on the port, as auto mode binds them.
    Auto,
    /// The `n` lowest-numbered RC QPs a thread created, bound by hand.
    Manual { thread: u32, n: usize },
}

struct Binding {
    id: u32,
    device: u32,
    port: u32,
    pid: u32,
    bind: Bind,
    /// Seconds the counter had been counting at the demo's epoch.
    age_at_epoch_s: f64,
    /// Counters that move steadily: (kernel name, per second).
    steady: &'static [(&'static str, f64)],
    /// Counters that move only during the port's storm: (name, per second).
    storm: &'static [(&'static str, f64)],
}

const POSTGRES_PID: u32 = 2_290;
const NVMF_TGT_PID: u32 = 4_121;
const NVMF_REACTOR_1: u32 = 4_125;

const BINDINGS: [Binding; 2] = [
    Binding {
        id: 1,
        device: MLX5_0,
        port: 1,
        pid: POSTGRES_PID,
        bind: Bind::Auto,
        age_at_epoch_s: 6.0 * 3_600.0,
        steady: &[
            ("rx_write_requests", 2_450.0),
            ("rx_read_requests", 35.0),
            ("duplicate_request", 1.0 / 900.0),
            ("local_ack_timeout_err", 1.0 / 3_600.0),
        ],
        storm: &[],
    },
    Binding {
        id: 2,
        device: MLX5_1,
        port: 1,
        pid: NVMF_TGT_PID,
        bind: Bind::Manual {
            thread: NVMF_REACTOR_1,
            n: 2,
        },
        age_at_epoch_s: 40.0 * 60.0,
        steady: &[
            ("rx_write_requests", 5_200.0),
            ("rx_read_requests", 2_100.0),
        ],
        storm: &[
            ("out_of_sequence", 14.0),
            ("packet_seq_err", 0.5),
            ("duplicate_request", 2.0),
            ("roce_adp_retrans", 1.5),
        ],
    },
];

/// Names every QP counter read lists, moving or not (as mlx5 lists them).
const STILL: &[&str] = &[
    "duplicate_request",
    "local_ack_timeout_err",
    "out_of_buffer",
    "out_of_sequence",
    "packet_seq_err",
    "rnr_nak_retry_err",
    "roce_adp_retrans",
    "rx_atomic_requests",
    "rx_read_requests",
    "rx_write_requests",
];

/// Gives the bound ports of `devices` their QP-bound counters as of `now`.
/// A counter whose QPs are all gone is not listed (the kernel frees it).
pub(super) fn attach(world: &World, devices: &mut [Device], now: SimMs) {
    for binding in &BINDINGS {
        let qps = bound_qps(world, binding);
        if qps.is_empty() {
            continue;
        }
        let port = devices
            .iter_mut()
            .filter(|d| d.index == binding.device)
            .flat_map(|d| d.ports.iter_mut())
            .find(|p| p.index == binding.port)
            .and_then(|p| p.counters.as_mut());
        let Some(port) = port else { continue };
        let reported = match binding.bind {
            Bind::Auto => binding.pid,
            Bind::Manual { thread, .. } => thread,
        };
        port.bound.push(BoundCounter {
            id: binding.id,
            mode: Some(mode(binding.bind).to_string()),
            reported: ReportedOwner::Task(reported),
            qps,
            counters: values(binding, now),
        });
    }
}

fn mode(bind: Bind) -> &'static str {
    match bind {
        Bind::Auto => "auto",
        Bind::Manual { .. } => "manual",
    }
}

/// The QP numbers `binding` holds now, lowest first.
fn bound_qps(world: &World, binding: &Binding) -> Vec<u32> {
    let mut qps = Vec::new();
    let owner = world.workloads().iter().find(|w| match &w.owner {
        SimOwner::Process(p) => p.key.pid == binding.pid,
        _ => false,
    });
    let Some(workload) = owner else {
        return qps;
    };
    for footprint in &workload.footprints {
        footprint.emit(&workload.attribution, &mut |object| {
            let Object::Qp(qp) = object else { return };
            let on_port = qp.device == binding.device && qp.port == Some(binding.port);
            let by = match binding.bind {
                Bind::Auto => true,
                Bind::Manual { thread, .. } => qp.reported == ReportedOwner::Task(thread),
            };
            if on_port && by && qp.qp_type == QpType::Rc {
                qps.push(qp.lqpn);
            }
        });
    }
    qps.sort_unstable();
    if let Bind::Manual { n, .. } = binding.bind {
        qps.truncate(n);
    }
    qps
}

/// The counter's values at `now`: every name mlx5 lists, the moving ones
/// grown since the counter was allocated.
fn values(binding: &Binding, now: SimMs) -> BTreeMap<String, u64> {
    let t = now as f64 / 1000.0;
    let counting = binding.age_at_epoch_s + t;
    let mut out: BTreeMap<String, u64> = STILL.iter().map(|k| (k.to_string(), 0)).collect();
    let mut add = |k: &str, v: f64| {
        *out.entry(k.to_string()).or_default() += v.max(0.0).floor() as u64;
    };
    for (k, per_s) in binding.steady {
        add(k, per_s * counting);
    }
    let storm = windows_elapsed(t, STORM_START_S, STORM_PERIOD_S, STORM_LEN_S);
    for (k, per_s) in binding.storm {
        add(k, per_s * storm);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn world_at(seconds: u64) -> World {
        let mut world = World::new(1);
        for _ in 0..seconds / 2 {
            world.advance(Duration::from_secs(2));
        }
        world
    }

    #[test]
    fn postgres_has_every_rc_qp_and_nvmf_tgt_two_of_reactor_1() {
        let world = world_at(10);
        let postgres = bound_qps(&world, &BINDINGS[0]);
        assert!((7..=9).contains(&postgres.len()), "{postgres:?}");
        let nvmf = bound_qps(&world, &BINDINGS[1]);
        assert_eq!(nvmf.len(), 2, "{nvmf:?}");
        assert!(nvmf[0] < nvmf[1]);
    }

    #[test]
    fn values_move_never_go_down_and_the_storm_shows_in_nvmf_tgts() {
        let mut last = values(&BINDINGS[1], 0);
        for at in (2_000..700_000).step_by(2_000) {
            let now = values(&BINDINGS[1], at);
            for (k, v) in &now {
                assert!(*v >= last[k], "{k} went down at {at}");
            }
            last = now;
        }
        let (before, during) = (values(&BINDINGS[1], 30_000), values(&BINDINGS[1], 32_000));
        assert_eq!(during["out_of_sequence"] - before["out_of_sequence"], 28);
        assert!(during["rx_write_requests"] > before["rx_write_requests"]);
        let (a, b) = (values(&BINDINGS[0], 30_000), values(&BINDINGS[0], 32_000));
        assert_eq!(
            a["out_of_sequence"], b["out_of_sequence"],
            "no storm on mlx5_0"
        );
        assert!(b["rx_write_requests"] > a["rx_write_requests"]);
    }
}
