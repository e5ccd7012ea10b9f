//! The trend logic over the simulated host: its leaking service and its ERROR
//! QPs are flagged within a minute of simulated time, and none of its
//! jittering, restarting or benchmarking processes ever is.

use restop::demo::DemoSource;
use restop::model::history::{AlertKind, History, HistoryConfig};
use restop::model::{DetailScope, OwnerKey, QpState, ResourceType, Snapshot};
use restop::source::{CollectRequest, Source};
use std::collections::BTreeSet;
use std::time::Duration;

fn collect(source: &mut DemoSource, details: &DetailScope) -> Snapshot {
    source
        .collect(&CollectRequest {
            details: details.clone(),
            force_objects: true,
        })
        .unwrap()
}

fn leaker(snapshot: &Snapshot) -> Option<OwnerKey> {
    snapshot
        .processes
        .iter()
        .find(|p| p.comm == "leaky_svc")
        .map(|p| OwnerKey::Process(p.key))
}

fn suspects(history: &History, snapshot: &Snapshot) -> BTreeSet<String> {
    let mut owners: BTreeSet<&OwnerKey> = snapshot.tallies.iter().map(|t| &t.owner).collect();
    owners.insert(&OwnerKey::Unattributed);
    owners
        .into_iter()
        .filter_map(|o| history.owner_trend(o))
        .filter(|t| t.leak_suspect())
        .map(|t| t.name)
        .collect()
}

/// Seconds of simulated time until the leak is flagged for both MRs and QPs.
fn seconds_until_leak_flagged(step: Duration) -> u64 {
    let mut source = DemoSource::new(1, step);
    let mut history = History::new(HistoryConfig::default());
    for _ in 0..=(120 / step.as_secs()) {
        let snapshot = collect(&mut source, &DetailScope::ErrorsOnly);
        history.push(&snapshot);
        let owner = leaker(&snapshot).expect("leaky_svc runs");
        if let Some(trend) = history.owner_trend(&owner) {
            let mr = trend.get(ResourceType::Mr).is_some_and(|t| t.leak_suspect);
            let qp = trend.get(ResourceType::Qp).is_some_and(|t| t.leak_suspect);
            if mr && qp {
                return history.covered_ms().as_secs();
            }
        }
    }
    panic!("the leak was not flagged in two minutes");
}

#[test]
fn the_demo_leak_is_flagged_within_a_minute_at_1s_and_2s_steps() {
    for step in [1, 2] {
        let after = seconds_until_leak_flagged(Duration::from_secs(step));
        assert!(after <= 60, "step {step} s: flagged after {after} s");
    }
}

#[test]
fn the_demo_leak_is_explained() {
    let mut source = DemoSource::new(1, Duration::from_secs(2));
    let mut history = History::new(HistoryConfig::default());
    let mut last = None;
    for _ in 0..=30 {
        let snapshot = collect(&mut source, &DetailScope::ErrorsOnly);
        history.push(&snapshot);
        last = Some(snapshot);
    }
    let owner = leaker(last.as_ref().unwrap()).unwrap();
    let trend = history.owner_trend(&owner).unwrap();
    let mr = trend.get(ResourceType::Mr).unwrap();
    assert_eq!(
        mr.explanation.as_deref(),
        Some("+90 MRs in 1 min, never decreased")
    );
    assert!((mr.rate_per_min - 90.0).abs() < 1.0, "{}", mr.rate_per_min);
    let alerts = history.alerts(&history.config().alerts);
    let leak: Vec<_> = alerts
        .iter()
        .filter(|a| a.kind == AlertKind::LeakSuspect)
        .collect();
    assert_eq!(leak.len(), 1, "{alerts:#?}");
    assert_eq!(leak[0].owner.as_ref(), Some(&owner));
    assert!(
        leak[0].message.starts_with("leaky_svc (pid 3377): +"),
        "{}",
        leak[0].message
    );
}

/// Runs the demo for `minutes` and returns every owner ever flagged.
fn flagged_over(step: Duration, minutes: u64) -> BTreeSet<String> {
    let mut source = DemoSource::new(1, step);
    let mut history = History::new(HistoryConfig::default());
    let mut flagged = BTreeSet::new();
    for _ in 0..(minutes * 60 / step.as_secs()) {
        let snapshot = collect(&mut source, &DetailScope::ErrorsOnly);
        history.push(&snapshot);
        flagged.extend(suspects(&history, &snapshot));
    }
    flagged
}

#[test]
fn only_the_leaking_service_is_ever_flagged() {
    for (step, minutes) in [(1, 10), (2, 20)] {
        let flagged = flagged_over(Duration::from_secs(step), minutes);
        assert_eq!(
            flagged,
            BTreeSet::from(["leaky_svc".to_string()]),
            "step {step} s over {minutes} min"
        );
    }
}

#[test]
fn demo_error_qps_get_ages_that_grow_and_their_previous_state() {
    // Every object kept, so the QPs are seen before they break.
    let mut source = DemoSource::new(1, Duration::from_secs(1));
    let mut history = History::new(HistoryConfig::default());
    let mut first_err = None;
    for second in 0..60u64 {
        let snapshot = collect(&mut source, &DetailScope::All);
        history.push(&snapshot);
        let ages = history.error_qp_ages();
        if let Some(err) = ages.iter().find(|a| a.state == QpState::Err) {
            first_err.get_or_insert((second, err.clone()));
        }
    }
    let (at, err) = first_err.expect("an ERR QP within a minute");
    assert!(at <= 20, "first ERR seen at {at} s");
    assert_eq!(err.previous_state, Some(QpState::Rts));
    assert!(!err.age_is_lower_bound);
    assert_eq!(err.age_ms, restop::model::Millis(0), "just broke");

    // The same QP a few ticks later is older, with the same first sighting.
    let mut source = DemoSource::new(1, Duration::from_secs(1));
    let mut history = History::new(HistoryConfig::default());
    let mut ages_seen = Vec::new();
    for _ in 0..60 {
        history.push(&collect(&mut source, &DetailScope::All));
        if let Some(a) = history
            .error_qp_ages()
            .into_iter()
            .find(|a| a.lqpn == err.lqpn && a.owner == err.owner)
        {
            ages_seen.push((a.first_seen_ms, a.age_ms));
        }
    }
    assert!(ages_seen.len() >= 5, "{ages_seen:?}");
    assert!(ages_seen.iter().all(|(f, _)| *f == err.first_seen_ms));
    assert!(
        ages_seen
            .windows(2)
            .all(|w| w[1].1 == restop::model::Millis(w[0].1.as_u64() + 1000))
    );
}

#[test]
fn demo_error_qps_linger_past_a_short_threshold() {
    let mut source = DemoSource::new(1, Duration::from_secs(2));
    let mut history = History::new(HistoryConfig::default());
    let mut thresholds = history.config().alerts;
    thresholds.error_qp_linger = Duration::from_secs(10);
    let mut flagged_at = None;
    for _ in 0..30 {
        history.push(&collect(&mut source, &DetailScope::ErrorsOnly));
        if history
            .alerts(&thresholds)
            .iter()
            .any(|a| a.kind == AlertKind::ErrorQpLingering)
        {
            flagged_at = Some(history.covered_ms().as_secs());
            break;
        }
    }
    let at = flagged_at.expect("a lingering ERROR QP within a minute");
    assert!(at <= 60, "{at}");
}
