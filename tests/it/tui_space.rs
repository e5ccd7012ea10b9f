//! The main screen's room and the text on every screen: on 40 rows and more
//! the ERROR QPs have a pane under the consumers; no pane leaves a third of
//! the screen empty while another is cut; no line ends in a word broken
//! without its `…`; the drill-down's AGE grows while it is open; the footer
//! names Tab, `c` and `a` where there is room. The demo host, fed snapshot
//! by snapshot: no clock, no sleeps. And in a real terminal (tmux) at 80x24
//! and 120x40, every screen's `…` follows a whole word (one the same screen
//! at 250x70 shows whole) or an identifier wider than its cell.

use crate::tui_common::*;
use crate::tui_terminal::{Session, restop_under};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::demo::DemoSource;
use restop::interactive::app::{App, AppConfig, Command, Event};
use restop::interactive::frame;
use restop::interactive::screens::drill::DrillScreen;
use restop::interactive::widgets::table::Cell;
use restop::model::{DetailScope, Millis, SourceKind};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

const SIZES: [(u16, u16); 5] = [(40, 12), (80, 24), (120, 40), (160, 48), (220, 60)];
const STEP: Duration = Duration::from_secs(2);

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| frame::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

/// The screen's lines without the quotes `TestBackend` puts around them.
fn lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let l = l.strip_prefix('"').unwrap_or(l);
            l.strip_suffix('"').unwrap_or(l).to_string()
        })
        .collect()
}

struct Demo {
    source: DemoSource,
    /// What the view last asked to be collected in detail.
    details: DetailScope,
}

impl Demo {
    fn feed(&mut self, app: &mut App) {
        let snapshot = self
            .source
            .collect(&CollectRequest {
                details: self.details.clone(),
                force_objects: true,
            })
            .unwrap();
        let now = snapshot.meta.collected_at_ms.plus(Millis(1_000));
        let commands = app.update(snapshot_event(snapshot, self.details.clone()));
        self.ask(&commands);
        let commands = app.update(Event::Tick(now));
        self.ask(&commands);
    }

    fn ask(&mut self, commands: &[Command]) {
        for c in commands {
            if let Command::SetDetails(d) = c {
                self.details = d.clone();
            }
        }
    }

    fn key(&mut self, app: &mut App, event: Event) {
        let commands = app.update(event);
        self.ask(&commands);
    }
}

/// The demo host after `seconds` of simulated time (70: a leak suspect,
/// three ERROR QPs, limit warnings, the storm's problems), at `w`x`h`.
fn demo_app(w: u16, h: u16, seconds: u64) -> (App, Demo) {
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(w, h));
    let mut demo = Demo {
        source: DemoSource::new(1, STEP),
        details: DetailScope::ErrorsOnly,
    };
    for _ in 0..=seconds / 2 {
        demo.feed(&mut app);
    }
    (app, demo)
}

#[test]
fn error_qps_are_on_the_main_screen_from_40_rows() {
    for (w, h) in SIZES {
        let (app, _) = demo_app(w, h, 70);
        let text = screen(&app, w, h);
        let shown = text.contains("QPs in ERR/SQE (3");
        assert_eq!(shown, h >= 40, "{w}x{h}:\n{text}");
        if h >= 40 {
            insta::assert_snapshot!(format!("space_main_with_error_qps_{w}x{h}"), text);
        }
    }
}

/// How many lines a pane shows and how many it has to show.
struct Pane {
    name: &'static str,
    rows: u16,
    wanted: usize,
}

#[test]
fn no_pane_leaves_a_third_of_the_screen_empty_while_another_is_cut() {
    // Few consumers (a filter) and many: both ways of going wrong.
    for filter in ["", "train"] {
        for (w, h) in SIZES {
            let (mut app, _) = demo_app(w, h, 70);
            if !filter.is_empty() {
                app.update(ch('/'));
                typed(&mut app, filter);
                app.update(key(KeyCode::Enter));
            }
            let l = app.main_layout();
            let panes = [
                Pane {
                    name: "problems",
                    rows: l.strip.height,
                    wanted: app.insights.problems.len(),
                },
                Pane {
                    name: "devices",
                    rows: l.devices.rows.height,
                    wanted: app.main.devices.len(),
                },
                Pane {
                    name: "consumers",
                    rows: l.consumers.rows.height,
                    wanted: app.main.rows.len(),
                },
                Pane {
                    name: "ERROR QPs",
                    rows: l.error_qps.rows.height,
                    wanted: if h >= 40 {
                        app.main.error_pane.table.rows.len()
                    } else {
                        0
                    },
                },
            ];
            let third = usize::from(h) / 3;
            let empty: Vec<&str> = panes
                .iter()
                .filter(|p| usize::from(p.rows).saturating_sub(p.wanted) > third)
                .map(|p| p.name)
                .collect();
            let cut: Vec<&str> = panes
                .iter()
                .filter(|p| p.wanted > usize::from(p.rows))
                .map(|p| p.name)
                .collect();
            assert!(
                empty.is_empty() || cut.is_empty(),
                "{w}x{h} filter {filter:?}: {empty:?} more than a third empty while {cut:?} cut:\n{}",
                screen(&app, w, h)
            );
        }
    }
}

/// Lines whose last column is inside a word of lower-case letters: a word
/// the edge broke (what is cut ends in `…`; what fits ends before the
/// edge). A number or an upper-case column title may end at the edge.
fn cut_lines(text: &str, w: u16) -> Vec<String> {
    lines(text)
        .into_iter()
        .filter(|l| l.chars().count() == usize::from(w))
        .filter(|l| {
            let word: String = l.chars().rev().take_while(|c| !c.is_whitespace()).collect();
            let mut tail = l.chars().rev();
            let last = tail.next().unwrap_or(' ');
            let before = tail.next().unwrap_or(' ');
            last.is_alphabetic() && before.is_alphabetic() && word.chars().any(char::is_lowercase)
        })
        .collect()
}

/// Each screen restop draws, reached by keys from the main screen (drawn
/// at every size by resizing the one app).
fn every_screen() -> Vec<(&'static str, App)> {
    let mut out = Vec::new();
    let (app, _) = demo_app(80, 24, 70);
    out.push(("main", app));
    let (app, _) = demo_app(80, 24, 44);
    out.push(("storm", app));
    let leak = vec![
        ch('/'),
        ch('l'),
        ch('e'),
        ch('a'),
        ch('k'),
        key(KeyCode::Enter),
        key(KeyCode::Enter),
    ];
    for (name, keys) in [
        ("drill", vec![key(KeyCode::Enter)]),
        ("leak drill", leak),
        ("errors", vec![ch('e')]),
        ("problems", vec![ch('a')]),
        ("help", vec![ch('?')]),
        ("device", vec![key(KeyCode::Tab), key(KeyCode::Enter)]),
        ("counters", vec![key(KeyCode::Tab), ch('c')]),
        ("sort menu", vec![key(KeyCode::F(6))]),
    ] {
        let (mut app, mut demo) = demo_app(80, 24, 70);
        for k in keys {
            demo.key(&mut app, k);
        }
        demo.feed(&mut app);
        out.push((name, app));
    }
    out
}

#[test]
fn no_line_ends_in_a_word_cut_without_a_mark() {
    let mut found = Vec::new();
    for (name, mut app) in every_screen() {
        for (w, h) in SIZES {
            app.update(Event::Resize(w, h));
            if std::env::var_os("DUMP_SCREENS").is_some() {
                eprintln!("== {name} {w}x{h}\n{}", screen(&app, w, h));
            }
            for line in cut_lines(&screen(&app, w, h), w) {
                found.push(format!("{name} {w}x{h}: {line}"));
            }
        }
    }
    assert!(found.is_empty(), "cut words:\n{}", found.join("\n"));
}

/// The AGE cells of the open drill-down, in ms.
fn drill_ages(app: &App) -> Vec<u64> {
    let drill = app
        .find_screen::<DrillScreen>()
        .expect("the drill-down is open");
    drill
        .table
        .rows
        .iter()
        .filter_map(|r| {
            r.cells.iter().find_map(|c| match c {
                Cell::Age { ms: Some(ms), .. } => Some(ms.0),
                _ => None,
            })
        })
        .collect()
}

#[test]
fn the_drill_downs_age_grows_while_it_is_open() {
    let (mut app, mut demo) = demo_app(120, 40, 20);
    demo.key(&mut app, key(KeyCode::Enter));
    demo.feed(&mut app);
    let first = drill_ages(&app);
    assert!(!first.is_empty(), "no AGE in the drill-down");
    for _ in 0..10 {
        demo.feed(&mut app);
    }
    let later = drill_ages(&app);
    let oldest = later.iter().max().copied().unwrap_or(0);
    assert!(
        oldest >= 20_000,
        "after 20 s of watching the oldest AGE is {oldest} ms: {later:?}"
    );
    assert!(
        screen(&app, 120, 40).contains("≥20 s"),
        "{}",
        screen(&app, 120, 40)
    );
}

#[test]
fn the_footer_names_tab_c_and_a_where_there_is_room() {
    for (w, h) in [(80, 24), (120, 40)] {
        let (app, _) = demo_app(w, h, 70);
        let text = screen(&app, w, h);
        let footer = lines(&text).pop().unwrap_or_default();
        for word in ["Tab ", "c ", "a "] {
            assert!(
                footer.contains(&format!(" {word}")),
                "{w}x{h}: the footer does not name {word:?}: {footer}"
            );
        }
    }
}

/// The words a screen shows, with and without the separators a cut drops
/// before its mark.
fn words(screen: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for w in screen.split_whitespace() {
        out.insert(w.to_string());
        out.insert(w.trim_end_matches([',', ';', ':', '·']).to_string());
    }
    out
}

/// The marks on `screen` that follow part of a word: the letters right
/// before a `…` are neither a word `whole` shows nor part of an
/// identifier (a name with `_`, `.`, `-`, `/` or digits: the one word a
/// cell may cut inside, when it alone is wider than the cell).
fn cut_words(screen: &str, whole: &std::collections::BTreeSet<String>) -> Vec<String> {
    let mut found = Vec::new();
    for line in screen.lines() {
        for (i, _) in line.match_indices('…') {
            let before = &line[..i];
            let stem = before
                .rsplit(char::is_whitespace)
                .next()
                .unwrap_or_default();
            let letters = stem.chars().all(char::is_alphabetic);
            let ends_in_word = stem.chars().last().is_some_and(char::is_alphabetic);
            if ends_in_word && letters && !whole.contains(stem) {
                found.push(format!("{stem:?} in {line:?}"));
            }
        }
    }
    found
}

/// Starts the demo at 44 s (the storm) in `s` and waits for its first screen.
fn start_demo(s: &Session) {
    let bin = env!("CARGO_BIN_EXE_restop");
    s.type_text(&format!("{bin} --demo --demo-at 44s -d 1s"));
    s.send(&["Enter"]);
    s.wait_for("the TUI", |t| t.contains("train.py"));
    let shell: i32 = s.query("#{pane_pid}").parse().expect("pane pid");
    s.restop.set(restop_under(shell));
}

#[test]
fn tmux_no_mark_follows_part_of_a_word_at_80x24_and_120x40() {
    // The keys from the main screen, the consumers focused, and what the
    // screen they open says.
    let screens: [(&str, &[&str], &str); 7] = [
        ("main", &[], "train.py"),
        ("drill", &["Enter"], "  user "),
        ("errors", &["e"], "QPs in ERR/SQE"),
        ("problems", &["a"], "Problems ("),
        ("help", &["?"], "closes, "),
        ("counters", &["Tab", "c"], "Counters of"),
        // Esc left the devices focused: Enter opens the device.
        ("device", &["Enter"], "Consumers on"),
    ];
    // The check itself: the cuts this rule replaced are found.
    let whole = words("management packets dropped  eth-mac.FrameCheckSequenceErrors netdev");
    assert_eq!(
        cut_words(
            "0/s management pack…  eth-mac.FrameCheckSequenceErrors ne…",
            &whole
        )
        .len(),
        2
    );
    assert!(cut_words("0/s management…  eth-mac.FrameCheck…", &whole).is_empty());
    let mut found = Vec::new();
    let mut marks = 0;
    for (w, h) in [(80, 24), (120, 40)] {
        let (Some(narrow), Some(wide)) = (Session::start(w, h), Session::start(250, 70)) else {
            return;
        };
        start_demo(&narrow);
        start_demo(&wide);
        for (name, keys, shows) in screens {
            for s in [&narrow, &wide] {
                if !keys.is_empty() {
                    s.send(keys);
                }
                s.wait_for(name, |t| t.contains(shows));
            }
            // One refresh drawn after the keys.
            std::thread::sleep(Duration::from_millis(1200));
            let (text, whole) = (narrow.screen(), words(&wide.screen()));
            marks += text.matches('…').count();
            for cut in cut_words(&text, &whole) {
                found.push(format!("{name} {w}x{h}: {cut}"));
            }
            for line in cut_lines_of(&text, w) {
                found.push(format!("{name} {w}x{h}: ends in a cut word: {line}"));
            }
            if !keys.is_empty() {
                for s in [&narrow, &wide] {
                    s.send(&["Escape"]);
                    s.wait_for("the main screen", |t| t.contains("Devices ("));
                }
            }
        }
        for s in [&narrow, &wide] {
            s.send(&["q"]);
        }
    }
    assert!(marks > 0, "no cut text on any screen: nothing was checked");
    assert!(found.is_empty(), "cut words:\n{}", found.join("\n"));
}

/// [`cut_lines`] of a terminal's text (no quotes around its lines, blanks at
/// the end trimmed by tmux): lines as wide as the screen.
fn cut_lines_of(text: &str, w: u16) -> Vec<String> {
    let quoted: String = text
        .lines()
        .map(|l| format!("\"{l:<0$}\"\n", usize::from(w)))
        .collect();
    cut_lines(&quoted, w)
}
