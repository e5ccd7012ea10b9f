//! Every screen restop draws, at the five terminal sizes operators use
//! (40x12, 80x24, 120x40, 160x48, 220x60), as text snapshots: the demo host
//! after 70 simulated seconds (a leak suspect, ERROR QPs, limit warnings) and
//! the hand-made fixture. Nothing is cut mid-word; what does not fit is
//! dropped by priority. No wall clock.

use crate::tui_common::*;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::demo::DemoSource;
use restop::interactive::app::{App, AppConfig, Command, Event};
use restop::interactive::frame;
use restop::model::{DetailScope, SourceKind};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

const SIZES: [(u16, u16); 5] = [(40, 12), (80, 24), (120, 40), (160, 48), (220, 60)];

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| frame::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

struct Demo {
    source: DemoSource,
}

impl Demo {
    fn feed(&mut self, app: &mut App, details: DetailScope) -> Vec<Command> {
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
        let mut commands = app.update(snapshot_event(snapshot, details));
        commands.extend(app.update(Event::Tick(now)));
        commands
    }
}

/// The demo host after `seconds` of simulated time, at `w`x`h`.
fn demo_app(w: u16, h: u16, seconds: u64) -> (App, Demo) {
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(w, h));
    let mut demo = Demo {
        source: DemoSource::new(1, Duration::from_secs(2)),
    };
    for _ in 0..=seconds / 2 {
        demo.feed(&mut app, DetailScope::ErrorsOnly);
    }
    (app, demo)
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

/// Snapshots `app` at every size under `name_WxH`, telling it of each size first.
fn at_every_size(name: &str, app: &mut App) {
    for (w, h) in SIZES {
        app.update(Event::Resize(w, h));
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(app, w, h));
    }
}

#[test]
fn demo_main_screen() {
    let (mut app, _) = demo_app(80, 24, 70);
    at_every_size("demo_main", &mut app);
}

#[test]
fn fixture_main_screen() {
    let mut app = app();
    at_every_size("fixture_main", &mut app);
}

#[test]
fn demo_drill_down_of_the_leak_suspect() {
    let (mut app, mut demo) = demo_app(80, 24, 70);
    app.update(ch('/'));
    typed(&mut app, "leaky");
    app.update(key(KeyCode::Enter));
    let commands = app.update(key(KeyCode::Enter));
    demo.feed(&mut app, details_asked(&commands));
    at_every_size("demo_drill", &mut app);
}

#[test]
fn fixture_drill_down() {
    let mut app = app();
    app.update(key(KeyCode::Enter));
    collect_as_asked(
        &mut app,
        DetailScope::Processes([100].into_iter().collect()),
    );
    at_every_size("fixture_drill", &mut app);
}

#[test]
fn demo_alerts_panel() {
    let (mut app, _) = demo_app(80, 24, 70);
    app.update(ch('a'));
    at_every_size("demo_alerts", &mut app);
}

#[test]
fn demo_error_qp_pane() {
    let (mut app, _) = demo_app(80, 24, 70);
    app.update(ch('e'));
    at_every_size("demo_error_qps", &mut app);
}

#[test]
fn fixture_error_qp_pane() {
    let mut app = app();
    app.update(ch('e'));
    at_every_size("fixture_error_qps", &mut app);
}

/// The demo's storm (`--demo-at 44s`): the problems strip at every size,
/// one summary line at 24 rows and below, a growing share above.
#[test]
fn demo_storm_main_screen() {
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(80, 24));
    let mut demo = Demo {
        source: DemoSource::starting_at(1, Duration::from_secs(2), Duration::from_secs(44)),
    };
    for _ in 0..2 {
        demo.feed(&mut app, DetailScope::ErrorsOnly);
    }
    at_every_size("demo_storm_main", &mut app);
}
