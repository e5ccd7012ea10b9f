//! The signal dialog in the application state: F9/K opens it on the selected
//! process, Esc sends nothing, Enter emits the command keyed by pid and start
//! time; --read-only, demo and replay data, kernel owners and the
//! unattributed row refuse and say why.

use crate::tui_common::*;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::interactive::app::signal::{SignalKind, SignalOutcome, SignalRequest};
use restop::interactive::app::{App, AppConfig, Command, Event};
use restop::interactive::frame;
use restop::interactive::screens::signal::SignalScreen;
use restop::model::{DetailScope, SourceKind};

fn app_on(source: SourceKind, config: AppConfig) -> App {
    let mut app = App::new(config, source);
    app.update(Event::Resize(80, 24));
    app.update(Event::Tick(NOW_MS));
    let details = DetailScope::ErrorsOnly;
    app.update(snapshot_event(fixture(&details), details));
    app
}

fn live() -> App {
    app_on(SourceKind::Live, AppConfig::default())
}

fn signals(commands: &[Command]) -> Vec<SignalRequest> {
    commands
        .iter()
        .filter_map(|c| match c {
            Command::Signal(r) => Some(*r),
            _ => None,
        })
        .collect()
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| frame::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

#[test]
fn f9_and_shift_k_open_the_dialog_on_the_selected_process() {
    for open in [key(KeyCode::F(9)), ch('K')] {
        let mut app = live();
        assert_eq!(selected_name(&app).as_deref(), Some("train.py"));
        assert!(signals(&app.update(open)).is_empty());
        let dialog = app.top_as::<SignalScreen>().expect("dialog open");
        assert_eq!((dialog.pid, dialog.start_time), (100, 1100));
        assert_eq!(dialog.comm, "pt_main_thread");
        assert_eq!(dialog.cmdline, "python3 train.py --epochs 3");
    }
}

#[test]
fn lower_k_still_moves_up() {
    let mut app = live();
    app.update(ch('j'));
    app.update(ch('k'));
    assert!(app.top_as::<SignalScreen>().is_none());
    assert_eq!(selected_name(&app).as_deref(), Some("train.py"));
}

#[test]
fn esc_cancels_and_sends_nothing() {
    let mut app = live();
    app.update(key(KeyCode::F(9)));
    let commands = app.update(key(KeyCode::Esc));
    assert!(signals(&commands).is_empty());
    assert!(app.screens.is_empty(), "{:?}", app.screen_ids());
    // q in the dialog cancels too, and does not quit.
    app.update(key(KeyCode::F(9)));
    let commands = app.update(ch('q'));
    assert!(signals(&commands).is_empty());
    assert!(!app.quitting);
}

#[test]
fn enter_emits_term_by_default_keyed_by_pid_and_start_time() {
    let mut app = live();
    app.update(key(KeyCode::F(9)));
    let commands = app.update(key(KeyCode::Enter));
    assert_eq!(
        signals(&commands),
        [SignalRequest {
            pid: 100,
            start_time: 1100,
            signal: SignalKind::Term
        }]
    );
    assert!(app.screens.is_empty());
}

#[test]
fn kill_is_chosen_with_the_arrows() {
    let mut app = live();
    app.update(key(KeyCode::F(9)));
    app.update(key(KeyCode::End));
    let commands = app.update(key(KeyCode::Enter));
    assert_eq!(signals(&commands)[0].signal, SignalKind::Kill);
}

#[test]
fn the_result_comes_back_in_the_footer_until_the_next_key() {
    let mut app = live();
    let request = SignalRequest {
        pid: 100,
        start_time: 1100,
        signal: SignalKind::Term,
    };
    let outcome = SignalOutcome::NotPermitted;
    app.update(Event::SignalResult { request, outcome });
    let shown = screen(&app, 100, 24);
    assert!(
        shown.contains("SIGTERM to pid 100 not permitted (run as the process's user or root)"),
        "{shown}"
    );
    app.update(ch('j'));
    assert!(app.status.is_none());
}

#[test]
fn a_drill_down_signals_its_process() {
    let mut app = live();
    app.update(key(KeyCode::Enter));
    assert!(app.drill().is_some());
    app.update(ch('K'));
    let commands = app.update(key(KeyCode::Enter));
    assert_eq!(signals(&commands)[0].pid, 100);
    assert!(app.drill().is_some(), "back on the drill-down");
}

fn refused(app: &mut App, open: Event) -> String {
    let commands = app.update(open);
    assert!(signals(&commands).is_empty());
    assert!(app.top_as::<SignalScreen>().is_none());
    app.status.clone().unwrap_or_default()
}

#[test]
fn read_only_refuses() {
    let config = AppConfig {
        read_only: true,
        ..AppConfig::default()
    };
    let mut app = app_on(SourceKind::Live, config);
    assert!(refused(&mut app, key(KeyCode::F(9))).contains("read-only"));
    assert!(screen(&app, 80, 24).contains("read-only"));
}

#[test]
fn demo_and_replay_data_refuse() {
    for source in [SourceKind::Demo, SourceKind::Replay] {
        let mut app = app_on(source, AppConfig::default());
        let said = refused(&mut app, ch('K'));
        assert!(
            said.contains("pids of demo/replay data are not this host's"),
            "{source:?}: {said}"
        );
    }
}

#[test]
fn kernel_owners_and_the_unattributed_row_refuse() {
    let mut app = live();
    app.update(ch('j'));
    app.update(ch('j'));
    assert_eq!(selected_name(&app).as_deref(), Some("[nvme_rdma]"));
    assert!(refused(&mut app, key(KeyCode::F(9))).contains("kernel owners"));
    app.update(ch('j'));
    assert_eq!(selected_name(&app).as_deref(), Some("(unattributed)"));
    assert!(refused(&mut app, key(KeyCode::F(9))).contains("unattributed"));
}

#[test]
fn the_devices_pane_refuses() {
    let mut app = live();
    app.update(key(KeyCode::Tab));
    assert!(refused(&mut app, key(KeyCode::F(9))).contains("select a process"));
}

#[test]
fn dialog_snapshot() {
    let mut app = live();
    app.update(key(KeyCode::F(9)));
    insta::assert_snapshot!("signal_dialog_80x24", screen(&app, 80, 24));
    app.update(Event::Resize(40, 12));
    insta::assert_snapshot!("signal_dialog_40x12", screen(&app, 40, 12));
}

#[test]
fn the_footer_names_the_dialogs_keys_not_the_screens_below() {
    let mut app = live();
    app.update(key(KeyCode::F(9)));
    for (w, h) in [(80, 24), (40, 12)] {
        app.update(Event::Resize(w, h));
        let text = screen(&app, w, h);
        let footer = text.lines().last().unwrap();
        assert!(footer.contains("↑↓ choose ⏎ send Esc cancel"), "{footer}");
        for below in ["sort QP", "q quit", "F6 sort", "freeze"] {
            assert!(!footer.contains(below), "{w}x{h}: {footer}");
        }
    }
    app.update(key(KeyCode::Esc));
    let footer = screen(&app, 40, 12).lines().last().unwrap().to_string();
    assert!(
        footer.contains("q quit"),
        "the screen's keys again: {footer}"
    );
}
