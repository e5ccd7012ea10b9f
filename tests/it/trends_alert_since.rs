//! When an alert was first seen (`since`): one value in the history that the
//! TUI's FOR column and `--batch --json`'s `trends.warnings[].since` both
//! read, kept while the alert lasts even once it is older than the trend
//! window, new when a cleared alert comes back, apart per subject.

use crate::tui_common::snapshot_event;
use restop::batch;
use restop::demo::DemoSource;
use restop::interactive::app::{App, AppConfig};
use restop::model::filter::Filter;
use restop::model::history::{Alert, AlertKind, History, HistoryConfig};
use restop::model::{
    DetailScope, Device, DumpStatus, OwnerKey, ProcessKey, ResourceType, Snapshot, SourceKind,
    Tally, UnixMs,
};
use restop::output::rfc3339;
use restop::session::{Pacer, PollStop, Session};
use restop::settings::{Mode, Settings};
use restop::source::{CollectRequest, Source};
use serde_json::Value;
use std::time::Duration;

const T0: u64 = 1_767_225_600_000;
/// The default trend window.
const WINDOW_MS: u64 = 300_000;

fn owner(pid: u32) -> OwnerKey {
    OwnerKey::Process(ProcessKey { pid, start_time: 1 })
}

/// A snapshot at `second` (after T0) where each owner holds that many MRs.
fn snapshot(second: u64, holdings: &[(u32, u64)]) -> Snapshot {
    let t = UnixMs(T0 + second * 1000);
    let mut device = Device::new(0, "mlx5_0");
    device.objects = DumpStatus {
        collected_at_ms: Some(t),
        ..DumpStatus::default()
    };
    let tallies = holdings
        .iter()
        .map(|(pid, n)| {
            let mut tally = Tally::new(owner(*pid), 0);
            tally.counts.add(ResourceType::Mr, *n);
            tally
        })
        .collect();
    Snapshot {
        devices: vec![device],
        tallies,
        ..Snapshot::empty(SourceKind::Replay, t)
    }
}

fn leak_of(alerts: &[Alert], pid: u32) -> Option<&Alert> {
    alerts.iter().find(|a| {
        a.kind == AlertKind::LeakSuspect && a.owner.as_ref().and_then(OwnerKey::pid) == Some(pid)
    })
}

/// The leak alert about `pid` as of the latest snapshot, and its since.
fn since_of(h: &History, pid: u32) -> Option<UnixMs> {
    leak_of(&h.alerts(&h.config().alerts), pid).and_then(|a| a.since_ms)
}

#[test]
fn a_suspect_older_than_the_window_keeps_its_first_seen() {
    let mut h = History::new(HistoryConfig::default());
    // One more MR every 2 s for 9 minutes.
    for tick in 0..=270u64 {
        h.push(&snapshot(tick * 2, &[(7, 100 + tick)]));
    }
    // The window starts 4 minutes in; the suspect was first raised a
    // minute in, on a window that started with the history.
    assert_eq!(since_of(&h, 7), Some(UnixMs(T0)));
}

#[test]
fn a_suspect_that_cleared_and_came_back_is_first_seen_anew() {
    let mut h = History::new(HistoryConfig::default());
    let mut frozen = None;
    let mut n = 100;
    let mut second = 0;
    let mut tick = |h: &mut History, n: u64| {
        h.push(&snapshot(second, &[(7, n)]));
        second += 2;
        second - 2
    };
    // Grows for 7 minutes, a suspect from 1 minute on.
    for _ in 0..210 {
        n += 1;
        let at = tick(&mut h, n);
        if at == 400 {
            frozen = Some(snapshot(at, &[(7, n)]));
        }
    }
    assert_eq!(since_of(&h, 7), Some(UnixMs(T0)));
    // Flat for 3 minutes: nothing rises in the later half of the window.
    for _ in 0..90 {
        tick(&mut h, n);
    }
    assert_eq!(since_of(&h, 7), None, "the suspect cleared");
    // Grows again until it is a suspect again.
    let returned_at = loop {
        n += 1;
        let at = tick(&mut h, n);
        if since_of(&h, 7).is_some() {
            break at;
        }
        assert!(at < 3600, "the suspect never came back");
    };
    // Its new episode starts with the window it was raised on, not with
    // the first one.
    assert_eq!(
        since_of(&h, 7),
        Some(UnixMs(T0 + returned_at * 1000 - WINDOW_MS))
    );
    // A view frozen on the first episode, when its window no longer held
    // the start, still reads that episode's start.
    let frozen = frozen.unwrap();
    let then = h.insights(&frozen, &Filter::default());
    assert_eq!(
        leak_of(&then.alerts, 7).and_then(|a| a.since_ms),
        Some(UnixMs(T0))
    );
}

#[test]
fn suspects_of_different_owners_are_first_seen_apart() {
    let mut h = History::new(HistoryConfig::default());
    // pid 7 leaks from the start; pid 8 appears 3 minutes in and leaks too.
    for tick in 0..=270u64 {
        let mut holdings = vec![(7, 100 + tick)];
        if tick >= 90 {
            holdings.push((8, 10 + tick));
        }
        h.push(&snapshot(tick * 2, &holdings));
    }
    assert_eq!(since_of(&h, 7), Some(UnixMs(T0)));
    assert_eq!(since_of(&h, 8), Some(UnixMs(T0 + 180_000)));
}

/// The demo host's snapshots at a 2 s step, as the TUI collects them.
fn demo_snapshots(n: usize) -> Vec<Snapshot> {
    let mut demo = DemoSource::new(1, Duration::from_secs(2));
    (0..n)
        .map(|_| {
            demo.collect(&CollectRequest {
                details: DetailScope::ErrorsOnly,
                force_objects: false,
            })
            .unwrap()
        })
        .collect()
}

/// The last `--batch --json` line of `n` ticks of the demo host at a 2 s
/// step (driven in process: the demo's time is its own, the loop unpaced).
fn last_batch_json_line(n: u64) -> Value {
    let settings = Settings {
        mode: Mode::BatchJson,
        iterations: Some(n),
        ..Settings::default()
    };
    let source = DemoSource::new(1, Duration::from_secs(2));
    let mut session = Session::new(Box::new(source), Pacer::every(Duration::from_millis(1)));
    let mut out = Vec::new();
    batch::run(
        &mut session,
        &settings,
        &mut out,
        &mut PollStop::new(&|| false),
        &mut |_: &str| {},
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn batch_json_and_the_tui_agree_on_the_since_of_a_suspect_older_than_the_window() {
    // Eight simulated minutes: the demo leak is older than the 5-minute window.
    let ticks = 240;
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    for s in demo_snapshots(ticks) {
        app.update(snapshot_event(s, DetailScope::ErrorsOnly));
    }
    let tui = leak_of(&app.insights.alerts, 3377)
        .and_then(|a| a.since_ms)
        .expect("the demo leak in the alerts panel");
    let at = app.insights.at_ms;
    assert!(at.since(tui).as_u64() > WINDOW_MS, "FOR is only {tui:?}");

    let line = last_batch_json_line(ticks as u64);
    assert_eq!(line["meta"]["collected_at_ms"], at.as_u64());
    let warnings = line["trends"]["warnings"].as_array().unwrap();
    let leak = warnings
        .iter()
        .find(|w| w["kind"] == "leak_suspect" && w["pid"] == 3377)
        .expect("the demo leak in trends.warnings");
    assert_eq!(leak["since"], rfc3339::from_unix_ms(tui));
}
