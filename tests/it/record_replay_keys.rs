//! The interactive view on a recording: what each replay key does to the
//! state and which snapshot it asks for. No clock: time comes with ticks.

use crate::tui_common::*;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::interactive::app::{App, AppConfig, Command, Event};
use restop::interactive::screens::drill::DetailState;
use restop::model::{DetailScope, SourceKind};

/// Ten minutes recorded every 2 s (300 snapshots), starting at the fixture's time.
fn times() -> Vec<restop::model::UnixMs> {
    (0..300)
        .map(|i| COLLECTED_AT_MS.plus(restop::model::Millis(i * 2_000)))
        .collect()
}

fn shows(commands: &[Command]) -> Vec<usize> {
    commands
        .iter()
        .filter_map(|c| match c {
            Command::ShowRecord(i) => Some(*i),
            _ => None,
        })
        .collect()
}

/// A replay app at wall time 0 that has shown the recording's first snapshot.
fn replay_app() -> App {
    let mut app = App::new(AppConfig::default(), SourceKind::Replay);
    app.start_replay(times());
    let first = app.update(Event::Resize(100, 30));
    assert_eq!(
        shows(&first),
        [0],
        "the first snapshot is asked for at once"
    );
    app.update(Event::Tick(restop::model::UnixMs(0)));
    let details = DetailScope::ErrorsOnly;
    app.update(snapshot_event(fixture(&details), details));
    app
}

fn position(app: &App) -> usize {
    app.replay.as_ref().unwrap().position()
}

fn header(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    terminal
        .draw(|f| restop::interactive::frame::draw(f, app))
        .unwrap();
    let screen = terminal.backend().to_string();
    screen.lines().next().unwrap().to_string()
}

#[test]
fn plays_at_the_recorded_pace_through_ticks() {
    let mut app = replay_app();
    assert!(shows(&app.update(Event::Tick(restop::model::UnixMs(1_999)))).is_empty());
    assert_eq!(
        shows(&app.update(Event::Tick(restop::model::UnixMs(2_000)))),
        [1]
    );
    assert_eq!(
        shows(&app.update(Event::Tick(restop::model::UnixMs(6_100)))),
        [3]
    );
    assert_eq!(position(&app), 3);
}

#[test]
fn space_pauses_instead_of_freezing() {
    let mut app = replay_app();
    app.update(ch(' '));
    assert!(!app.frozen);
    assert!(!app.replay.as_ref().unwrap().playing());
    assert!(
        shows(&app.update(Event::Tick(restop::model::UnixMs(60_000)))).is_empty(),
        "paused"
    );
    app.update(ch(' '));
    assert!(app.replay.as_ref().unwrap().playing());
    assert_eq!(
        shows(&app.update(Event::Tick(restop::model::UnixMs(62_000)))),
        [1]
    );
}

#[test]
fn comma_and_period_step_one_snapshot_and_pause() {
    let mut app = replay_app();
    assert_eq!(shows(&app.update(ch('.'))), [1]);
    assert_eq!(shows(&app.update(ch('.'))), [2]);
    assert_eq!(shows(&app.update(ch(','))), [1]);
    assert!(!app.replay.as_ref().unwrap().playing());
    app.update(ch(','));
    assert!(
        shows(&app.update(ch(','))).is_empty(),
        "nothing before the first"
    );
}

#[test]
fn brackets_change_the_speed() {
    let mut app = replay_app();
    app.update(ch(']'));
    app.update(ch(']'));
    assert_eq!(app.replay.as_ref().unwrap().speed_label(), "4×");
    assert_eq!(
        shows(&app.update(Event::Tick(restop::model::UnixMs(500)))),
        [1],
        "2 s in half a second"
    );
    app.update(ch('['));
    assert_eq!(app.replay.as_ref().unwrap().speed_label(), "2×");
}

#[test]
fn braces_seek_a_minute_and_caret_dollar_the_ends() {
    let mut app = replay_app();
    assert_eq!(shows(&app.update(ch('}'))), [30]);
    assert_eq!(shows(&app.update(ch('}'))), [60]);
    assert_eq!(shows(&app.update(ch('{'))), [30]);
    assert_eq!(shows(&app.update(ch('$'))), [299]);
    assert!(
        !app.replay.as_ref().unwrap().playing(),
        "stopped at the end"
    );
    assert_eq!(shows(&app.update(ch('^'))), [0]);
}

#[test]
fn the_interval_keys_do_nothing_in_a_replay() {
    let mut app = replay_app();
    let commands = app.update(ch('+'));
    assert!(
        !commands
            .iter()
            .any(|c| matches!(c, Command::SetInterval(_))),
        "{commands:?}"
    );
}

#[test]
fn replay_keys_do_nothing_on_live_data() {
    let mut app = app();
    for c in [',', '.', '[', ']', '{', '}', '^', '$'] {
        let commands = app.update(ch(c));
        assert!(shows(&commands).is_empty(), "{c}");
    }
    assert!(app.replay.is_none());
    app.update(ch(' '));
    assert!(app.frozen, "Space still freezes live data");
}

#[test]
fn the_header_says_where_in_the_recording_and_how_it_plays() {
    let mut app = replay_app();
    let line = header(&app);
    assert!(line.contains(" REPLAY: recorded data "), "{line}");
    assert!(line.contains(" PLAY 1× "), "{line}");
    assert!(line.contains("2026-01-01 00:00:00 UTC (1/300)"), "{line}");
    assert!(!line.contains("every"), "{line}");
    app.update(ch('}'));
    app.update(ch(' '));
    app.update(ch(']'));
    let line = header(&app);
    assert!(line.contains(" PAUSED 2× "), "{line}");
    assert!(line.contains("2026-01-01 00:01:00 UTC (31/300)"), "{line}");
    app.update(ch('$'));
    assert!(header(&app).contains(" END "));
}

#[test]
fn a_drill_down_says_when_the_recording_lacks_the_objects() {
    let mut app = replay_app();
    app.update(key(KeyCode::Enter));
    let drill = app.drill().expect("drill-down open");
    assert_eq!(drill.details, DetailState::NotRecorded);
}
