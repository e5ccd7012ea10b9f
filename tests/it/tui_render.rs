//! What the TUI draws, as text snapshots of a `TestBackend`, driven by fixed
//! snapshots (the deterministic demo host, or the hand-made fixture). No wall
//! clock: "now" is injected with a tick.

use crate::tui_common::*;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::{Color, Modifier};
use restop::demo::DemoSource;
use restop::interactive::app::{App, AppConfig, Command, Event};
use restop::interactive::frame;
use restop::model::{DetailScope, Snapshot, SourceKind};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

pub(crate) fn draw(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| frame::draw(f, app)).unwrap();
    terminal
}

pub(crate) fn screen(app: &App, w: u16, h: u16) -> String {
    draw(app, w, h).backend().to_string()
}

/// The demo host, advanced `steps` collections, collected with `details`.
pub(crate) struct Demo {
    source: DemoSource,
}

impl Demo {
    fn new() -> Demo {
        Demo {
            source: DemoSource::new(1, Duration::from_secs(2)),
        }
    }

    fn collect(&mut self, details: &DetailScope) -> Snapshot {
        self.source
            .collect(&CollectRequest {
                details: details.clone(),
                force_objects: true,
            })
            .unwrap()
    }

    /// Feeds one collection made the way the app last asked.
    pub(crate) fn feed(&mut self, app: &mut App, details: DetailScope) -> Vec<Command> {
        let snapshot = self.collect(&details);
        let now = snapshot
            .meta
            .collected_at_ms
            .plus(restop::model::Millis(3_000));
        let mut commands = app.update(snapshot_event(snapshot, details));
        commands.extend(app.update(Event::Tick(now)));
        commands
    }
}

pub(crate) fn demo_app(w: u16, h: u16, config: AppConfig) -> (App, Demo) {
    let mut app = App::new(config, SourceKind::Demo);
    app.update(Event::Resize(w, h));
    let mut demo = Demo::new();
    demo.feed(&mut app, DetailScope::ErrorsOnly);
    (app, demo)
}

/// Feeds demo collections until some QP is in ERR/SQE (deterministic for the seed).
fn until_error_qps(app: &mut App, demo: &mut Demo) {
    for _ in 0..500 {
        if !app.insights.error_qps.is_empty() {
            return;
        }
        demo.feed(app, DetailScope::ErrorsOnly);
    }
    panic!("the demo host never showed an ERROR QP");
}

fn details_asked(commands: &[Command]) -> DetailScope {
    commands
        .iter()
        .rev()
        .find_map(|c| match c {
            Command::SetDetails(d) => Some(d.clone()),
            _ => None,
        })
        .unwrap_or(DetailScope::ErrorsOnly)
}

#[test]
fn main_screen_80x24() {
    let (app, _) = demo_app(80, 24, AppConfig::default());
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn main_screen_160x50() {
    let (app, _) = demo_app(160, 50, AppConfig::default());
    insta::assert_snapshot!(screen(&app, 160, 50));
}

#[test]
fn main_screen_fixture_80x24() {
    let app = app();
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn drill_down_loading_then_loaded() {
    let (mut app, mut demo) = demo_app(100, 30, AppConfig::default());
    let commands = app.update(key(KeyCode::Enter));
    insta::assert_snapshot!("drill_down_loading", screen(&app, 100, 30));
    demo.feed(&mut app, details_asked(&commands));
    insta::assert_snapshot!("drill_down_loaded", screen(&app, 100, 30));
    app.update(ch('3'));
    insta::assert_snapshot!("drill_down_mr_tab", screen(&app, 100, 30));
}

#[test]
fn drill_down_fixture_80x24() {
    let mut app = app();
    app.update(key(KeyCode::Enter));
    collect_as_asked(
        &mut app,
        DetailScope::Processes([100].into_iter().collect()),
    );
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn error_qp_pane() {
    let (mut app, mut demo) = demo_app(100, 30, AppConfig::default());
    until_error_qps(&mut app, &mut demo);
    app.update(ch('e'));
    insta::assert_snapshot!(screen(&app, 100, 30));
}

#[test]
fn error_qp_pane_fixture_80x24() {
    let mut app = app();
    app.update(ch('e'));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn sort_menu_80x24() {
    let mut app = app();
    app.update(key(KeyCode::F(6)));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn sort_menu_40x12() {
    let mut app = app_sized(40, 12);
    app.update(key(KeyCode::F(6)));
    insta::assert_snapshot!(screen(&app, 40, 12));
}

#[test]
fn device_view_80x24() {
    let mut app = app();
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Enter));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn help_overlay() {
    let (mut app, _) = demo_app(80, 24, AppConfig::default());
    app.update(ch('?'));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn frozen_with_a_filter_being_typed() {
    let mut app = app();
    app.update(ch(' '));
    collect_as_asked(&mut app, DetailScope::ErrorsOnly);
    app.update(ch('/'));
    typed(&mut app, "ali");
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn collection_error_keeps_the_last_snapshot() {
    let mut app = app();
    app.update(Event::Snapshot {
        result: Err(restop::source::CollectError::PermissionDenied {
            what: "QP dump".into(),
            hint: "run as root or grant CAP_NET_ADMIN".into(),
        }),
        details: DetailScope::ErrorsOnly,
    });
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("collection failed: permission denied"),
        "{text}"
    );
    assert!(text.contains("train.py"));
}

#[test]
fn before_the_first_snapshot() {
    let mut app = App::new(AppConfig::default(), SourceKind::Live);
    app.update(Event::Resize(80, 24));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn tiny_terminals_say_so() {
    let app = app();
    insta::assert_snapshot!("tiny_1x1", screen(&app, 1, 1));
    insta::assert_snapshot!("tiny_10x3", screen(&app, 10, 3));
    insta::assert_snapshot!("tiny_39x12", screen(&app, 39, 12));
}

#[test]
fn every_screen_draws_at_every_size_without_panicking() {
    let mut apps = Vec::new();
    apps.push(app());
    let mut drill = app();
    drill.update(key(KeyCode::Enter));
    collect_as_asked(
        &mut drill,
        DetailScope::Processes([100].into_iter().collect()),
    );
    apps.push(drill);
    let mut errors = app();
    errors.update(ch('e'));
    apps.push(errors);
    let mut help = app();
    help.update(ch('?'));
    apps.push(help);
    let mut filtering = app();
    filtering.update(ch('/'));
    apps.push(filtering);
    for app in &mut apps {
        for w in (0..=120).step_by(7).chain([1, 2, 39, 40, 41, 80]) {
            for h in (0..=40).step_by(3).chain([1, 2, 9, 10, 11, 24]) {
                // The app learns of the size through a resize, as in the terminal.
                app.update(Event::Resize(w, h));
                draw(app, w, h);
            }
        }
    }
}

#[test]
fn no_color_leaves_every_cell_in_the_default_colours() {
    let config = AppConfig {
        color: false,
        ..AppConfig::default()
    };
    let (mut app, mut demo) = demo_app(120, 40, config);
    until_error_qps(&mut app, &mut demo);
    for keys in [
        vec![],
        vec![ch('e')],
        vec![key(KeyCode::Esc), key(KeyCode::Enter)],
        vec![ch('?')],
    ] {
        for k in keys {
            app.update(k);
        }
        let terminal = draw(&app, 120, 40);
        for cell in terminal.backend().buffer().content() {
            assert_eq!(cell.fg, Color::Reset, "fg of {:?}", cell.symbol());
            assert_eq!(cell.bg, Color::Reset, "bg of {:?}", cell.symbol());
        }
    }
    // Without colour, the demo badge is still unmistakable: reversed.
    let (app, _) = demo_app(
        120,
        40,
        AppConfig {
            color: false,
            ..AppConfig::default()
        },
    );
    let terminal = draw(&app, 120, 40);
    let buf = terminal.backend().buffer();
    let badge = (0..120)
        .find(|x| buf[(*x, 0)].symbol() == "D")
        .expect("DEMO badge");
    assert!(buf[(badge, 0)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn colour_marks_the_demo_badge_and_thresholds_but_not_plain_text() {
    let (app, _) = demo_app(160, 50, AppConfig::default());
    let terminal = draw(&app, 160, 50);
    let buf = terminal.backend().buffer();
    let badge = (0..160)
        .find(|x| buf[(*x, 0)].symbol() == "D")
        .expect("DEMO badge");
    assert_eq!(buf[(badge, 0)].bg, Color::Yellow);
    // Consumer names use the terminal's own foreground.
    let text = terminal.backend().to_string();
    // Below the header, whose limit warnings may name it too.
    let row = 2 + text
        .lines()
        .skip(2)
        .position(|l| l.contains("train.py"))
        .expect("a train.py row");
    let y = u16::try_from(row).unwrap();
    let x = (0..160u16)
        .find(|x| buf[(*x, y)].symbol() == "t" && buf[(*x + 1, y)].symbol() == "r")
        .unwrap();
    assert_eq!(buf[(x, y)].fg, Color::Reset);
}

#[test]
fn the_sorted_column_is_marked() {
    let mut app = app();
    assert!(screen(&app, 80, 24).contains("QP▼"));
    app.update(ch('r'));
    assert!(screen(&app, 80, 24).contains("QP▲"));
    app.update(ch('s'));
    assert!(screen(&app, 80, 24).contains("CQ▼"));
}
