//! The history in the interactive view: baseline (`b`), sparklines (`t`), the
//! alerts panel (`a`), ERROR-QP ages and the leak verdict in the drill-down.
//! State tests on the hand-made fixture and the demo host, and text snapshots
//! of what is drawn. No wall clock.

use crate::tui_common::*;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::demo::DemoSource;
use restop::interactive::app::{App, AppConfig, Event};
use restop::interactive::frame;
use restop::interactive::widgets::table::Cell;
use restop::model::history::AlertKind;
use restop::model::{DetailScope, ResourceType, Snapshot, SourceKind};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| frame::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

/// The fixture, `seconds` later, with pid 100 holding `extra` more MRs.
fn fixture_later(seconds: u64, extra: u64) -> Snapshot {
    let mut s = fixture(&DetailScope::ErrorsOnly);
    s.meta.collected_at_ms = s
        .meta
        .collected_at_ms
        .plus(restop::model::Millis::from_secs(seconds));
    for d in &mut s.devices {
        d.objects.collected_at_ms = Some(s.meta.collected_at_ms);
    }
    if let Some(t) = s.tallies.iter_mut().find(|t| t.owner == owner(100)) {
        t.counts.add(ResourceType::Mr, extra);
        t.mr_bytes += extra << 20;
    }
    s
}

fn feed(app: &mut App, snapshot: Snapshot) {
    let now = snapshot
        .meta
        .collected_at_ms
        .plus(restop::model::Millis(3_000));
    app.update(snapshot_event(snapshot, DetailScope::ErrorsOnly));
    app.update(Event::Tick(now));
}

fn delta_mr(app: &App, pid: u32) -> Option<i64> {
    app.main
        .deltas
        .get(&owner(pid))
        .map(|d| d.counts.get(ResourceType::Mr))
}

struct Demo {
    source: DemoSource,
}

impl Demo {
    fn new() -> Demo {
        Demo {
            source: DemoSource::new(1, Duration::from_secs(2)),
        }
    }

    fn feed(&mut self, app: &mut App, details: DetailScope) {
        let snapshot = self
            .source
            .collect(&CollectRequest {
                details: details.clone(),
                force_objects: true,
            })
            .unwrap();
        let now = snapshot
            .meta
            .collected_at_ms
            .plus(restop::model::Millis(3_000));
        app.update(snapshot_event(snapshot, details));
        app.update(Event::Tick(now));
    }

    /// An app fed `seconds` of the demo host.
    fn app(w: u16, h: u16, seconds: u64) -> (App, Demo) {
        let mut app = App::new(AppConfig::default(), SourceKind::Demo);
        app.update(Event::Resize(w, h));
        let mut demo = Demo::new();
        for _ in 0..=seconds / 2 {
            demo.feed(&mut app, DetailScope::ErrorsOnly);
        }
        (app, demo)
    }
}

#[test]
fn b_marks_the_shown_snapshot_and_b_again_clears_it() {
    let mut app = app();
    assert!(app.main.deltas.is_empty());
    app.update(ch('b'));
    assert!(app.history.baseline().is_some());
    assert_eq!(delta_mr(&app, 100), Some(0));
    feed(&mut app, fixture_later(10, 7));
    assert_eq!(delta_mr(&app, 100), Some(7));
    assert_eq!(app.main.deltas[&owner(100)].mr_bytes, 7 << 20);
    assert_eq!(delta_mr(&app, 200), Some(0));
    app.update(ch('b'));
    assert!(app.history.baseline().is_none());
    assert!(app.main.deltas.is_empty());
}

#[test]
fn with_a_baseline_counts_sort_by_their_change() {
    let mut app = app();
    app.update(ch('b'));
    // pid 200 gains the most MRs; it holds fewer QPs than pid 100.
    let mut later = fixture_later(10, 1);
    if let Some(t) = later.tallies.iter_mut().find(|t| t.owner == owner(200)) {
        t.counts.add(ResourceType::Qp, 50);
    }
    feed(&mut app, later);
    assert_eq!(names(&app)[0], "ib_write_bw", "QP change: +50 against 0");
}

#[test]
fn freeze_keeps_the_baseline_deltas_of_the_frozen_snapshot() {
    let mut app = app();
    app.update(ch('b'));
    app.update(ch(' '));
    feed(&mut app, fixture_later(10, 7));
    assert_eq!(delta_mr(&app, 100), Some(0), "still the frozen snapshot");
    assert_eq!(
        app.history.latest_ms(),
        Some(COLLECTED_AT_MS.plus(restop::model::Millis(10_000))),
        "the history took it in"
    );
    app.update(ch(' '));
    assert_eq!(delta_mr(&app, 100), Some(7));
}

#[test]
fn b_while_frozen_marks_the_frozen_snapshot() {
    let mut app = app();
    app.update(ch(' '));
    feed(&mut app, fixture_later(10, 7));
    app.update(ch('b'));
    assert_eq!(app.history.baseline().unwrap().at_ms, COLLECTED_AT_MS);
    app.update(ch(' '));
    assert_eq!(delta_mr(&app, 100), Some(7));
}

#[test]
fn t_toggles_the_sparklines() {
    let mut app = app_sized(160, 40);
    assert!(!app.sparklines);
    app.update(ch('t'));
    assert!(app.sparklines);
    let text = screen(&app, 160, 40);
    assert!(text.contains("QP TREND"), "{text}");
    app.update(ch('t'));
    assert!(!screen(&app, 160, 40).contains("QP TREND"));
}

#[test]
fn a_opens_the_problems_list() {
    let mut app = app();
    app.update(ch('a'));
    assert_eq!(app.screen_ids(), ["alerts"]);
    // The problems list (rank, severity, kind, since, why): mlx5_1's QPs
    // (90%) and MRs (97%) past the thresholds, the ERROR QPs of two owners and
    // the objects without an owner. The snapshot's permission note (MR keys
    // hidden) is not a problem: the header says it.
    let kinds: Vec<&Cell> = alerts_pane(&app).rows.iter().map(|r| &r.cells[2]).collect();
    assert_eq!(
        kinds,
        [
            &Cell::Text("limit".into()),
            &Cell::Text("limit".into()),
            &Cell::Text("error_qps".into()),
            &Cell::Text("error_qps".into()),
            &Cell::Text("unattributed".into())
        ]
    );
    app.update(ch('a'));
    assert!(app.screen_ids().is_empty());
    // From the ERROR pane, `a` goes on top; `e` comes back to the pane below.
    app.update(ch('e'));
    app.update(ch('a'));
    assert_eq!(app.screen_ids(), ["error_qps", "alerts"]);
    app.update(ch('e'));
    assert_eq!(app.screen_ids(), ["error_qps"]);
}

#[test]
fn error_qp_ages_grow_across_ticks() {
    let mut app = app();
    app.update(ch('e'));
    let age = |app: &App| match &error_pane(app).rows[0].cells[6] {
        Cell::Age {
            ms, lower_bound, ..
        } => (*ms, *lower_bound),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        age(&app),
        (Some(restop::model::Millis(0)), true),
        "already in ERR at the start"
    );
    feed(&mut app, fixture_later(30, 0));
    assert_eq!(age(&app), (Some(restop::model::Millis(30_000)), true));
    feed(&mut app, fixture_later(61, 0));
    match &error_pane(&app).rows[0].cells[6] {
        Cell::Age { lingering, .. } => assert!(lingering),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        app.insights
            .alerts
            .iter()
            .filter(|a| a.kind == AlertKind::ErrorQpLingering)
            .count(),
        2,
        "train.py's ERR QP and nvme_rdma's SQE QP"
    );
}

#[test]
fn the_demo_leak_shows_in_alerts_and_enter_opens_its_owner() {
    let (mut app, _demo) = Demo::app(120, 30, 60);
    assert_eq!(app.insights.leak_suspects(), 1);
    app.update(ch('a'));
    let leak = alerts_pane(&app)
        .rows
        .iter()
        .position(|r| r.cells[2] == Cell::Text("leak_suspect".into()))
        .expect("a leak_suspect row");
    // The selection followed the warning row it was on; start from the top.
    app.update(key(KeyCode::Home));
    for _ in 0..leak {
        app.update(key(KeyCode::Down));
    }
    app.update(key(KeyCode::Enter));
    let drill = app.drill().expect("the drill-down");
    assert_eq!(drill.consumer.as_ref().unwrap().name, "leaky_svc");
}

#[test]
fn demo_main_screen_with_sparklines() {
    let (mut app, _demo) = Demo::app(160, 40, 90);
    app.update(ch('t'));
    insta::assert_snapshot!(screen(&app, 160, 40));
}

#[test]
fn demo_main_screen_80x24_with_sparklines() {
    let (mut app, _demo) = Demo::app(80, 24, 90);
    app.update(ch('t'));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn demo_consumers_since_a_baseline() {
    let (mut app, mut demo) = Demo::app(120, 30, 10);
    app.update(ch('b'));
    for _ in 0..15 {
        demo.feed(&mut app, DetailScope::ErrorsOnly);
    }
    app.update(ch('s')); // QP → CQ
    app.update(ch('s')); // CQ → MR: who gained the most MRs
    insta::assert_snapshot!(screen(&app, 120, 30));
}

#[test]
fn demo_alerts_panel() {
    let (mut app, _demo) = Demo::app(120, 20, 70);
    app.update(ch('a'));
    insta::assert_snapshot!(screen(&app, 120, 20));
}

#[test]
fn demo_drill_down_explains_the_leak() {
    let (mut app, mut demo) = Demo::app(120, 16, 70);
    typed(&mut app, "/leaky");
    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Enter));
    demo.feed(
        &mut app,
        DetailScope::Processes([3377].into_iter().collect()),
    );
    insta::assert_snapshot!(screen(&app, 120, 16));
}

#[test]
fn demo_error_pane_sorted_by_age() {
    let (mut app, mut demo) = Demo::app(100, 16, 10);
    // Every object kept, so the QPs are seen before they break.
    for _ in 0..20 {
        demo.feed(&mut app, DetailScope::All);
    }
    app.update(ch('e'));
    let n = error_pane(&app).rows.len();
    assert!(n >= 2, "{n}");
    insta::assert_snapshot!(screen(&app, 100, 16));
}
