//! Every rule raises on its condition, holds its first-seen time while the
//! condition lasts, clears when it goes and comes back as a new problem;
//! the order is stable; the demo's healthy ports raise nothing.

use super::*;
use crate::demo::DemoSource;
use crate::model::history::counter_rates::{CounterAlert, CounterAlertRules};
use crate::model::history::{History, HistoryConfig, Insights};
use crate::model::limits::{DeviceQuota, Quota, RdmaCgroup};
use crate::model::{
    Device, Object, Port, PortState, ProcessInfo, ProcessKey, Qp, QpState, QpType, ReportedOwner,
    ResourceType, Snapshot, SourceKind, Tally, UsageEntry, Warning, WarningKind,
};
use crate::source::{CollectRequest, Source};
use std::time::Duration;

const PID: u32 = 4242;

fn owner() -> OwnerKey {
    OwnerKey::Process(ProcessKey {
        pid: PID,
        start_time: 1,
    })
}

/// A snapshot at `at_s` seconds of one device, `mlx5_0`, with one ACTIVE port.
fn snapshot(at_s: u64) -> Snapshot {
    let at = UnixMs(1_000_000 + at_s * 1000);
    let mut s = Snapshot::empty(SourceKind::Replay, at);
    let mut d = Device::new(0, "mlx5_0");
    d.ports.push(Port {
        index: 1,
        state: Some(PortState::Active),
        phys_state: None,
        netdev: None,
        netdev_index: None,
        counters: None,
    });
    d.objects.collected_at_ms = Some(at);
    s.devices.push(d);
    let mut p = ProcessInfo::unknown(ProcessKey {
        pid: PID,
        start_time: 1,
    });
    p.comm = "train.py".into();
    s.processes.push(p);
    s
}

fn usage(s: &mut Snapshot, t: ResourceType, current: u64, max: u64) {
    s.devices[0].usage.set(
        t,
        UsageEntry {
            current,
            max: Some(max),
            max_source: None,
        },
    );
}

fn broken_qp(s: &mut Snapshot, lqpn: u32) {
    s.objects.push(Object::Qp(Qp {
        device: 0,
        port: Some(1),
        lqpn,
        rqpn: None,
        qp_type: QpType::Rc,
        state: QpState::Err,
        pdn: None,
        sq_psn: None,
        rq_psn: None,
        reported: ReportedOwner::Task(PID),
        owner: owner(),
    }));
}

/// The problems of `snapshots` taken in one after the other, as of each.
fn run(snapshots: &[Snapshot]) -> Vec<Vec<Problem>> {
    let mut h = History::new(HistoryConfig::default());
    snapshots
        .iter()
        .map(|s| {
            h.push(s);
            h.insights(s, &Filter::default()).problems
        })
        .collect()
}

fn of_kind(problems: &[Problem], kind: ProblemKind) -> Vec<&Problem> {
    problems.iter().filter(|p| p.kind == kind).collect()
}

/// The rules on one snapshot, without a history.
fn raise_alone(s: &Snapshot, insights: &Insights, counters: &[CounterAlert]) -> Vec<Problem> {
    raise(&Input {
        snapshot: s,
        insights,
        counter_alerts: counters,
        counter_rules: &CounterAlertRules::default(),
        ports_down: &[],
        leak_min_growth: 3,
        rules: &ProblemRules::default(),
    })
}

#[test]
fn usage_past_warn_raises_holds_its_start_clears_and_returns_as_new() {
    let mut steps = Vec::new();
    for (at, current) in [(0, 850), (2, 960), (4, 100), (6, 900)] {
        let mut s = snapshot(at);
        usage(&mut s, ResourceType::Qp, current, 1000);
        steps.push(s);
    }
    let lists = run(&steps);
    let first = of_kind(&lists[0], ProblemKind::Limit);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].severity, Severity::Warning);
    assert_eq!(first[0].threshold, Some(0.80));
    assert_eq!(
        first[0].opens,
        Opens::Device {
            device: "mlx5_0".into()
        }
    );
    // Past --crit: critical, and still the same problem since the first snapshot.
    let held = of_kind(&lists[1], ProblemKind::Limit);
    assert_eq!(held[0].severity, Severity::Critical);
    assert_eq!(held[0].since_ms, first[0].since_ms);
    assert!(of_kind(&lists[2], ProblemKind::Limit).is_empty());
    let back = of_kind(&lists[3], ProblemKind::Limit);
    assert_eq!(back[0].since_ms, steps[3].meta.collected_at_ms);
}

#[test]
fn a_cgroup_quota_past_warn_opens_a_process_it_binds() {
    let mut s = snapshot(0);
    let quota = |current, max| Quota {
        current,
        max,
        cgroup: "/pod1".into(),
    };
    s.processes[0].rdma_cgroup = Some(Box::new(RdmaCgroup {
        path: "/pod1/c1".into(),
        devices: [(
            "mlx5_0".to_string(),
            DeviceQuota {
                hca_handle: quota(1, Some(100)),
                hca_object: quota(99, Some(100)),
            },
        )]
        .into_iter()
        .collect(),
    }));
    let p = raise_alone(&s, &Insights::default(), &[]);
    let limit = of_kind(&p, ProblemKind::Limit);
    assert_eq!(limit.len(), 1);
    assert_eq!(limit[0].severity, Severity::Critical);
    assert_eq!(limit[0].subject.kind(), "cgroup");
    assert_eq!(limit[0].opens, Opens::Owner { owner: owner() });
}

#[test]
fn error_qps_group_per_owner_and_escalate_the_longer_they_stay() {
    let mut steps = Vec::new();
    for at in (0..=400).step_by(20) {
        let mut s = snapshot(at);
        if (20..380).contains(&at) {
            broken_qp(&mut s, 17);
            broken_qp(&mut s, 18);
        }
        steps.push(s);
    }
    let lists = run(&steps);
    let severity_at = |i: usize| {
        of_kind(&lists[i], ProblemKind::ErrorQps)
            .first()
            .map(|p| p.severity)
    };
    // Broken 20 s in: listed as a notice, 60 s later a warning, 5 min later critical.
    assert_eq!(severity_at(1), None, "younger than 10 s");
    assert_eq!(severity_at(2), Some(Severity::Notice));
    assert_eq!(severity_at(4), Some(Severity::Warning));
    assert_eq!(severity_at(17), Some(Severity::Critical));
    let p = &of_kind(&lists[17], ProblemKind::ErrorQps)[0];
    assert!(
        p.why
            .starts_with("2 QPs of train.py (pid 4242) in ERR on mlx5_0"),
        "{}",
        p.why
    );
    assert_eq!(p.since_ms, steps[1].meta.collected_at_ms);
    assert_eq!(p.opens, Opens::ErrorQps { owner: owner() });
    assert_eq!(severity_at(19), None, "cleared once the QPs are gone");
}

#[test]
fn error_qps_already_broken_when_watching_began_are_listed_at_once() {
    let mut s = snapshot(0);
    broken_qp(&mut s, 17);
    let lists = run(&[s]);
    let p = of_kind(&lists[0], ProblemKind::ErrorQps);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].severity, Severity::Notice);
    assert!(p[0].why.contains("age unknown"), "{}", p[0].why);
}

fn alert(counter: &str, per_s: f64) -> CounterAlert {
    CounterAlert {
        device: "mlx5_1".into(),
        port: 1,
        counter: counter.into(),
        per_s,
        message: format!("mlx5_1 port 1: {counter} keeps rising"),
    }
}

#[test]
fn counters_become_nic_errors_congestion_and_flaps_by_rate() {
    let s = snapshot(0);
    let p = raise_alone(
        &s,
        &Insights::default(),
        &[
            alert("out_of_sequence", 180.0),
            alert("packet_seq_err", 3.0),
            alert("np_cnp_sent", 4_200.0),
            alert("rp_cnp_handled", 3_900.0),
            alert("link_downed", 0.5),
        ],
    );
    let errors = of_kind(&p, ProblemKind::NicErrors);
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0].severity, Severity::Critical);
    assert_eq!(errors[0].detail.as_deref(), Some("out_of_sequence"));
    assert_eq!(
        (errors[1].value, errors[1].threshold),
        (Some(3.0), Some(1.0))
    );
    let congestion = of_kind(&p, ProblemKind::Congestion);
    assert_eq!(congestion.len(), 1, "one per port");
    assert_eq!(congestion[0].severity, Severity::Warning);
    assert!(congestion[0].why.contains("congestion storm"));
    let flap = of_kind(&p, ProblemKind::LinkFlap);
    assert_eq!(flap[0].severity, Severity::Warning);
    assert_eq!(
        flap[0].opens,
        Opens::PortCounters {
            device: "mlx5_1".into(),
            port: 1
        }
    );
    let mild = raise_alone(&s, &Insights::default(), &[alert("np_cnp_sent", 150.0)]);
    assert_eq!(
        of_kind(&mild, ProblemKind::Congestion)[0].severity,
        Severity::Notice
    );
    assert!(raise_alone(&s, &Insights::default(), &[]).is_empty());
}

#[test]
fn a_port_that_was_active_and_is_not_is_critical_until_it_is_back() {
    let mut steps = vec![snapshot(0)];
    for at in [2, 4] {
        let mut s = snapshot(at);
        s.devices[0].ports[0].state = Some(PortState::Down);
        steps.push(s);
    }
    steps.push(snapshot(6));
    let lists = run(&steps);
    assert!(of_kind(&lists[0], ProblemKind::PortNotActive).is_empty());
    let down = of_kind(&lists[1], ProblemKind::PortNotActive);
    assert_eq!(down[0].severity, Severity::Critical);
    assert_eq!(down[0].why, "mlx5_0 port 1 is DOWN; it was ACTIVE");
    assert_eq!(
        of_kind(&lists[2], ProblemKind::PortNotActive)[0].since_ms,
        steps[1].meta.collected_at_ms
    );
    assert!(of_kind(&lists[3], ProblemKind::PortNotActive).is_empty());
    // A port never seen ACTIVE (nothing cabled) is nothing to report.
    let mut never = snapshot(0);
    never.devices[0].ports[0].state = Some(PortState::Down);
    assert!(run(&[never])[0].is_empty());
}

#[test]
fn unattributed_objects_and_failed_dumps_are_listed() {
    let mut s = snapshot(0);
    let mut t = Tally::new(OwnerKey::Unattributed, 0);
    t.counts.add(ResourceType::Mr, 3);
    s.tallies.push(t);
    s.devices[0]
        .objects
        .errors
        .push((ResourceType::Qp, "Operation not supported".into()));
    s.meta.warnings.push(Warning::new(
        WarningKind::DeviceVanished,
        "mlx5_9 vanished during the collection",
    ));
    let p = raise_alone(&s, &Insights::default(), &[]);
    let u = of_kind(&p, ProblemKind::Unattributed);
    assert_eq!(
        u[0].why,
        "3 MRs without an owner (their creating thread exited)"
    );
    let partial = of_kind(&p, ProblemKind::CollectionPartial);
    assert_eq!(partial.len(), 2);
    assert_eq!(partial[0].severity, Severity::Warning);
    assert!(partial[0].why.starts_with("mlx5_0: the qp dump failed"));
    assert_eq!(partial[1].subject, Subject::Host);
    let failed = Problem::collection_failed("no RDMA", UnixMs(5));
    assert_eq!(failed.severity, Severity::Critical);
    assert_eq!(failed.opens, Opens::Nothing);
}

#[test]
fn the_demo_leaker_is_a_leak_suspect_that_keeps_its_start() {
    let mut demo = DemoSource::new(1, Duration::from_secs(2));
    let mut h = History::new(HistoryConfig::default());
    let mut since = None;
    for i in 0..60 {
        let s = demo.collect(&CollectRequest::default()).unwrap();
        h.push(&s);
        let problems = h.insights(&s, &Filter::default()).problems;
        let leak = of_kind(&problems, ProblemKind::LeakSuspect);
        if let Some(p) = leak.first() {
            assert_eq!(p.subject_name, "leaky_svc (pid 3377)");
            assert!(matches!(p.opens, Opens::Owner { .. }));
            let first = *since.get_or_insert(p.since_ms);
            assert_eq!(p.since_ms, first, "tick {i}");
        }
    }
    assert!(since.is_some(), "the leaker became a suspect");
}

#[test]
fn a_steady_climb_short_of_a_verdict_is_a_rising_owner() {
    let mut steps = Vec::new();
    for i in 0..40u64 {
        let mut s = snapshot(i * 2);
        let mut t = Tally::new(owner(), 0);
        // Nothing for 50 s, then 40 QPs in the last 30 s: rises in one half only.
        let n = if i < 25 { 10 } else { 10 + (i - 24) * 3 };
        t.counts.add(ResourceType::Qp, n);
        s.tallies.push(t);
        let mut k = Tally::new(OwnerKey::Kernel("nvme_rdma".into()), 0);
        k.counts
            .add(ResourceType::Qp, if i < 25 { 4 } else { 4 + (i - 24) * 3 });
        s.tallies.push(k);
        steps.push(s);
    }
    let lists = run(&steps);
    let last = lists.last().unwrap();
    let rising = of_kind(last, ProblemKind::RisingOwner);
    assert_eq!(rising.len(), 1, "{last:?}");
    assert_eq!(rising[0].severity, Severity::Notice);
    assert!(rising[0].why.contains("+45 QPs"), "{}", rising[0].why);
    assert_eq!(of_kind(last, ProblemKind::KernelOwnerGrowing).len(), 1);
    assert!(of_kind(&lists[10], ProblemKind::RisingOwner).is_empty());
}

#[test]
fn problems_of_equal_severity_and_age_keep_one_order() {
    let mut s = snapshot(0);
    usage(&mut s, ResourceType::Qp, 900, 1000);
    usage(&mut s, ResourceType::Mr, 900, 1000);
    let mut a = raise_alone(
        &s,
        &Insights::default(),
        &[alert("packet_seq_err", 3.0), alert("out_of_sequence", 3.0)],
    );
    let mut b = a.clone();
    b.reverse();
    rank(&mut a);
    rank(&mut b);
    assert_eq!(a, b);
    let order: Vec<_> = a.iter().map(|p| (p.kind, p.detail.clone())).collect();
    assert_eq!(order[0], (ProblemKind::Limit, Some("mr".into())));
    assert_eq!(counts(&a)[1], (Severity::Warning, 4));
}

#[test]
fn a_filter_keeps_its_devices_and_its_process() {
    let mut s = snapshot(0);
    usage(&mut s, ResourceType::Qp, 900, 1000);
    broken_qp(&mut s, 17);
    let all = &run(std::slice::from_ref(&s))[0];
    let other_device = Filter {
        device: Some("mlx5_9".into()),
        ..Filter::default()
    };
    assert!(!all[0].shown_by(&other_device));
    let mrs_only = Filter {
        types: vec![ResourceType::Mr],
        ..Filter::default()
    };
    let errors = of_kind(all, ProblemKind::ErrorQps);
    assert!(!errors[0].shown_by(&mrs_only));
    let other_pid = Filter {
        pid: Some(1),
        ..Filter::default()
    };
    assert!(!errors[0].shown_by(&other_pid));
}

#[test]
fn the_demo_raises_only_its_story() {
    // Two minutes of the demo: the storm port, the flap, the leaker, the
    // broken QPs, the nearly full VFs, the unattributed objects; never a
    // counter problem on another port.
    let mut demo = DemoSource::new(1, Duration::from_secs(2));
    let mut h = History::new(HistoryConfig::default());
    for _ in 0..60 {
        let s = demo.collect(&CollectRequest::default()).unwrap();
        h.push(&s);
        for p in h.insights(&s, &Filter::default()).problems {
            if matches!(p.kind, ProblemKind::NicErrors | ProblemKind::Congestion) {
                assert_eq!(p.subject.device(), Some("mlx5_1"), "{p:?}");
            }
            if p.kind == ProblemKind::LinkFlap {
                assert_eq!(p.subject.device(), Some("mlx5_0"), "{p:?}");
            }
        }
    }
}
