//! Limits in the interactive view: a process bound by a full cgroup `rdma`
//! quota is marked in the consumers table, and its drill-down tells its share
//! of the device and the quota.

use crate::tui_common::*;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::interactive::app::{App, AppConfig, Event, Thresholds};
use restop::interactive::frame;
use restop::model::limits::{DeviceQuota, Quota, RdmaCgroup};
use restop::model::{DetailScope, SourceKind};

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| frame::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

/// The fixture, with pid 100 (train.py) under a pod whose `hca_object`
/// quota on mlx5_0 is 98 % used.
fn app_with_quota(config: AppConfig) -> App {
    let quota = |current, max, cgroup: &str| Quota {
        current,
        max,
        cgroup: cgroup.into(),
    };
    let cgroup = RdmaCgroup {
        path: "/pod1/c1".into(),
        devices: [(
            "mlx5_0".to_string(),
            DeviceQuota {
                hca_handle: quota(1, None, "/pod1/c1"),
                hca_object: quota(49, Some(50), "/pod1"),
            },
        )]
        .into_iter()
        .collect(),
    };
    let mut app = App::new(config, SourceKind::Demo);
    app.update(Event::Resize(100, 24));
    let feed = |app: &mut App, details: DetailScope| {
        let mut snapshot = fixture(&details);
        for p in &mut snapshot.processes {
            if p.key.pid == 100 {
                p.rdma_cgroup = Some(Box::new(cgroup.clone()));
            }
        }
        app.update(snapshot_event(snapshot, details))
    };
    feed(&mut app, DetailScope::ErrorsOnly);
    app.update(key(KeyCode::Enter));
    feed(
        &mut app,
        DetailScope::Processes([100].into_iter().collect()),
    );
    app
}

#[test]
fn a_process_at_its_quota_is_marked_and_its_drill_down_tells_the_quota() {
    let mut app = app_with_quota(AppConfig::default());
    let drill = screen(&app, 100, 24);
    assert!(
        drill.contains(
            "quota /pod1 mlx5_0 hca_object 49/50 (98%) · share of used (of max) QP 71% (1.0%)"
        ),
        "{drill}"
    );
    app.update(key(KeyCode::Esc));
    let main = screen(&app, 100, 24);
    assert!(main.contains("train.py ⚑"), "{main}");
}

#[test]
fn below_the_warning_threshold_there_is_no_marker() {
    let config = AppConfig {
        thresholds: Thresholds::from_percent(99.0, 100.0).unwrap(),
        ..AppConfig::default()
    };
    let mut app = app_with_quota(config);
    app.update(key(KeyCode::Esc));
    let main = screen(&app, 100, 24);
    assert!(main.contains("train.py"), "{main}");
    // The header's alert count (⚑ N alerts) aside, no row is marked.
    assert!(!main.lines().skip(2).any(|l| l.contains('⚑')), "{main}");
}
