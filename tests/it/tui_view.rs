//! What an operator gets without knowing the keys, and the keys that read
//! whole what a line had to cut: the full-text box (`w`), counts scoped to a
//! device named in the text filter, limits and leaks in the header and the
//! alerts panel, the footer's hints. State tests on the hand-made fixture;
//! no wall clock.

use crate::tui_common::*;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::interactive::app::{App, AppConfig, Event};
use restop::interactive::frame;
use restop::interactive::screens::message::MessageScreen;
use restop::model::filter::Filter;
use restop::model::{DetailScope, ResourceType, Snapshot, SourceKind, Tally};
use restop::output::Selection;

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| frame::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

fn message(app: &App) -> &MessageScreen {
    app.top_as::<MessageScreen>()
        .expect("the message box is open")
}

/// The fixture with pid 100 also holding 5 QPs on mlx5_1: its counts over
/// all devices and on mlx5_1 differ.
fn two_device_fixture() -> Snapshot {
    let mut s = fixture(&DetailScope::ErrorsOnly);
    let mut t = Tally::new(owner(100), 1);
    t.counts.add(ResourceType::Qp, 5);
    s.tallies.push(t);
    s
}

fn app_with(snapshot: Snapshot) -> App {
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(80, 24));
    app.update(Event::Tick(NOW_MS));
    app.update(snapshot_event(snapshot, DetailScope::ErrorsOnly));
    app
}

#[test]
fn w_shows_every_header_warning_whole() {
    let mut app = app();
    app.update(ch('w'));
    assert_eq!(
        message(&app).paragraphs,
        [
            "⚠ mlx5_1 qp at 90% of max (90/100, warning); ib_write_bw (pid 200) holds 3.3%",
            "⚠ mlx5_1 mr at 97% of max (97/100, critical); ib_write_bw (pid 200) holds 1.0%",
            "⚠ MR keys hidden: needs CAP_NET_ADMIN"
        ]
    );
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("MR keys hidden: needs CAP_NET_ADMIN"),
        "{text}"
    );
    app.update(key(KeyCode::Esc));
    assert!(app.screens.is_empty(), "Esc closes the box");
}

#[test]
fn w_on_the_alerts_panel_shows_the_selected_alert_whole() {
    let mut s = fixture(&DetailScope::ErrorsOnly);
    let long = "a warning long enough that no terminal of eighty columns could show it on \
                one line, with the reason and what to do at its very end: run as root";
    s.meta.warnings = vec![restop::model::Warning::new(
        restop::model::WarningKind::Other,
        long,
    )];
    for d in &mut s.devices {
        d.usage = Default::default();
    }
    let mut app = app_with(s);
    app.update(ch('w'));
    assert!(
        message(&app).paragraphs.contains(&format!("⚠ {long}")),
        "{:?}",
        message(&app).paragraphs
    );
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("what to do at its very end: run as root"),
        "{text}"
    );
}

#[test]
fn w_with_nothing_to_show_says_so() {
    let mut s = fixture(&DetailScope::ErrorsOnly);
    s.meta.warnings.clear();
    for d in &mut s.devices {
        d.usage = Default::default();
    }
    let mut app = app_with(s);
    app.update(ch('w'));
    assert_eq!(message(&app).paragraphs, ["no warning or alert to show"]);
}

#[test]
fn a_text_filter_naming_a_device_counts_only_that_device() {
    let mut app = app_with(two_device_fixture());
    let all = app
        .main
        .consumers
        .iter()
        .find(|c| c.pid() == Some(100))
        .unwrap();
    assert_eq!(all.counts.get(ResourceType::Qp), 15);
    app.update(ch('/'));
    typed(&mut app, "mlx5_1");
    app.update(key(KeyCode::Enter));
    assert_eq!(app.scoped_filter.device.as_deref(), Some("mlx5_1"));
    let scoped = app
        .main
        .consumers
        .iter()
        .find(|c| c.pid() == Some(100))
        .unwrap();
    assert_eq!(
        scoped.counts.get(ResourceType::Qp),
        5,
        "as --dev mlx5_1 counts"
    );
    // The same counts as `--once --dev mlx5_1`.
    let snapshot = two_device_fixture();
    let once = Selection::new(
        &snapshot,
        &Filter {
            device: Some("mlx5_1".into()),
            ..Filter::default()
        },
    );
    let counts = |rows: &[restop::model::consumers::Consumer]| -> Vec<(String, u64)> {
        rows.iter()
            .map(|c| (c.name.clone(), c.counts.get(ResourceType::Qp)))
            .collect()
    };
    let mut tui = counts(&app.main.consumers);
    let mut cli = counts(&once.consumers);
    tui.sort();
    cli.sort();
    assert_eq!(tui, cli);
}

#[test]
fn the_scope_of_every_count_is_labelled() {
    let mut app = app_with(two_device_fixture());
    let text = screen(&app, 80, 24);
    assert!(text.contains("all 2 devices: "), "{text}");
    assert!(text.contains("Top consumers (4) all devices"), "{text}");
    app.update(ch('/'));
    typed(&mut app, "mlx5_1");
    app.update(key(KeyCode::Enter));
    let text = screen(&app, 80, 24);
    assert!(text.contains("on mlx5_1: "), "{text}");
    assert!(text.contains("Top consumers (2) on mlx5_1"), "{text}");
    app.update(ch('e'));
    let text = screen(&app, 80, 24);
    assert!(text.contains("QPs in ERR/SQE (0) on mlx5_1"), "{text}");
    // A text that is not a device name selects rows but keeps every device.
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Esc));
    app.update(ch('/'));
    typed(&mut app, "mlx5");
    app.update(key(KeyCode::Enter));
    assert_eq!(app.scoped_filter.device, None);
}

#[test]
fn usage_past_the_thresholds_is_in_the_header_and_the_alerts_panel() {
    let mut app = app_sized(160, 24);
    let text = screen(&app, 160, 24);
    let header = text.lines().nth(1).unwrap();
    // `a` lists it; the header counts what the list holds.
    let n = app.insights.problems.len();
    assert!(n > 0);
    assert!(header.contains("(a)"), "{header}");
    app.update(ch('a'));
    let list = screen(&app, 160, 24);
    assert!(list.contains(&format!("Problems ({n})")), "{list}");
    assert!(list.contains("mlx5_1 qp at 90% of max"), "{list}");
    app.update(ch('a'));
    app.update(ch('a'));
    let text = screen(&app, 160, 24);
    assert!(text.contains(&format!("Problems ({n})")), "{text}");
    assert!(
        text.contains(
            "mlx5_1 mr at 97% of max (97/100, critical); ib_write_bw (pid 200) holds 1.0%"
        ),
        "{text}"
    );
}

/// The fixture `seconds` later with pid 100 holding `extra` more MRs.
fn later(seconds: u64, extra: u64) -> Snapshot {
    let mut s = fixture(&DetailScope::ErrorsOnly);
    s.meta.collected_at_ms = s
        .meta
        .collected_at_ms
        .plus(restop::model::Millis(seconds * 1000));
    if let Some(t) = s.tallies.iter_mut().find(|t| t.owner == owner(100)) {
        t.counts.add(ResourceType::Mr, extra);
    }
    s
}

#[test]
fn rising_counts_are_marked_on_their_row_from_the_first_seconds() {
    let mut app = app_sized(100, 24);
    for (i, extra) in [2, 4, 6].into_iter().enumerate() {
        let s = later(2 * (i as u64 + 1), extra);
        let now = s.meta.collected_at_ms.plus(restop::model::Millis(1000));
        app.update(snapshot_event(s, DetailScope::ErrorsOnly));
        app.update(Event::Tick(now));
    }
    let text = screen(&app, 100, 24);
    let row = text.lines().find(|l| l.contains("train.py")).unwrap();
    assert!(row.contains("↑ +6 MR"), "{text}");
    let other = text.lines().find(|l| l.contains("ib_write_bw")).unwrap();
    assert!(!other.contains('↑'), "{other}");
}

#[test]
fn the_footer_names_trends_baseline_and_alerts_when_there_is_room() {
    let app = app_sized(160, 24);
    let text = screen(&app, 160, 24);
    let footer = text.lines().last().unwrap();
    for hint in ["a problems", "t trends", "b baseline", "w full text"] {
        assert!(footer.contains(hint), "{footer}");
    }
}

#[test]
fn a_modal_boxs_footer_names_its_keys_only() {
    for (w, h) in [(80, 24), (40, 12)] {
        let boxes = [
            (key(KeyCode::F(6)), "↑↓ choose ⏎ sort Esc cancel"),
            (ch('?'), "↑↓ scroll Esc close"),
            (ch('w'), "↑↓ scroll Esc close"),
        ];
        for (open, keys) in boxes {
            let mut app = app_sized(w, h);
            app.update(open);
            let text = screen(&app, w, h);
            let footer = text.lines().last().unwrap();
            assert!(footer.contains(keys), "{w}x{h}: {footer}");
            for below in ["sort QP", "q quit", "⏎ details", "freeze"] {
                assert!(!footer.contains(below), "{w}x{h}: {footer}");
            }
        }
    }
}

#[test]
fn a_leak_suspects_for_is_the_time_since_it_was_first_seen() {
    use restop::demo::DemoSource;
    use restop::model::history::AlertKind;
    use restop::source::{CollectRequest, Source};
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(120, 30));
    let mut demo = DemoSource::new(1, std::time::Duration::from_secs(2));
    let mut first_seen = None;
    // Eight simulated minutes: longer than the five-minute trend window.
    for _ in 0..240 {
        let s = demo
            .collect(&CollectRequest {
                details: DetailScope::ErrorsOnly,
                force_objects: false,
            })
            .unwrap();
        let at = s.meta.collected_at_ms;
        app.update(snapshot_event(s, DetailScope::ErrorsOnly));
        let leak = app
            .insights
            .alerts
            .iter()
            .find(|a| a.kind == AlertKind::LeakSuspect);
        if let Some(leak) = leak {
            first_seen.get_or_insert(at);
            assert!(leak.since_ms.unwrap() <= *first_seen.as_ref().unwrap());
        }
    }
    let leak = app
        .insights
        .alerts
        .iter()
        .find(|a| a.kind == AlertKind::LeakSuspect)
        .expect("the demo leak");
    let age = app.insights.at_ms.since(leak.since_ms.unwrap());
    assert!(age.0 > 6 * 60_000, "FOR is {age:?}, not the window's 5 min");
}

#[test]
fn enter_on_a_problem_opens_what_it_is_about() {
    let mut app = app();
    app.update(ch('a'));
    for _ in 0..app.insights.problems.len() {
        app.update(key(KeyCode::Enter));
        assert_eq!(app.screen_ids().len(), 2, "{:?}", app.screen_ids());
        assert!(app.top_as::<MessageScreen>().is_none());
        app.update(key(KeyCode::Esc));
        app.update(key(KeyCode::Down));
    }
}

#[test]
fn without_colour_warning_and_critical_still_differ() {
    use ratatui::style::Modifier;
    use restop::interactive::app::Level;
    let theme = restop::interactive::widgets::theme::Theme::new(false);
    let warn = theme.level(Level::Warn);
    let crit = theme.level(Level::Critical);
    assert_ne!(warn, crit);
    assert!(warn.add_modifier.contains(Modifier::UNDERLINED));
    assert!(crit.add_modifier.contains(Modifier::REVERSED));
}

#[test]
fn the_footer_says_resume_while_frozen_and_the_help_box_says_it_scrolls() {
    let mut app = app();
    app.update(ch(' '));
    let footer = screen(&app, 80, 24).lines().last().unwrap().to_string();
    assert!(footer.contains("␣ resume"), "{footer}");
    assert!(!footer.contains("freeze"), "{footer}");
    app.update(ch('?'));
    assert!(screen(&app, 80, 24).contains("↑↓ scrolls"));
}

#[test]
fn one_error_qp_is_singular() {
    let mut s = fixture(&DetailScope::ErrorsOnly);
    s.objects.retain(|o| o.owner() == &owner(100));
    let app = app_with(s);
    let header = screen(&app, 120, 24).lines().nth(1).unwrap().to_string();
    assert!(header.contains("1 ERROR QP "), "{header}");
}

#[test]
fn the_light_and_high_contrast_themes_redraw_the_warnings() {
    use ratatui::style::{Color, Modifier};
    use restop::interactive::app::{Level, ThemeKind};
    use restop::interactive::widgets::theme::Theme;
    let default = Theme::of(true, ThemeKind::Default).level(Level::Warn);
    let light = Theme::of(true, ThemeKind::Light).level(Level::Warn);
    let high = Theme::of(true, ThemeKind::HighContrast);
    assert_eq!(default.fg, Some(Color::Yellow));
    assert_ne!(light.fg, Some(Color::Yellow), "yellow fades on white");
    assert!(
        high.level(Level::Critical)
            .add_modifier
            .contains(Modifier::REVERSED)
    );
    assert!(!high.dim().add_modifier.contains(Modifier::DIM));
    let config = AppConfig {
        theme: ThemeKind::Light,
        ..AppConfig::default()
    };
    let mut app = App::new(config, SourceKind::Demo);
    app.update(Event::Resize(80, 24));
    app.update(snapshot_event(
        fixture(&DetailScope::ErrorsOnly),
        DetailScope::ErrorsOnly,
    ));
    assert!(screen(&app, 80, 24).contains("train.py"));
}

/// `--ascii` (or `LANG=C`): the same screen with ASCII only, cell for cell
/// as wide, the same words in the same places.
#[test]
fn ascii_draws_the_same_screen_with_ascii_only() {
    let unicode = app_with(fixture(&DetailScope::ErrorsOnly));
    let mut ascii = App::new(
        AppConfig {
            ascii: true,
            ..AppConfig::default()
        },
        SourceKind::Demo,
    );
    ascii.update(Event::Resize(80, 24));
    ascii.update(Event::Tick(NOW_MS));
    ascii.update(snapshot_event(
        fixture(&DetailScope::ErrorsOnly),
        DetailScope::ErrorsOnly,
    ));
    let (u, a) = (screen(&unicode, 80, 24), screen(&ascii, 80, 24));
    assert!(!u.is_ascii(), "{u}");
    assert!(a.is_ascii(), "{a}");
    for (ul, al) in u.lines().zip(a.lines()) {
        assert_eq!(ul.chars().count(), al.chars().count(), "{ul}\n{al}");
        // Only the symbols changed: every ASCII character stays in its place.
        for (uc, ac) in ul.chars().zip(al.chars()) {
            if uc.is_ascii() {
                assert_eq!(uc, ac, "{ul}\n{al}");
            }
        }
    }
}
