//! The history and trend logic on scripted snapshots: steady growth, a step,
//! a sawtooth, noise, process exit, pid reuse, ERROR-QP ages across ticks and
//! state transitions, baseline deltas, and bounded memory.

use restop::model::filter::Filter;
use restop::model::history::{AlertKind, History, HistoryConfig};
use restop::model::{
    Device, DumpStatus, Millis, Object, OwnerKey, ProcessInfo, ProcessKey, Qp, QpState, QpType,
    ReportedOwner, ResourceType, Snapshot, SourceKind, Tally, UnixMs,
};
use std::time::Duration;

const T0: u64 = 1_767_225_600_000;

fn key(pid: u32, start_time: u64) -> ProcessKey {
    ProcessKey { pid, start_time }
}

fn owner(pid: u32) -> OwnerKey {
    OwnerKey::Process(key(pid, 1))
}

/// A host with two devices; the caller adds holdings and QPs.
struct Host {
    t_ms: u64,
    tallies: Vec<Tally>,
    processes: Vec<ProcessInfo>,
    objects: Vec<Object>,
    qp_dump_failed_on: Option<u32>,
}

impl Host {
    fn at(second: u64) -> Host {
        Host {
            t_ms: T0 + second * 1000,
            tallies: Vec::new(),
            processes: Vec::new(),
            objects: Vec::new(),
            qp_dump_failed_on: None,
        }
    }

    fn at_ms(t_ms: u64) -> Host {
        Host {
            t_ms,
            ..Host::at(0)
        }
    }

    /// `owner` holds `n` objects of type `t` on `device`.
    fn holds(mut self, owner: &OwnerKey, device: u32, t: ResourceType, n: u64) -> Host {
        let mut tally = Tally::new(owner.clone(), device);
        tally.counts.add(t, n);
        if t == ResourceType::Mr {
            tally.mr_bytes = n * 4096;
        }
        if let OwnerKey::Process(k) = owner
            && !self.processes.iter().any(|p| p.key == *k)
        {
            self.processes.push(ProcessInfo {
                comm: format!("app{}", k.pid),
                ..ProcessInfo::unknown(*k)
            });
        }
        self.tallies.push(tally);
        self
    }

    fn qp(mut self, owner: &OwnerKey, device: u32, lqpn: u32, state: QpState) -> Host {
        self.objects.push(Object::Qp(Qp {
            device,
            port: Some(1),
            lqpn,
            rqpn: None,
            qp_type: QpType::Rc,
            state,
            pdn: Some(1),
            sq_psn: None,
            rq_psn: None,
            reported: ReportedOwner::Missing,
            owner: owner.clone(),
        }));
        if let Some(t) = self
            .tallies
            .iter_mut()
            .find(|t| &t.owner == owner && t.device == device)
        {
            t.qp_states.add(state, 1);
        }
        self
    }

    fn qp_dump_failed(mut self, device: u32) -> Host {
        self.qp_dump_failed_on = Some(device);
        self
    }

    fn snapshot(self) -> Snapshot {
        let devices = ["mlx5_0", "mlx5_1"]
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let index = i as u32;
                let mut d = Device::new(index, *name);
                let mut errors = Vec::new();
                if self.qp_dump_failed_on == Some(index) {
                    errors.push((ResourceType::Qp, "timed out".to_string()));
                }
                d.objects = DumpStatus {
                    collected_at_ms: Some(UnixMs(self.t_ms)),
                    errors,
                    ..DumpStatus::default()
                };
                d
            })
            .collect();
        let mut snapshot = Snapshot::empty(SourceKind::Replay, UnixMs(self.t_ms));
        snapshot.meta.host = "h".into();
        snapshot.meta.kernel = "k".into();
        Snapshot {
            devices,
            processes: self.processes,
            tallies: self.tallies,
            objects: self.objects,
            ..snapshot
        }
    }
}

/// Pushes one snapshot a second with `owner` holding `values[i]` MRs.
fn history_of(values: &[u64]) -> History {
    let mut h = History::new(HistoryConfig::default());
    let o = owner(7);
    for (i, v) in values.iter().enumerate() {
        h.push(
            &Host::at(i as u64)
                .holds(&o, 0, ResourceType::Mr, *v)
                .snapshot(),
        );
    }
    h
}

fn mr_trend(h: &History) -> restop::model::history::TypeTrend {
    h.owner_trend(&owner(7))
        .and_then(|t| t.get(ResourceType::Mr).cloned())
        .expect("an MR trend")
}

#[test]
fn steady_growth_is_a_leak_suspect() {
    let values: Vec<u64> = (0..=300).map(|i| 1000 + i).collect();
    let t = mr_trend(&history_of(&values));
    assert!(t.leak_suspect);
    assert!((t.rate_per_min - 60.0).abs() < 1e-6, "{}", t.rate_per_min);
    assert_eq!(
        t.explanation.as_deref(),
        Some("+300 MRs in 5 min, never decreased")
    );
}

#[test]
fn the_window_is_the_last_five_minutes() {
    // Grew for 5 minutes, then flat for 5: nothing grows in the window any more.
    let mut values: Vec<u64> = (0..300).map(|i| 1000 + i).collect();
    values.extend(vec![1299; 301]);
    let t = mr_trend(&history_of(&values));
    assert!(!t.leak_suspect);
    assert_eq!(t.rate_per_min, 0.0);
}

#[test]
fn a_start_up_pool_is_not_a_leak() {
    let mut values = vec![0, 512, 1024, 2048];
    values.extend(vec![2048; 300]);
    assert!(!mr_trend(&history_of(&values)).leak_suspect);
}

#[test]
fn a_step_in_the_middle_is_not_a_leak() {
    let mut values = vec![100; 150];
    values.extend(vec![400; 150]);
    let t = mr_trend(&history_of(&values));
    assert!(!t.leak_suspect);
    assert_eq!(t.growth, 300);
    assert_eq!(t.explanation, None);
}

#[test]
fn a_sawtooth_is_not_a_leak() {
    // Allocate 10 a second for 30 s, free it all, again.
    let values: Vec<u64> = (0..300).map(|i| 50 + (i % 30) * 10).collect();
    let t = mr_trend(&history_of(&values));
    assert!(!t.leak_suspect);
    assert!(t.monotonicity.abs() < 0.2, "{}", t.monotonicity);
}

#[test]
fn noise_around_a_level_is_not_a_leak() {
    // A deterministic random walk within ±20 of 500.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut v: i64 = 500;
    let values: Vec<u64> = (0..300)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v = (v + (x % 11) as i64 - 5).clamp(480, 520);
            v as u64
        })
        .collect();
    let t = mr_trend(&history_of(&values));
    assert!(!t.leak_suspect);
    assert!(t.rate_per_min.abs() < 5.0, "{}", t.rate_per_min);
}

#[test]
fn slow_growth_with_rare_small_dips_is_still_a_suspect() {
    let values: Vec<u64> = (0..=300)
        .map(|i| 200 + i / 10 - u64::from(i % 100 == 55))
        .collect();
    let t = mr_trend(&history_of(&values));
    assert!(t.leak_suspect, "{t:?}");
    assert_eq!(
        t.explanation.as_deref(),
        Some("+30 MRs in 5 min, 3 small dips (-3 in all)")
    );
}

#[test]
fn a_process_that_exits_stops_being_tracked_after_the_retention() {
    let config = HistoryConfig {
        retention: Duration::from_secs(90),
        window: Duration::from_secs(60),
        ..HistoryConfig::default()
    };
    let mut h = History::new(config);
    let (a, b) = (owner(7), owner(8));
    for s in 0..70 {
        h.push(
            &Host::at(s)
                .holds(&a, 0, ResourceType::Qp, 10 + s)
                .holds(&b, 0, ResourceType::Qp, 3)
                .snapshot(),
        );
    }
    assert!(h.owner_trend(&a).unwrap().leak_suspect());
    // pid 7 exits: its objects go with it.
    h.push(&Host::at(70).holds(&b, 0, ResourceType::Qp, 3).snapshot());
    let gone = h.owner_trend(&a).unwrap();
    assert_eq!(gone.get(ResourceType::Qp).unwrap().current, 0);
    assert!(!gone.leak_suspect(), "a release is not growth");
    assert!(h.alerts(&h.config().alerts).is_empty());
    for s in 71..=161 {
        h.push(&Host::at(s).holds(&b, 0, ResourceType::Qp, 3).snapshot());
    }
    assert_eq!(h.owner_trend(&a), None, "forgotten after the retention");
    assert_eq!(h.tracked_owners(), 1);
}

#[test]
fn objects_left_behind_by_an_exited_process_raise_an_alert() {
    let mut h = History::new(HistoryConfig::default());
    let a = owner(7);
    let un = OwnerKey::Unattributed;
    h.push(
        &Host::at(0)
            .holds(&a, 0, ResourceType::Qp, 5)
            .holds(&a, 0, ResourceType::Mr, 2)
            .holds(&un, 0, ResourceType::Mr, 1)
            .snapshot(),
    );
    // pid 7 is gone, but 5 QPs and 2 MRs more are unattributed.
    let after = |s| {
        Host::at(s)
            .holds(&un, 0, ResourceType::Qp, 5)
            .holds(&un, 0, ResourceType::Mr, 3)
            .snapshot()
    };
    h.push(&after(1));
    h.push(&after(2));
    let alerts = h.alerts(&h.config().alerts);
    assert_eq!(alerts.len(), 1, "{alerts:#?}");
    assert_eq!(alerts[0].kind, AlertKind::UnreleasedAfterExit);
    assert_eq!(alerts[0].owner, Some(a.clone()));
    assert_eq!(
        alerts[0].message,
        "app7 (pid 7) exited but 5 QPs, 2 MRs stayed behind (now unattributed)"
    );
    // Released at last: the alert goes.
    h.push(&Host::at(3).holds(&un, 0, ResourceType::Mr, 1).snapshot());
    assert!(h.alerts(&h.config().alerts).is_empty());
}

#[test]
fn a_reused_pid_is_a_new_owner_with_no_inherited_history() {
    let mut h = History::new(HistoryConfig::default());
    let old = OwnerKey::Process(key(4242, 100));
    let new = OwnerKey::Process(key(4242, 900));
    for s in 0..60 {
        h.push(
            &Host::at(s)
                .holds(&old, 0, ResourceType::Qp, 100 + s)
                .snapshot(),
        );
    }
    // The old process exits; the pid comes back with fewer QPs that stay put.
    for s in 60..120 {
        h.push(&Host::at(s).holds(&new, 0, ResourceType::Qp, 10).snapshot());
    }
    let t = h.owner_trend(&new).unwrap();
    let qp = t.get(ResourceType::Qp).unwrap();
    assert_eq!(qp.growth, 0, "{qp:?}");
    assert!(!qp.leak_suspect);
    assert_eq!(qp.span_ms, Millis(59_000));
    let old_trend = h.owner_trend(&old).unwrap();
    assert_eq!(old_trend.get(ResourceType::Qp).unwrap().current, 0);
}

#[test]
fn an_err_qp_ages_across_ticks_and_keeps_its_previous_state() {
    let mut h = History::new(HistoryConfig::default());
    let a = owner(7);
    let tick = |s: u64, state: QpState| {
        Host::at(s)
            .holds(&a, 0, ResourceType::Qp, 2)
            .qp(&a, 0, 17, state)
            .qp(&a, 0, 18, QpState::Rts)
            .snapshot()
    };
    h.push(&tick(0, QpState::Rts));
    h.push(&tick(1, QpState::Rts));
    assert!(h.error_qp_ages().is_empty());
    for s in 2..=5 {
        h.push(&tick(s, QpState::Err));
        let ages = h.error_qp_ages();
        assert_eq!(ages.len(), 1);
        assert_eq!(ages[0].lqpn, 17);
        assert_eq!(ages[0].device, "mlx5_0");
        assert_eq!(ages[0].owner, a);
        assert_eq!(ages[0].first_seen_ms, UnixMs(T0 + 2000));
        assert_eq!(ages[0].age_ms, Millis((s - 2) * 1000));
        assert_eq!(ages[0].previous_state, Some(QpState::Rts));
        assert!(!ages[0].age_is_lower_bound);
    }
}

#[test]
fn sqe_then_err_is_a_new_episode_and_destroyed_qps_are_forgotten() {
    let mut h = History::new(HistoryConfig::default());
    let a = owner(7);
    let tick = |s: u64, state: Option<QpState>| {
        let host = Host::at(s).holds(&a, 0, ResourceType::Qp, 1);
        match state {
            Some(st) => host.qp(&a, 0, 17, st),
            None => host,
        }
        .snapshot()
    };
    // Already in SQE when the history starts.
    h.push(&tick(0, Some(QpState::Sqe)));
    h.push(&tick(3, Some(QpState::Sqe)));
    let ages = h.error_qp_ages();
    assert_eq!(
        (ages[0].state, ages[0].age_ms),
        (QpState::Sqe, Millis(3000))
    );
    assert!(ages[0].age_is_lower_bound);
    assert_eq!(ages[0].previous_state, None);

    h.push(&tick(5, Some(QpState::Err)));
    let ages = h.error_qp_ages();
    assert_eq!(ages[0].state, QpState::Err);
    assert_eq!(ages[0].age_ms, Millis(0));
    assert_eq!(ages[0].previous_state, Some(QpState::Sqe));
    assert!(!ages[0].age_is_lower_bound);

    // Destroyed, then the number comes back in ERR: a new QP, a new age.
    h.push(&tick(6, None));
    assert!(h.error_qp_ages().is_empty());
    h.push(&tick(7, Some(QpState::Err)));
    let ages = h.error_qp_ages();
    assert_eq!((ages[0].age_ms, ages[0].previous_state), (Millis(0), None));
}

#[test]
fn a_failed_qp_dump_does_not_end_an_episode() {
    let mut h = History::new(HistoryConfig::default());
    let a = owner(7);
    h.push(
        &Host::at(0)
            .holds(&a, 1, ResourceType::Qp, 1)
            .qp(&a, 1, 9, QpState::Err)
            .snapshot(),
    );
    h.push(&Host::at(2).qp_dump_failed(1).snapshot());
    let ages = h.error_qp_ages();
    assert_eq!(ages.len(), 1);
    assert_eq!(ages[0].age_ms, Millis(2000));
}

#[test]
fn a_qp_is_told_apart_by_owner_start_time() {
    let mut h = History::new(HistoryConfig::default());
    let old = OwnerKey::Process(key(50, 1));
    let new = OwnerKey::Process(key(50, 2));
    h.push(
        &Host::at(0)
            .holds(&old, 0, ResourceType::Qp, 1)
            .qp(&old, 0, 17, QpState::Err)
            .snapshot(),
    );
    h.push(
        &Host::at(30)
            .holds(&new, 0, ResourceType::Qp, 1)
            .qp(&new, 0, 17, QpState::Err)
            .snapshot(),
    );
    let ages = h.error_qp_ages();
    assert_eq!(ages.len(), 1);
    assert_eq!((ages[0].owner.clone(), ages[0].age_ms), (new, Millis(0)));
}

#[test]
fn lingering_err_qps_become_alerts_after_the_threshold() {
    let mut h = History::new(HistoryConfig::default());
    let a = owner(7);
    for s in [0, 30, 59, 60, 61] {
        h.push(
            &Host::at(s)
                .holds(&a, 0, ResourceType::Qp, 1)
                .qp(&a, 0, 17, QpState::Err)
                .snapshot(),
        );
        let alerts = h.alerts(&h.config().alerts);
        assert_eq!(alerts.len(), usize::from(s >= 60), "at {s} s");
    }
    let alerts = h.alerts(&h.config().alerts);
    assert_eq!(alerts[0].kind, AlertKind::ErrorQpLingering);
    assert_eq!(
        alerts[0].message,
        "QP 17 of app7 (pid 7) on mlx5_0 in ERR for at least 1 min 1 s"
    );
    assert_eq!(alerts[0].device.as_deref(), Some("mlx5_0"));
}

#[test]
fn baseline_deltas_per_owner_and_device() {
    let mut h = History::new(HistoryConfig::default());
    let (a, b) = (owner(7), owner(8));
    h.push(
        &Host::at(0)
            .holds(&a, 0, ResourceType::Mr, 10)
            .holds(&a, 1, ResourceType::Mr, 5)
            .holds(&b, 0, ResourceType::Qp, 4)
            .snapshot(),
    );
    assert_eq!(h.baseline_delta(&a), None, "no baseline yet");
    h.set_baseline();
    h.push(
        &Host::at(10)
            .holds(&a, 0, ResourceType::Mr, 25)
            .holds(&a, 1, ResourceType::Mr, 5)
            .holds(&owner(9), 0, ResourceType::Cq, 2)
            .snapshot(),
    );
    let d = h.baseline_delta(&a).unwrap();
    assert_eq!(d.counts.get(ResourceType::Mr), 15);
    assert_eq!(d.mr_bytes, 15 * 4096);
    assert_eq!(
        h.baseline_delta(&b).unwrap().counts.get(ResourceType::Qp),
        -4
    );
    assert_eq!(
        h.baseline_delta(&owner(9))
            .unwrap()
            .counts
            .get(ResourceType::Cq),
        2,
        "new since the baseline: all of it"
    );

    // Under a device filter only that device counts.
    let baseline = h.baseline().unwrap();
    assert_eq!(baseline.at_ms, UnixMs(T0));
    let only_1 = Filter {
        device: Some("mlx5_1".into()),
        ..Filter::default()
    };
    let now = restop::model::history::OwnerHoldings::of(
        &Host::at(10)
            .holds(&a, 0, ResourceType::Mr, 25)
            .holds(&a, 1, ResourceType::Mr, 5)
            .snapshot(),
    );
    assert!(baseline.delta(&a, &now, &only_1).counts.is_zero());

    h.clear_baseline();
    assert_eq!(h.baseline_delta(&a), None);
}

#[test]
fn time_going_back_starts_afresh_but_keeps_the_baseline() {
    let mut h = history_of(&(0..60).collect::<Vec<u64>>());
    h.set_baseline();
    h.push(
        &Host::at(5)
            .holds(&owner(7), 0, ResourceType::Mr, 3)
            .snapshot(),
    );
    assert_eq!(h.covered_ms(), Millis(0));
    assert!(h.baseline().is_some());
    assert_eq!(
        h.owner_trend(&owner(7))
            .unwrap()
            .get(ResourceType::Mr)
            .unwrap()
            .span_ms,
        Millis(0)
    );
}

#[test]
fn counts_dumped_after_the_collection_started_belong_to_that_snapshot() {
    // A live collection stamps its start; its object dumps end later.
    let mut h = History::new(HistoryConfig::default());
    let o = owner(7);
    for s in 0..3 {
        let mut snapshot = Host::at(s)
            .holds(&o, 0, ResourceType::Qp, 10 + s)
            .snapshot();
        for d in &mut snapshot.devices {
            d.objects.collected_at_ms = Some(snapshot.meta.collected_at_ms.plus(Millis(300)));
        }
        h.push(&snapshot);
        let qp = h
            .owner_trend(&o)
            .unwrap()
            .get(ResourceType::Qp)
            .cloned()
            .unwrap();
        assert_eq!(
            qp.current,
            10 + s,
            "the trend ends with this snapshot's count"
        );
        assert_eq!(qp.span_ms, Millis(s * 1000));
    }
}

#[test]
fn memory_stays_bounded_with_100k_snapshots_of_churning_owners() {
    let config = HistoryConfig {
        max_owners: 64,
        ..HistoryConfig::default()
    };
    let max_points = config.max_points;
    let mut h = History::new(config);
    for tick in 0..100_000u64 {
        // Every 100 ms; each owner lives half a second, so 200k owners come and go.
        let mut host = Host::at_ms(T0 + tick * 100);
        for i in 0..10u64 {
            let pid = u32::try_from((tick / 5) * 10 + i).unwrap();
            let o = OwnerKey::Process(key(pid, tick / 5));
            host = host.holds(&o, (i % 2) as u32, ResourceType::Qp, 1 + i).qp(
                &o,
                (i % 2) as u32,
                pid,
                QpState::Err,
            );
        }
        h.push(&host.snapshot());
        assert!(h.tracked_owners() <= 64 + 10, "tick {tick}");
    }
    assert!(h.tracked_owners() <= 64);
    assert!(h.points() <= (64 + 2) * (max_points + 1), "{}", h.points());
    assert!(h.remembered_qps() <= 10, "{}", h.remembered_qps());
    assert_eq!(h.tracked_devices(), 2);
}

#[test]
fn insights_age_an_err_qp_as_of_the_snapshot_they_are_asked_about() {
    let mut h = History::new(HistoryConfig::default());
    let a = owner(7);
    let tick = |s: u64, state: QpState| {
        Host::at(s)
            .holds(&a, 0, ResourceType::Qp, 1)
            .qp(&a, 0, 17, state)
            .snapshot()
    };
    let first = tick(0, QpState::Err);
    h.push(&first);
    h.push(&tick(10, QpState::Rts));
    let again = tick(20, QpState::Err);
    h.push(&again);
    h.push(&tick(30, QpState::Err));

    let now = h.insights(&tick(30, QpState::Err), &Filter::default());
    let age = now.error_qps[0].age.unwrap();
    assert_eq!(
        (age.ms, age.first_seen_ms),
        (Millis(10_000), UnixMs(T0 + 20_000))
    );
    assert_eq!(age.previous, Some(QpState::Rts));
    assert!(!age.lower_bound && !age.lingering);

    // A view frozen on the first snapshot: that episode ended, the one the
    // history holds began later.
    let frozen = h.insights(&first, &Filter::default());
    assert_eq!(frozen.error_qps.len(), 1);
    assert_eq!(frozen.error_qps[0].age, None);
    assert_eq!(
        h.insights(&again, &Filter::default()).error_qps[0]
            .age
            .unwrap()
            .ms,
        Millis(0)
    );
}

#[test]
fn insights_keep_only_the_alerts_the_filters_admit() {
    let mut h = History::new(HistoryConfig::default());
    let (a, b) = (owner(7), owner(8));
    for s in [0, 61] {
        h.push(
            &Host::at(s)
                .holds(&a, 0, ResourceType::Qp, 1)
                .qp(&a, 0, 17, QpState::Err)
                .holds(&b, 1, ResourceType::Qp, 1)
                .qp(&b, 1, 18, QpState::Err)
                .snapshot(),
        );
    }
    let latest = Host::at(61)
        .holds(&a, 0, ResourceType::Qp, 1)
        .qp(&a, 0, 17, QpState::Err)
        .holds(&b, 1, ResourceType::Qp, 1)
        .qp(&b, 1, 18, QpState::Err)
        .snapshot();
    let all = h.insights(&latest, &Filter::default());
    assert_eq!(all.alerts.len(), 2);
    assert!(all.error_qps.iter().all(|e| e.age.unwrap().lingering));
    let only_b = Filter {
        pid: Some(8),
        ..Filter::default()
    };
    let some = h.insights(&latest, &only_b);
    assert_eq!(some.alerts.len(), 1);
    assert_eq!(some.alerts[0].owner, Some(b));
    assert_eq!(some.error_qps.len(), 1);
    assert_eq!(
        some.owners.len(),
        2,
        "trends are per owner, whatever the filter"
    );
}

#[test]
fn insights_carry_episodes_a_failed_dump_left_out() {
    let mut h = History::new(HistoryConfig::default());
    let a = owner(7);
    h.push(
        &Host::at(0)
            .holds(&a, 1, ResourceType::Qp, 1)
            .qp(&a, 1, 9, QpState::Err)
            .snapshot(),
    );
    let failed = Host::at(2).qp_dump_failed(1).snapshot();
    h.push(&failed);
    let insights = h.insights(&failed, &Filter::default());
    assert!(insights.error_qps.is_empty());
    assert_eq!(insights.unlisted_error_qps.len(), 1);
    assert_eq!(insights.unlisted_error_qps[0].age_ms, Millis(2000));
}
