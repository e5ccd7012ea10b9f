//! The NIC counters in the interactive view: the devices pane's traffic
//! and health cells at several widths, the device view's ports, and the
//! counters view of one port; driven by the deterministic demo host.

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::demo::DemoSource;
use restop::interactive::app::{App, AppConfig, Event};
use restop::interactive::frame;
use restop::interactive::screens::port_counters::PortCountersScreen;
use restop::model::{DetailScope, SourceKind};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

use crate::tui_common::{ch, key, snapshot_event};

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| frame::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

/// The demo app after `reads` collections 2 s apart (the storm on mlx5_1
/// starts 20 s in).
fn demo_after(reads: usize, w: u16, h: u16) -> App {
    demo_until(AppConfig::default(), reads, w, h, |_| false)
}

/// The demo app with `config`, fed until `done` holds (at most `reads` collections).
fn demo_until(config: AppConfig, reads: usize, w: u16, h: u16, done: impl Fn(&App) -> bool) -> App {
    let mut app = App::new(config, SourceKind::Demo);
    app.update(Event::Resize(w, h));
    let mut demo = DemoSource::new(1, Duration::from_secs(2));
    for _ in 0..reads {
        if done(&app) {
            break;
        }
        let s = demo
            .collect(&CollectRequest {
                details: DetailScope::ErrorsOnly,
                force_objects: true,
            })
            .unwrap();
        let now = s.meta.collected_at_ms.plus(restop::model::Millis(1_000));
        app.update(snapshot_event(s, DetailScope::ErrorsOnly));
        app.update(Event::Tick(now));
    }
    app
}

/// The devices pane's lines of a screen (title, header, rows).
fn devices_pane(text: &str) -> String {
    text.lines()
        .skip_while(|l| !l.contains("Devices ("))
        .take_while(|l| !l.contains("Top consumers"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn devices_pane_with_throughput_at_80_and_160_columns() {
    let mut app = demo_after(14, 80, 24);
    let at_80 = screen(&app, 80, 24);
    insta::assert_snapshot!("devices_pane_throughput_80", devices_pane(&at_80));
    app.update(Event::Resize(160, 40));
    let at_160 = screen(&app, 160, 40);
    insta::assert_snapshot!("devices_pane_throughput_160", devices_pane(&at_160));
    // The storm port names what moved; healthy ports leave the cell empty.
    let storm = at_160.lines().find(|l| l.starts_with("\"mlx5_1 ")).unwrap();
    assert!(storm.contains("np_cnp_sent"), "{storm}");
    let healthy = at_160.lines().find(|l| l.starts_with("\"mlx5_0 ")).unwrap();
    assert!(healthy.contains("GB/s"), "{healthy}");
    assert!(
        !healthy.contains("np_") && !healthy.contains("out_of"),
        "{healthy}"
    );
}

#[test]
fn every_gauge_with_a_limit_keeps_its_bar_and_40_columns_keep_percentages() {
    let mut app = demo_after(3, 40, 16);
    for w in [40u16, 80, 120, 160, 220] {
        app.update(Event::Resize(w, 20));
        let text = screen(&app, w, 20);
        let pane = devices_pane(&text);
        for line in pane.lines().skip(2) {
            // QP has a limit on every demo device: a bar, and a readable percentage.
            assert!(line.contains('░') || line.contains('█'), "{w}: {line}");
            assert!(line.contains('%'), "{w}: {line}");
            assert!(!line.contains('…'), "{w}: {line}");
        }
    }
    app.update(Event::Resize(40, 16));
    insta::assert_snapshot!("devices_pane_40", devices_pane(&screen(&app, 40, 16)));
}

#[test]
fn counters_view_of_the_storm_port() {
    let mut app = demo_after(14, 120, 40);
    // Devices pane, mlx5_1 (4th row), `c`.
    app.update(key(KeyCode::Tab));
    for _ in 0..3 {
        app.update(key(KeyCode::Down));
    }
    app.update(ch('c'));
    let text = screen(&app, 120, 40);
    insta::assert_snapshot!("counters_view_120x40", text);
    assert!(text.contains("Counters of mlx5_1 port 1"));
    // Sorted by rate, the busiest counter comes first.
    app.update(key(KeyCode::Home));
    app.update(ch('s'));
    app.update(ch('s'));
    app.update(key(KeyCode::Home));
    let by_rate = screen(&app, 120, 40);
    // The first row under the column titles (the lines above wrap).
    let first = by_rate
        .lines()
        .skip_while(|l| !l.contains("COUNTER"))
        .nth(1)
        .unwrap();
    assert!(first.contains("port_rcv_data"), "{first}");
    assert!(by_rate.contains("RATE▼"));
    // `c` again closes it.
    app.update(ch('c'));
    assert!(!screen(&app, 120, 40).contains("Counters of"));
}

#[test]
fn device_view_lists_ports_and_opens_their_counters() {
    let mut app = demo_after(14, 100, 30);
    app.update(key(KeyCode::Tab));
    for _ in 0..3 {
        app.update(key(KeyCode::Down));
    }
    app.update(key(KeyCode::Enter));
    let text = screen(&app, 100, 30);
    insta::assert_snapshot!("device_view_with_ports_100x30", text);
    assert!(text.contains("port 1 ACTIVE ens1f1np1"));
    assert!(text.contains("moved:"));
    // Tab to the ports, Enter: the port's counters.
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Enter));
    assert!(screen(&app, 100, 30).contains("Counters of mlx5_1 port 1"));
}

#[test]
fn ports_without_counters_say_so_instead_of_zeros() {
    let app = crate::tui_common::app_sized(80, 24);
    let text = screen(&app, 80, 24);
    let pane = devices_pane(&text);
    assert!(pane.contains("no counters"), "{pane}");
    assert!(!pane.contains("0 B/s"), "{pane}");
}

#[test]
fn every_counters_screen_draws_at_every_size() {
    let mut app = demo_after(14, 120, 40);
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Tab));
    for (w, h) in [
        (40, 10),
        (40, 12),
        (80, 24),
        (120, 40),
        (160, 48),
        (220, 60),
    ] {
        app.update(Event::Resize(w, h));
        let device = screen(&app, w, h);
        assert!(device.contains("port 1"), "{w}x{h}:\n{device}");
        app.update(ch('c'));
        let counters = screen(&app, w, h);
        assert!(counters.contains("COUNTER"), "{w}x{h}:\n{counters}");
        app.update(ch('c'));
    }
}

/// The first cell of the selected alert's row: its kind.
fn selected_kind(app: &App) -> String {
    use restop::interactive::widgets::table::Cell;
    match crate::tui_common::alerts_pane(app)
        .selected()
        .and_then(|r| r.cells.get(2))
    {
        Some(Cell::Text(kind)) => kind.clone(),
        other => panic!("no kind: {other:?}"),
    }
}

/// Moves the alerts panel's selection to the first row of `kind`.
fn select_alert(app: &mut App, kind: &str) {
    app.update(key(KeyCode::Home));
    for _ in 0..crate::tui_common::alerts_pane(app).rows.len() {
        if selected_kind(app) == kind {
            return;
        }
        app.update(key(KeyCode::Down));
    }
    panic!("no {kind} alert");
}

fn counters_open(app: &App) -> Option<(String, u32)> {
    app.top_as::<PortCountersScreen>()
        .map(|c| (c.device.clone(), c.port))
}

#[test]
fn c_on_an_error_qp_opens_its_ports_counters() {
    let mut app = crate::tui_common::app();
    app.update(ch('e'));
    let qp = crate::tui_common::error_pane(&app)
        .selected()
        .cloned()
        .unwrap();
    app.update(ch('c'));
    // The fixture's QPs are on port 1; the pane's DEVICE column names the device.
    let device = match &qp.cells[2] {
        restop::interactive::widgets::table::Cell::Text(d) => d.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(counters_open(&app), Some((device, 1)));
    // `c` again (or Esc) goes back to the pane.
    app.update(ch('c'));
    assert_eq!(app.screen_ids(), ["error_qps"]);
}

#[test]
fn c_on_an_error_qp_without_a_port_opens_its_devices_first_port() {
    use crate::tui_common::{fixture, snapshot_event as event};
    use restop::model::Object;
    let mut snapshot = fixture(&DetailScope::ErrorsOnly);
    for o in &mut snapshot.objects {
        if let Object::Qp(q) = o {
            q.port = None;
        }
    }
    let names: Vec<String> = snapshot.devices.iter().map(|d| d.name.clone()).collect();
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(80, 24));
    app.update(event(snapshot, DetailScope::ErrorsOnly));
    app.update(ch('e'));
    app.update(ch('c'));
    let (device, port) = counters_open(&app).expect("a counters view");
    assert!(names.contains(&device), "{device}");
    assert_eq!(port, 1, "the fixture's devices have port 1 first");
}

/// The demo, QPs lingering after 10 s in ERR, once there are QPs lingering
/// (an alert about a device) and a leak suspect (about a process) beside
/// the limit warnings.
fn demo_with_alerts(w: u16, h: u16) -> App {
    use restop::model::history::AlertKind;
    let mut config = AppConfig::default();
    config.history.alerts.error_qp_linger = Duration::from_secs(10);
    let has = |app: &App, kind| app.insights.alerts.iter().any(|a| a.kind == kind);
    let mut app = demo_until(config, 300, w, h, |app| {
        has(app, AlertKind::ErrorQpLingering) && has(app, AlertKind::LeakSuspect)
    });
    app.update(ch('a'));
    app
}

#[test]
fn c_on_a_problem_about_an_owners_error_qps_says_why_nothing_opens() {
    let mut app = demo_with_alerts(80, 24);
    select_alert(&mut app, "error_qps");
    app.update(ch('c'));
    assert!(counters_open(&app).is_none());
    let said = app.status.clone().unwrap_or_default();
    assert!(said.contains("not a device"), "{said}");
    app.update(key(KeyCode::Esc));
    assert!(app.screen_ids().is_empty(), "{:?}", app.screen_ids());
}

#[test]
fn c_on_an_alert_about_a_process_or_a_warning_says_why_nothing_opens() {
    let mut app = demo_with_alerts(80, 24);
    select_alert(&mut app, "leak_suspect");
    app.update(ch('c'));
    assert!(counters_open(&app).is_none());
    let said = app.status.clone().unwrap_or_default();
    assert!(said.contains("not a device"), "{said}");
    let text = screen(&app, 80, 24);
    insta::assert_snapshot!("alerts_c_on_a_leak_suspect_80x24", text);
    // The next key takes the answer away.
    app.update(key(KeyCode::Down));
    assert!(app.status.is_none());

    select_alert(&mut app, "unattributed");
    app.update(ch('c'));
    assert!(counters_open(&app).is_none());
    let said = app.status.clone().unwrap_or_default();
    assert!(said.contains("not a device"), "{said}");
}

#[test]
fn c_on_a_devices_limit_warning_opens_its_first_port() {
    let mut app = demo_with_alerts(80, 24);
    select_alert(&mut app, "limit");
    let what = match crate::tui_common::alerts_pane(&app)
        .selected()
        .unwrap()
        .cells
        .get(4)
    {
        Some(restop::interactive::widgets::table::Cell::Text(t)) => t.clone(),
        other => panic!("{other:?}"),
    };
    let device = what.split(' ').next().unwrap().to_string();
    assert!(device.starts_with("mlx5_"), "{what}");
    app.update(ch('c'));
    assert_eq!(counters_open(&app), Some((device, 1)));
}

#[test]
fn counters_view_opened_from_the_error_qp_pane() {
    let mut app = demo_after(90, 80, 24);
    app.update(ch('e'));
    let footer = screen(&app, 80, 24).lines().last().unwrap().to_string();
    assert!(footer.contains("c counters"), "{footer}");
    app.update(ch('c'));
    let text = screen(&app, 80, 24);
    assert!(text.contains("Counters of mlx5_"), "{text}");
    insta::assert_snapshot!("counters_from_error_qps_80x24", text);
}

/// The drill-down of the demo process the filter finds, its objects collected.
fn demo_drill(filter: &str, w: u16, h: u16) -> App {
    use crate::tui_common::typed;
    use restop::interactive::app::Command;
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(w, h));
    let mut demo = DemoSource::new(1, Duration::from_secs(2));
    let mut feed = |app: &mut App, details: DetailScope| {
        let s = demo
            .collect(&CollectRequest {
                details: details.clone(),
                force_objects: true,
            })
            .unwrap();
        let now = s.meta.collected_at_ms.plus(restop::model::Millis(1_000));
        app.update(snapshot_event(s, details));
        app.update(Event::Tick(now));
    };
    for _ in 0..14 {
        feed(&mut app, DetailScope::ErrorsOnly);
    }
    app.update(ch('/'));
    typed(&mut app, filter);
    app.update(key(KeyCode::Enter));
    let commands = app.update(key(KeyCode::Enter));
    let details = commands
        .iter()
        .find_map(|c| match c {
            Command::SetDetails(d) => Some(d.clone()),
            _ => None,
        })
        .expect("the drill-down asks for its objects");
    feed(&mut app, details);
    app
}

#[test]
fn the_demos_postgres_shows_its_auto_bound_qp_counter() {
    let app = demo_drill("postgres", 120, 40);
    let text = screen(&app, 120, 40);
    let line = text.lines().find(|l| l.contains("QP counters")).unwrap();
    assert!(line.contains("mlx5_0/1 #1 auto, QPs "), "{line}");
    assert!(line.contains("rx_write_requests"), "{line}");
    insta::assert_snapshot!("drill_postgres_bound_counter_120x40", text);
}

#[test]
fn the_demos_nvmf_tgt_shows_its_manual_counter_moving_in_the_storm() {
    let app = demo_drill("nvmf_tgt", 160, 40);
    let text = screen(&app, 160, 40);
    let line = text.lines().find(|l| l.contains("QP counters")).unwrap();
    assert!(line.contains("mlx5_1/1 #2 manual, QPs "), "{line}");
    // 28 s in, 8 s into the storm on mlx5_1: out_of_sequence is among its busiest values.
    assert!(line.contains("out_of_sequence"), "{line}");
}
