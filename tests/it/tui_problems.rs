//! The problems list in the interactive view: the strip and `a` list what
//! `--once` and `--json` list for the same snapshot, the header's counts
//! are the list's length at every refresh, Enter on the demo's storm opens
//! mlx5_1's port counters; and, in a real terminal (tmux), the storm at
//! `--demo-at 44s`, the view relaid out after `C-z`, a resize and `fg`, the
//! interval flashed on `+`, and `--record` in the header.

use crate::tui_common::*;
use crate::tui_terminal::{PROMPT, Session, restop_under};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::demo::DemoSource;
use restop::interactive::app::{App, AppConfig, Event};
use restop::interactive::frame;
use restop::model::filter::Filter;
use restop::model::problems::{Problem, counts};
use restop::model::{DetailScope, SourceKind};
use restop::output::render_json;
use restop::source::{CollectRequest, Source};
use std::time::Duration;

const STEP: Duration = Duration::from_secs(2);

fn request() -> CollectRequest {
    CollectRequest {
        details: DetailScope::ErrorsOnly,
        force_objects: true,
    }
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| frame::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

/// An app at `w`x`h` fed the demo from `from` on, `n` snapshots.
fn demo_app(w: u16, h: u16, from: Duration, n: usize) -> (App, DemoSource) {
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(w, h));
    let mut demo = DemoSource::starting_at(1, STEP, from);
    for _ in 0..n {
        feed(&mut app, &mut demo);
    }
    (app, demo)
}

fn feed(app: &mut App, demo: &mut DemoSource) {
    let s = demo.collect(&request()).unwrap();
    let now = s.meta.collected_at_ms.plus(restop::model::Millis(1_000));
    app.update(snapshot_event(s, DetailScope::ErrorsOnly));
    app.update(Event::Tick(now));
}

fn listed(problems: &[Problem]) -> Vec<(String, String)> {
    problems
        .iter()
        .map(|p| (p.severity.name().to_string(), p.why.clone()))
        .collect()
}

/// What the header says of `problems`, as it says it when there is room.
fn header_counts(problems: &[Problem]) -> String {
    if problems.is_empty() {
        return "✓ no problems".to_string();
    }
    let parts: Vec<String> = counts(problems)
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{n} {}", s.name()))
        .collect();
    format!("⚑ {} (a)", parts.join(" · "))
}

#[test]
fn the_view_lists_what_once_and_json_list_for_the_same_snapshot() {
    for at in [0, 44, 90, 600] {
        let from = Duration::from_secs(at);
        let (mut app, _) = demo_app(160, 48, from, 1);
        let s = DemoSource::starting_at(1, STEP, from)
            .collect(&request())
            .unwrap();
        let doc = serde_json::to_value(render_json(&s, &Filter::default())).unwrap();
        let json: Vec<(String, String)> = doc["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let field = |k: &str| p[k].as_str().unwrap().to_string();
                (field("severity"), field("why"))
            })
            .collect();
        assert_eq!(listed(&app.insights.problems), json, "at {at} s");
        // `a` lists them all, in that order.
        app.update(ch('a'));
        let text = screen(&app, 220, 60);
        assert!(
            text.contains(&format!("Problems ({})", json.len())),
            "at {at} s:\n{text}"
        );
    }
}

#[test]
fn the_header_counts_are_the_lists_length_at_every_refresh() {
    let (mut app, mut demo) = demo_app(220, 60, Duration::ZERO, 1);
    for _ in 0..60 {
        feed(&mut app, &mut demo);
        let text = screen(&app, 220, 60);
        let header = text.lines().nth(1).unwrap();
        let want = header_counts(&app.insights.problems);
        assert!(header.contains(&want), "{want} in {header}");
    }
}

#[test]
fn the_storm_at_44s_is_listed_and_enter_opens_mlx5_1_port_counters() {
    let (mut app, _) = demo_app(120, 40, Duration::from_secs(44), 2);
    let text = screen(&app, 120, 40);
    assert!(
        text.contains("mlx5_1 port 1: out_of_sequence keeps rising"),
        "{text}"
    );
    let at = app
        .insights
        .problems
        .iter()
        .position(|p| p.why.contains("out_of_sequence keeps rising"))
        .expect("the storm is a problem");
    // Tab twice: devices, then the strip.
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Tab));
    for _ in 0..at {
        app.update(key(KeyCode::Down));
    }
    app.update(key(KeyCode::Enter));
    let text = screen(&app, 120, 40);
    assert!(text.contains("Counters of mlx5_1 port 1"), "{text}");
    // From the full list too.
    app.update(key(KeyCode::Esc));
    app.update(ch('a'));
    for _ in 0..at {
        app.update(key(KeyCode::Down));
    }
    app.update(key(KeyCode::Enter));
    assert!(screen(&app, 120, 40).contains("Counters of mlx5_1 port 1"));
}

#[test]
fn one_summary_line_at_24_rows_never_cut_mid_word() {
    let (app, _) = demo_app(80, 24, Duration::from_secs(44), 2);
    let text = screen(&app, 80, 24);
    let line = text.lines().nth(2).unwrap();
    assert!(line.starts_with("\"critical"), "{line}");
    assert!(line.contains("more (a)"), "{line}");
    // The entry under the summary is the device pane.
    assert!(text.lines().nth(3).unwrap().contains("Devices"), "{text}");
}

/// Starts restop in the session's shell (whatever the width) and waits for it.
fn start(s: &Session, extra: &str) -> i32 {
    let bin = env!("CARGO_BIN_EXE_restop");
    s.type_text(&format!("{bin} --demo {extra}"));
    s.send(&["Enter"]);
    s.wait_for("the TUI", |t| t.contains("train.py"));
    let shell: i32 = s.query("#{pane_pid}").parse().expect("pane pid");
    let pid = restop_under(shell).expect("restop running under the shell");
    s.restop.set(Some(pid));
    pid
}

#[test]
fn tmux_the_storm_at_44s_is_listed_and_enter_opens_its_counters() {
    let Some(s) = Session::start(120, 40) else {
        return;
    };
    start(&s, "--demo-at 44s -d 1s");
    // Listed within two refreshes.
    s.wait_for("the storm in the strip", |t| {
        t.contains("mlx5_1 port 1: out_of_sequence keeps rising")
    });
    s.send(&["a"]);
    let list = s.wait_for("the problems list", |t| t.contains("Problems ("));
    let storm = list
        .lines()
        .filter(|l| {
            l.trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .position(|l| l.contains("out_of_sequence keeps rising"))
        .expect("the storm in the list");
    for _ in 0..storm {
        s.send(&["Down"]);
    }
    s.send(&["Enter"]);
    s.wait_for("mlx5_1's port counters", |t| {
        t.contains("Counters of mlx5_1 port 1")
    });
    s.send(&["q"]);
    s.wait_for("the shell", |t| t.lines().any(|l| l.starts_with(PROMPT)));
}

#[test]
fn tmux_fg_after_a_resize_lays_every_pane_out_at_the_new_size() {
    let Some(s) = Session::start(80, 24) else {
        return;
    };
    start(&s, "-d 500ms");
    s.send(&["C-z"]);
    s.wait_for("the shell after Ctrl-Z", |t| t.contains("Stopped"));
    let _ = s.tmux(&[
        "resize-window",
        "-t",
        &s.query("#{session_name}"),
        "-x",
        "120",
        "-y",
        "40",
    ]);
    s.send(&["fg", "Enter"]);
    // At 120x40 the consumers table has room for the last rows too.
    let text = s.wait_for("the view at 120x40", |t| {
        t.contains("[mlx5_ib]") && t.lines().count() >= 40
    });
    let rule = text
        .lines()
        .find(|l| l.starts_with("─ Top consumers"))
        .expect("the consumers pane");
    assert_eq!(rule.chars().count(), 120, "{rule}");
    s.send(&["q"]);
    s.wait_for("the shell", |t| t.lines().any(|l| l.starts_with(PROMPT)));
}

#[test]
fn tmux_plus_says_the_interval_and_the_header_shows_the_recording() {
    let Some(s) = Session::start(80, 24) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.rec");
    start(&s, &format!("-d 1s --record {}", file.display()));
    s.send(&["+"]);
    s.wait_for("the new interval in the footer", |t| {
        t.contains("collecting every 2 s")
    });
    s.wait_for("the recording in the header", |t| {
        t.lines()
            .next()
            .is_some_and(|l| l.contains("● REC") && l.contains("B"))
    });
    s.send(&["q"]);
    s.wait_for("the shell", |t| t.lines().any(|l| l.starts_with(PROMPT)));
}
