//! The NIC counters in the interactive view: the devices pane's traffic
//! and health cells at several widths, the device view's ports, and the
//! counters view of one port; driven by the deterministic demo host.

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::app::{App, AppConfig, Event};
use restop::demo::DemoSource;
use restop::model::{DetailScope, SourceKind};
use restop::source::{CollectRequest, Source};
use restop::ui;
use std::time::Duration;

use crate::tui_common::{ch, key, snapshot_event};

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

/// The demo app after `reads` collections 2 s apart (the storm on mlx5_1
/// starts 20 s in).
fn demo_after(reads: usize, w: u16, h: u16) -> App {
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(w, h));
    let mut demo = DemoSource::new(1, Duration::from_secs(2));
    for _ in 0..reads {
        let s = demo
            .collect(&CollectRequest {
                details: DetailScope::ErrorsOnly,
                force_objects: true,
            })
            .unwrap();
        let now = s.meta.collected_at_ms + 1_000;
        app.update(snapshot_event(s, DetailScope::ErrorsOnly));
        app.update(Event::Tick(now));
    }
    app
}

#[test]
fn print_widths() {
    let mut app = demo_after(14, 160, 30);
    for w in [40u16, 80, 120, 160, 220] {
        app.update(Event::Resize(w, 14));
        println!("{}", screen(&app, w, 14));
    }
}

#[test]
fn print_counters() {
    let mut app = demo_after(14, 120, 40);
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    app.update(ch('c'));
    println!("{}", screen(&app, 120, 40));
    app.update(Event::Resize(80, 24));
    app.update(ch('s'));
    app.update(ch('s'));
    println!("{}", screen(&app, 80, 24));
}

#[test]
fn print_device() {
    let mut app = demo_after(30, 120, 30);
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Enter));
    println!("{}", screen(&app, 120, 30));
    app.update(Event::Resize(80, 24));
    println!("{}", screen(&app, 80, 24));
}
