//! The simulated host over time: who is running, and what happens to them.
//!
//! Timeline (simulated seconds from the start; randomised parts depend on the seed):
//!
//! | when                          | what                                                             |
//! |-------------------------------|------------------------------------------------------------------|
//! | every tick                    | busy owners open and close a few connections and buffers        |
//! | every 2 s                     | `leaky_svc` leaks 3 MRs and 1 QP (restarted by systemd after 1 h) |
//! | first at 8–20 s, then 25–60 s | a remote peer dies: 2–8 QPs of a trainer or `tritonserver` go to ERR for 15–40 s, then are destroyed and reconnected |
//! | first at 3–6 s, then 40–90 s  | a UD QP of `tritonserver` hits a send error (SQE) and recovers 5–12 s later |
//! | 40 s                          | the `ib_write_bw` run ends; its objects vanish                   |
//! | 70 s, then every 70 s         | the next benchmark starts (the first one reuses the old pid) and runs 40 s |
//! | 150 s, then every 15 min      | the MoE job loses a node: all its QPs go ERR, its ranks exit 12 s later and are relaunched with new pids 18 s after that |
//! | 5 min, then every 20 min      | `tritonserver`'s peer is decommissioned: 3 of its QPs stay in ERR for 10 min (a lingering problem: a warning after 1 min, critical after 5) |

use super::clock::SimMs;
use super::footprint::{Attribution, Footprint};
use super::host::DEVICE_COUNT;
use super::ids::DeviceIds;
use super::rng::Rng;
use super::workloads::{self, Blueprint, Role, SimOwner};
use crate::model::QpState;
use std::time::Duration;

const BENCH_FIRST_PID: u32 = 28_211;
const BENCH_PERIOD_MS: SimMs = 70_000;
const BENCH_DURATION_S: u64 = 40;

const MOE_FIRST_CRASH_MS: SimMs = 150_000;
const MOE_CRASH_PERIOD_MS: SimMs = 900_000;
const MOE_EXIT_AFTER_MS: SimMs = 12_000;
const MOE_RELAUNCH_AFTER_MS: SimMs = 18_000;

const STUCK_FIRST_MS: SimMs = 300_000;
const STUCK_PERIOD_MS: SimMs = 1_200_000;
const STUCK_FOR_MS: u64 = 600_000;
const STUCK_QPS: usize = 3;

const LEAKER_PID: u32 = 3_377;
const LEAKER_STARTED: SimMs = -6 * 60_000;
const LEAK_PERIOD_MS: SimMs = 2_000;
const LEAK_MRS_PER_PERIOD: u64 = 3;
const LEAK_QPS_PER_PERIOD: u64 = 1;
/// What the service registers and creates at start-up, before leaking.
const LEAK_BASE_MRS: u64 = 4;
const LEAK_BASE_QPS: u64 = 2;
/// systemd's watchdog restarts the leaking service after this long.
const LEAK_RESTART_AFTER_MS: SimMs = 3_600_000;

/// Events of one kind handled per tick at most; with a huge step the rest
/// are skipped rather than replayed one by one.
const MAX_EVENTS_PER_TICK: usize = 8;

/// An owner and what it holds on each device.
#[derive(Clone, Debug)]
pub(super) struct Workload {
    pub role: Role,
    pub owner: SimOwner,
    pub attribution: Attribution,
    pub footprints: Vec<Footprint>,
}

#[derive(Clone, Copy, Debug)]
enum MoePhase {
    Running,
    /// All QPs in ERR; the ranks exit at the given time.
    Failing {
        exit_at: SimMs,
    },
    /// Ranks gone; relaunched at the given time.
    Down {
        relaunch_at: SimMs,
    },
}

#[derive(Clone, Debug)]
pub(super) struct World {
    rng: Rng,
    ids: Vec<DeviceIds>,
    workloads: Vec<Workload>,
    now: SimMs,
    next_peer_loss: SimMs,
    next_send_error: SimMs,
    bench_run: u32,
    /// When the running benchmark ends, if one is running.
    bench_ends: Option<SimMs>,
    next_bench: SimMs,
    moe_phase: MoePhase,
    next_moe_crash: SimMs,
    leaker_started: SimMs,
    next_stuck_peer: SimMs,
}

impl World {
    /// The host as it is at the epoch: everything from [`workloads::initial`],
    /// the leaking service some minutes into its leak, the first benchmark running.
    pub(super) fn new(seed: u64) -> World {
        let mut rng = Rng::new(seed);
        let next_peer_loss = rng.range(8_000, 20_000) as SimMs;
        let next_send_error = rng.range(3_000, 6_000) as SimMs;
        let mut world = World {
            rng,
            ids: vec![DeviceIds::default(); DEVICE_COUNT],
            workloads: Vec::new(),
            now: 0,
            next_peer_loss,
            next_send_error,
            bench_run: 0,
            bench_ends: Some(40_000),
            next_bench: BENCH_PERIOD_MS,
            moe_phase: MoePhase::Running,
            next_moe_crash: MOE_FIRST_CRASH_MS,
            leaker_started: LEAKER_STARTED,
            next_stuck_peer: STUCK_FIRST_MS,
        };
        for blueprint in workloads::initial() {
            world.spawn(blueprint);
        }
        world.spawn(workloads::leaker(LEAKER_PID, LEAKER_STARTED));
        world.top_up_leak();
        world.spawn(workloads::benchmark(0, BENCH_FIRST_PID, -10_000, 50));
        world
    }

    /// Simulated milliseconds since the epoch.
    pub(super) fn now(&self) -> SimMs {
        self.now
    }

    pub(super) fn workloads(&self) -> &[Workload] {
        &self.workloads
    }

    /// Moves simulated time forward by `step` and lets everything happen that
    /// falls in that interval.
    pub(super) fn advance(&mut self, step: Duration) {
        let step_ms = SimMs::try_from(step.as_millis()).unwrap_or(SimMs::MAX);
        self.now = self.now.saturating_add(step_ms);
        self.settle_faults();
        self.run_leak();
        self.run_benchmarks();
        self.run_moe_job();
        self.run_peer_losses();
        self.run_send_errors();
        self.run_stuck_peer();
        self.jitter();
    }

    fn spawn(&mut self, blueprint: Blueprint) {
        let Blueprint { role, owner, specs } = blueprint;
        let mut footprints = Vec::with_capacity(specs.len());
        for spec in specs {
            if let Some(ids) = self.ids.get_mut(spec.device as usize) {
                footprints.push(Footprint::create(spec, ids, &mut self.rng));
            }
        }
        self.workloads.push(Workload {
            role,
            attribution: owner.attribution(),
            owner,
            footprints,
        });
    }

    /// A process exits: everything it held is released with it.
    fn exit(&mut self, role: Role) {
        self.workloads.retain(|w| w.role != role);
    }

    fn settle_faults(&mut self) {
        let now = self.now;
        for w in &mut self.workloads {
            for fp in &mut w.footprints {
                if let Some(ids) = self.ids.get_mut(fp.device() as usize) {
                    fp.settle(now, true, ids, &mut self.rng);
                }
            }
        }
    }

    fn jitter(&mut self) {
        for w in &mut self.workloads {
            for fp in &mut w.footprints {
                if let Some(ids) = self.ids.get_mut(fp.device() as usize) {
                    fp.jitter(ids, &mut self.rng);
                }
            }
        }
    }

    /// Brings the leaker's MR and QP counts up to what its age implies.
    fn top_up_leak(&mut self) {
        let age = self.now.saturating_sub(self.leaker_started);
        let periods = u64::try_from(age / LEAK_PERIOD_MS).unwrap_or(0);
        let want_mrs = LEAK_BASE_MRS + LEAK_MRS_PER_PERIOD * periods;
        let want_qps = LEAK_BASE_QPS + LEAK_QPS_PER_PERIOD * periods;
        let Some(w) = self.workloads.iter_mut().find(|w| w.role == Role::Leaker) else {
            return;
        };
        for fp in &mut w.footprints {
            let Some(ids) = self.ids.get_mut(fp.device() as usize) else {
                continue;
            };
            let mrs = usize::try_from(want_mrs).unwrap_or(usize::MAX);
            let qps = usize::try_from(want_qps).unwrap_or(usize::MAX);
            fp.add_mrs(mrs.saturating_sub(fp.mr_count()), ids, &mut self.rng);
            fp.add_qps(0, qps.saturating_sub(fp.qp_count(0)), ids, &mut self.rng);
        }
    }

    fn run_leak(&mut self) {
        if self.now.saturating_sub(self.leaker_started) >= LEAK_RESTART_AFTER_MS {
            self.exit(Role::Leaker);
            let pid = self.fresh_pids(1);
            self.leaker_started = self.now;
            self.spawn(workloads::leaker(pid, self.now));
        }
        self.top_up_leak();
    }

    fn run_benchmarks(&mut self) {
        if self.bench_ends.is_some_and(|end| end <= self.now) {
            self.exit(Role::Benchmark);
            self.bench_ends = None;
        }
        if self.bench_ends.is_none() && self.next_bench <= self.now {
            self.bench_run += 1;
            // The second run lands on the first one's pid: the pid counter
            // wrapped (pid_max is 32768 here), which is what ProcessKey's
            // start time is for.
            let pid = if self.bench_run == 1 {
                BENCH_FIRST_PID
            } else {
                self.fresh_pids(1)
            };
            let started = self.next_bench;
            self.spawn(workloads::benchmark(
                self.bench_run,
                pid,
                started,
                BENCH_DURATION_S,
            ));
            self.bench_ends = Some(later(started, BENCH_DURATION_S * 1000));
            self.next_bench = started.saturating_add(BENCH_PERIOD_MS);
        }
    }

    fn run_moe_job(&mut self) {
        for _ in 0..3 {
            match self.moe_phase {
                MoePhase::Running if self.next_moe_crash <= self.now => {
                    for w in self.workloads.iter_mut().filter(|w| w.role == Role::MoeJob) {
                        for fp in &mut w.footprints {
                            fp.break_all_qps(SimMs::MAX);
                        }
                    }
                    self.moe_phase = MoePhase::Failing {
                        exit_at: self.next_moe_crash.saturating_add(MOE_EXIT_AFTER_MS),
                    };
                }
                MoePhase::Failing { exit_at } if exit_at <= self.now => {
                    self.exit(Role::MoeJob);
                    self.moe_phase = MoePhase::Down {
                        relaunch_at: exit_at.saturating_add(MOE_RELAUNCH_AFTER_MS),
                    };
                }
                MoePhase::Down { relaunch_at } if relaunch_at <= self.now => {
                    let base = self.fresh_pids(2);
                    for rank in 0..2 {
                        self.spawn(workloads::moe_rank(rank, base + rank, relaunch_at));
                    }
                    self.moe_phase = MoePhase::Running;
                    self.next_moe_crash = self.next_moe_crash.saturating_add(MOE_CRASH_PERIOD_MS);
                }
                _ => return,
            }
        }
    }

    /// A remote node dies: the QPs connected to it go to ERR.
    fn run_peer_losses(&mut self) {
        for _ in 0..MAX_EVENTS_PER_TICK {
            if self.next_peer_loss > self.now {
                return;
            }
            let at = self.next_peer_loss;
            self.lose_peer(at);
            self.next_peer_loss = later(at, self.rng.range(25_000, 60_000));
        }
        if self.next_peer_loss <= self.now {
            self.next_peer_loss = later(self.now, self.rng.range(25_000, 60_000));
        }
    }

    fn lose_peer(&mut self, at: SimMs) {
        let victims: Vec<usize> = self
            .workloads
            .iter()
            .enumerate()
            .filter(|(_, w)| {
                matches!(w.role, Role::Pretrain | Role::MoeJob | Role::Inference)
                    && w.footprints.iter().any(|fp| fp.qp_count(0) > 0)
            })
            .map(|(i, _)| i)
            .collect();
        if victims.is_empty() {
            return;
        }
        let victim = victims[self.rng.index(victims.len())];
        let n = self.rng.range(2, 8) as usize;
        let until = later(at, self.rng.range(15_000, 40_000));
        if let Some(fp) = self
            .workloads
            .get_mut(victim)
            .and_then(|w| w.footprints.first_mut())
        {
            fp.break_qps(0, n, QpState::Err, until, &mut self.rng);
        }
    }

    /// A UD send fails (bad address handle): one QP sits in SQE until recovered.
    fn run_send_errors(&mut self) {
        for _ in 0..MAX_EVENTS_PER_TICK {
            if self.next_send_error > self.now {
                return;
            }
            let at = self.next_send_error;
            let until = later(at, self.rng.range(5_000, 12_000));
            if let Some(fp) = self
                .workloads
                .iter_mut()
                .find(|w| w.role == Role::Inference)
                .and_then(|w| w.footprints.first_mut())
            {
                fp.break_qps(1, 1, QpState::Sqe, until, &mut self.rng);
            }
            self.next_send_error = later(at, self.rng.range(40_000, 90_000));
        }
        if self.next_send_error <= self.now {
            self.next_send_error = later(self.now, self.rng.range(40_000, 90_000));
        }
    }

    /// A peer of the inference server is gone for good: its QPs stay in ERR
    /// until the server is told, 10 minutes later.
    fn run_stuck_peer(&mut self) {
        if self.next_stuck_peer > self.now {
            return;
        }
        let at = self.next_stuck_peer;
        let until = later(at, STUCK_FOR_MS);
        if let Some(fp) = self
            .workloads
            .iter_mut()
            .find(|w| w.role == Role::Inference)
            .and_then(|w| w.footprints.first_mut())
        {
            fp.break_qps(0, STUCK_QPS, QpState::Err, until, &mut self.rng);
        }
        self.next_stuck_peer = later(self.now.max(at), STUCK_PERIOD_MS as u64);
    }

    /// `n` consecutive pids that no live process or thread uses (new
    /// processes started close together get neighbouring pids).
    fn fresh_pids(&mut self, n: u32) -> u32 {
        for _ in 0..1_000 {
            let base = self.rng.range(5_000, 32_000 - u64::from(n)) as u32;
            if (base..base + n).all(|p| !self.pid_in_use(p)) {
                return base;
            }
        }
        // Practically unreachable with a few dozen pids in use.
        self.workloads
            .iter()
            .filter_map(|w| w.owner.process())
            .map(|p| p.key.pid)
            .max()
            .unwrap_or(5_000)
            + 1_000
    }

    fn pid_in_use(&self, pid: u32) -> bool {
        // Kept free for the benchmark run that deliberately reuses it.
        if pid == BENCH_FIRST_PID && self.bench_run < 1 {
            return true;
        }
        self.workloads
            .iter()
            .filter_map(|w| w.owner.process())
            .any(|p| p.key.pid == pid || p.creator_threads.iter().any(|(t, _)| *t == pid))
    }
}

/// `ms` milliseconds after `at`, saturating: time may be pushed to its end
/// by an absurd step without overflowing.
fn later(at: SimMs, ms: u64) -> SimMs {
    at.saturating_add(SimMs::try_from(ms).unwrap_or(SimMs::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pids(world: &World, role: Role) -> Vec<u32> {
        world
            .workloads()
            .iter()
            .filter(|w| w.role == role)
            .filter_map(|w| w.owner.process())
            .map(|p| p.key.pid)
            .collect()
    }

    #[test]
    fn the_leaker_starts_minutes_into_its_leak() {
        let world = World::new(1);
        let leaker = world
            .workloads()
            .iter()
            .find(|w| w.role == Role::Leaker)
            .unwrap();
        let fp = &leaker.footprints[0];
        assert_eq!(fp.mr_count(), 4 + 3 * 180);
        assert_eq!(fp.qp_count(0), 2 + 180);
    }

    #[test]
    fn the_moe_job_crashes_and_comes_back_with_new_pids() {
        let mut world = World::new(3);
        let before = pids(&world, Role::MoeJob);
        assert_eq!(before, [19_840, 19_841]);
        let step = Duration::from_secs(1);
        while world.now() < 155_000 {
            world.advance(step);
        }
        assert_eq!(pids(&world, Role::MoeJob), before, "failing, not gone yet");
        while world.now() < 170_000 {
            world.advance(step);
        }
        assert!(pids(&world, Role::MoeJob).is_empty());
        while world.now() < 185_000 {
            world.advance(step);
        }
        let after = pids(&world, Role::MoeJob);
        assert_eq!(after.len(), 2);
        assert_eq!(after[1], after[0] + 1);
        assert!(!after.contains(&before[0]));
    }

    #[test]
    fn every_seed_breaks_a_qp_within_twenty_seconds() {
        for seed in 0..40 {
            let mut world = World::new(seed);
            let mut seen = false;
            while world.now() < 20_000 && !seen {
                world.advance(Duration::from_secs(1));
                seen = world
                    .workloads()
                    .iter()
                    .any(|w| w.footprints.iter().any(|f| f.qps_in(QpState::Err) > 0));
            }
            assert!(seen, "seed {seed}: no peer loss in the first 20 s");
        }
    }

    #[test]
    fn the_inference_server_keeps_broken_qps_from_five_to_fifteen_minutes() {
        let mut world = World::new(1);
        let stuck = |w: &World| {
            w.workloads()
                .iter()
                .filter(|w| w.role == Role::Inference)
                .flat_map(|w| &w.footprints)
                .map(|f| f.qps_in(QpState::Err))
                .sum::<usize>()
        };
        while world.now() < 600_000 {
            world.advance(Duration::from_secs(2));
        }
        assert!(stuck(&world) >= STUCK_QPS);
        while world.now() < 910_000 {
            world.advance(Duration::from_secs(2));
        }
        assert!(stuck(&world) < STUCK_QPS, "recovered after 10 minutes");
    }

    #[test]
    fn a_huge_step_does_not_hang() {
        let mut world = World::new(4);
        world.advance(Duration::from_secs(86_400 * 365));
        world.advance(Duration::MAX);
        assert!(!world.workloads().is_empty());
    }

    #[test]
    fn a_zero_step_keeps_time_still() {
        let mut world = World::new(5);
        world.advance(Duration::ZERO);
        assert_eq!(world.now(), 0);
    }
}
