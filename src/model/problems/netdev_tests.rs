//! The netdev rules raise on their condition, hold their first-seen time
//! while it lasts, clear when it goes and come back as new problems; a flap
//! `link_downed` already raised is not raised twice.

use super::*;
use crate::model::counters::PortCounters;
use crate::model::counters::netdev::{NetdevCounters, NetdevRead};
use crate::model::history::{History, HistoryConfig};
use crate::model::{Device, Port, PortState, Snapshot, SourceKind};
use std::collections::BTreeMap;

/// Cumulative counters of the netdev at `at_s`.
#[derive(Clone, Copy, Default)]
struct Totals {
    pause3: u64,
    discards: u64,
    carrier: u64,
}

fn read(at_s: u64, t: Totals) -> NetdevRead {
    let map = |kv: &[(&str, u64)]| -> BTreeMap<String, u64> {
        kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    };
    NetdevRead {
        at_ms: UnixMs(1_000_000 + at_s * 1000),
        stats: map(&[("rx_dropped", 0), ("rx_bytes", 100 * at_s)]),
        carrier_changes: Some(t.carrier),
        standard: BTreeMap::new(),
        driver: map(&[
            ("rx_prio3_pause", t.pause3),
            ("rx_discards_phy", t.discards),
        ]),
    }
}

/// A snapshot at `at_s` of `mlx5_0` port 1 on `eth2`, read at `prev` and `cur`.
fn snapshot(at_s: u64, prev: Totals, cur: Totals) -> Snapshot {
    let at = UnixMs(1_000_000 + at_s * 1000);
    let mut s = Snapshot::empty(SourceKind::Replay, at);
    let mut d = Device::new(0, "mlx5_0");
    d.ports.push(Port {
        index: 1,
        state: Some(PortState::Active),
        phys_state: None,
        netdev: Some("eth2".into()),
        netdev_index: Some(5),
        counters: Some(PortCounters {
            netdev: Some(NetdevCounters {
                name: "eth2".into(),
                ifindex: Some(5),
                read: read(at_s, cur),
                previous: Some(read(at_s - 2, prev)),
                notes: Vec::new(),
            }),
            ..PortCounters::default()
        }),
    });
    d.objects.collected_at_ms = Some(at);
    s.devices.push(d);
    s
}

/// Snapshots 2 s apart whose totals grow by `steps[i]` in step i.
fn timeline(steps: &[Totals]) -> Vec<Vec<Problem>> {
    let mut h = History::new(HistoryConfig::default());
    let mut total = Totals::default();
    let mut out = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let prev = total;
        total.pause3 += step.pause3;
        total.discards += step.discards;
        total.carrier += step.carrier;
        let s = snapshot(10 + 2 * i as u64, prev, total);
        h.push(&s);
        out.push(h.insights(&s, &Filter::default()).problems);
    }
    out
}

fn of_kind(problems: &[Problem], kind: ProblemKind) -> Vec<&Problem> {
    problems.iter().filter(|p| p.kind == kind).collect()
}

fn pause(frames_in_2s: u64) -> Totals {
    Totals {
        pause3: frames_in_2s,
        ..Totals::default()
    }
}

#[test]
fn a_pause_storm_raises_holds_its_start_escalates_clears_and_returns() {
    let lists = timeline(&[
        pause(4_000),  // 2,000/s: a storm
        pause(60_000), // 30,000/s: critical, the same problem
        pause(10),     // 5/s: over
        pause(4_000),  // back: a new one
    ]);
    let first = of_kind(&lists[0], ProblemKind::PauseStorm);
    assert_eq!(first.len(), 1, "{:?}", lists[0]);
    assert_eq!(first[0].severity, Severity::Warning);
    assert_eq!(
        (first[0].value, first[0].threshold),
        (Some(2_000.0), Some(1_000.0))
    );
    assert!(first[0].why.contains("eth2") && first[0].why.contains("priority 3"));
    assert_eq!(
        first[0].opens,
        Opens::PortCounters {
            device: "mlx5_0".into(),
            port: 1
        }
    );
    let held = of_kind(&lists[1], ProblemKind::PauseStorm);
    assert_eq!(held[0].severity, Severity::Critical);
    assert_eq!(held[0].since_ms, first[0].since_ms);
    assert!(of_kind(&lists[2], ProblemKind::PauseStorm).is_empty());
    let back = of_kind(&lists[3], ProblemKind::PauseStorm);
    assert!(back[0].since_ms > first[0].since_ms);
}

#[test]
fn rising_discards_raise_hold_clear_and_return() {
    let d = |n| Totals {
        discards: n,
        ..Totals::default()
    };
    let lists = timeline(&[d(40), d(40), d(0), d(6)]);
    let first = of_kind(&lists[0], ProblemKind::NetdevDiscards);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].severity, Severity::Warning);
    assert!(
        first[0].why.contains("rx_discards_phy 20/s"),
        "{}",
        first[0].why
    );
    assert_eq!(
        of_kind(&lists[1], ProblemKind::NetdevDiscards)[0].since_ms,
        first[0].since_ms
    );
    assert!(of_kind(&lists[2], ProblemKind::NetdevDiscards).is_empty());
    let back = of_kind(&lists[3], ProblemKind::NetdevDiscards);
    assert!(back[0].since_ms > first[0].since_ms);
}

#[test]
fn carrier_changes_are_a_flap_once_per_port() {
    let c = |n| Totals {
        carrier: n,
        ..Totals::default()
    };
    let lists = timeline(&[c(2), c(2), c(0), c(2)]);
    let first = of_kind(&lists[0], ProblemKind::LinkFlap);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].detail.as_deref(), Some("carrier_changes"));
    assert_eq!(first[0].value, Some(2.0));
    assert_eq!(
        of_kind(&lists[1], ProblemKind::LinkFlap)[0].since_ms,
        first[0].since_ms
    );
    assert!(of_kind(&lists[2], ProblemKind::LinkFlap).is_empty());
    assert!(of_kind(&lists[3], ProblemKind::LinkFlap)[0].since_ms > first[0].since_ms);
}

#[test]
fn a_quiet_netdev_or_a_first_read_raises_nothing() {
    let lists = timeline(&[pause(20), Totals::default()]);
    assert!(lists.iter().all(|l| l.is_empty()), "{lists:?}");
    let mut s = snapshot(10, Totals::default(), pause(1_000_000));
    if let Some(c) = s.devices[0].ports[0].counters.as_mut() {
        c.netdev.as_mut().unwrap().previous = None;
    }
    let mut h = History::new(HistoryConfig::default());
    h.push(&s);
    assert!(h.insights(&s, &Filter::default()).problems.is_empty());
}

#[test]
fn a_flap_link_downed_raised_is_not_raised_again() {
    use crate::model::history::counter_rates::{CounterAlert, CounterAlertRules};
    let s = snapshot(
        10,
        Totals::default(),
        Totals {
            carrier: 2,
            ..Totals::default()
        },
    );
    let alert = CounterAlert {
        device: "mlx5_0".into(),
        port: 1,
        counter: "link_downed".into(),
        per_s: 0.5,
        message: "mlx5_0 port 1: link_downed stepped".into(),
    };
    let p = raise(&Input {
        snapshot: &s,
        insights: &crate::model::history::Insights::default(),
        counter_alerts: &[alert],
        counter_rules: &CounterAlertRules::default(),
        ports_down: &[],
        leak_min_growth: 3,
        rules: &ProblemRules::default(),
    });
    let flaps: Vec<_> = p
        .iter()
        .filter(|p| p.kind == ProblemKind::LinkFlap)
        .collect();
    assert_eq!(flaps.len(), 1);
    assert_eq!(flaps[0].detail.as_deref(), Some("link_downed"));
}
