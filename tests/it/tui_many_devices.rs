//! The devices pane of a host with 16 PFs and 128 VFs (`--demo-devices 16x8`):
//! each PF folded over its VFs, the worst family first, `v` opening and folding
//! a PF, the scroll mark, and the NETNS tag of the VFs in their pods' namespaces.

use crate::tui_common::*;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::demo::{DemoSource, DeviceLayout};
use restop::interactive::app::{App, AppConfig, Event};
use restop::interactive::frame;
use restop::model::{DetailScope, SourceKind};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

fn wide_app(w: u16, h: u16) -> App {
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(w, h));
    let mut demo =
        DemoSource::new(1, Duration::from_secs(2)).with_devices(DeviceLayout::new(16, 8).unwrap());
    let details = DetailScope::ErrorsOnly;
    let snapshot = demo
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
    app
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| frame::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

fn device_names(app: &App) -> Vec<String> {
    app.main.devices.iter().map(|d| d.name.clone()).collect()
}

#[test]
fn sixteen_pfs_with_128_vfs_at_80x24() {
    let app = wide_app(80, 24);
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn sixteen_pfs_with_128_vfs_at_160x50() {
    let app = wide_app(160, 50);
    insta::assert_snapshot!(screen(&app, 160, 50));
}

#[test]
fn the_pane_folds_each_pf_and_puts_the_worst_family_first() {
    let app = wide_app(160, 50);
    let rows = &app.main.devices;
    assert_eq!(rows.len(), 16, "one row per PF");
    assert!(
        rows.iter()
            .all(|r| r.fold.is_some_and(|f| !f.open && f.vfs == 8))
    );
    // mlx5_0 holds the VF at 96 % of its MRs; mlx5_13 the VF at 95 % of its QPs.
    let first: Vec<&str> = rows.iter().take(2).map(|r| r.name.as_str()).collect();
    assert!(
        first.contains(&"mlx5_0") && first.contains(&"mlx5_13"),
        "{first:?}"
    );
}

#[test]
fn v_opens_the_selected_pf_and_folds_it_again() {
    let mut app = wide_app(160, 50);
    app.update(key(KeyCode::Tab));
    let pf = app.main.devices[0].name.clone();
    app.update(ch('v'));
    let names = device_names(&app);
    assert_eq!(names.len(), 16 + 8);
    assert_eq!(names[0], pf);
    assert!(app.main.devices[0].fold.unwrap().open);
    for vf in &app.main.devices[1..9] {
        assert!(vf.fold.is_none(), "{}", vf.name);
    }
    let drawn = screen(&app, 160, 50);
    assert!(drawn.contains(&format!("▾ {pf}")), "{drawn}");
    assert!(drawn.contains("└ mlx5_"), "{drawn}");
    // From one of its VFs, v folds the PF and keeps it selected.
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    app.update(ch('v'));
    assert_eq!(app.main.devices.len(), 16);
    assert_eq!(app.main.devices[app.main.device_cursor.selected].name, pf);
}

#[test]
fn a_short_pane_marks_how_many_rows_are_off_and_scrolls_to_them() {
    let mut app = wide_app(80, 24);
    let drawn = screen(&app, 80, 24);
    assert!(drawn.contains("more"), "{drawn}");
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::End));
    let last = app.main.devices.last().unwrap().name.clone();
    assert!(screen(&app, 80, 24).contains(&last));
}

#[test]
fn vfs_in_their_pods_namespaces_carry_a_netns_tag() {
    let mut app = wide_app(200, 60);
    app.update(key(KeyCode::Tab));
    // mlx5_14's VFs were moved into their pods' namespaces: open it.
    let at = app
        .main
        .devices
        .iter()
        .position(|d| d.name == "mlx5_14")
        .unwrap();
    for _ in 0..at {
        app.update(key(KeyCode::Down));
    }
    app.update(ch('v'));
    let vf = app
        .main
        .devices
        .iter()
        .find(|d| d.name == "mlx5_128")
        .unwrap();
    let tag = vf.netns.clone().unwrap();
    let drawn = screen(&app, 200, 60);
    assert!(drawn.contains("NETNS"), "{drawn}");
    assert!(drawn.contains(&tag[..tag.len().min(17)]), "{tag}: {drawn}");
}
