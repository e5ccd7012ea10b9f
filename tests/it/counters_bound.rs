//! QP-bound counters (`rdma statistic qp show`) in the snapshot, `--json`,
//! the exporter, recordings and the drill-down; a hand-made host where pid
//! 100's QPs 17 and 18 on mlx5_0 port 1 are bound to counter 0 (auto), and
//! nothing is bound on mlx5_1.

use crate::tui_common::{fixture, key, snapshot_event};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::export::health::Health;
use restop::export::{Format, OwnerGroup, OwnerOptions, RenderInput, render, render_with};
use restop::interactive::app::{App, AppConfig, Event};
use restop::model::counters::PortCounters;
use restop::model::counters::bound::BoundCounter;
use restop::model::filter::Filter;
use restop::model::{DetailScope, ReportedOwner, Snapshot, SourceKind};
use restop::output::render_json;
use restop::record::{RecordWriter, ReplaySource};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

fn bound_host(details: &DetailScope) -> Snapshot {
    let mut s = fixture(details);
    let counter = BoundCounter {
        id: 0,
        mode: Some("auto".to_string()),
        reported: ReportedOwner::Task(100),
        qps: vec![17, 18],
        counters: [
            ("rx_write_requests".to_string(), 5120),
            ("out_of_sequence".to_string(), 2),
            ("rx_read_requests".to_string(), 0),
        ]
        .into_iter()
        .collect(),
    };
    for (i, d) in s.devices.iter_mut().enumerate() {
        for p in &mut d.ports {
            p.counters = Some(PortCounters {
                bound: if i == 0 {
                    vec![counter.clone()]
                } else {
                    Vec::new()
                },
                ..PortCounters::default()
            });
        }
    }
    s
}

#[test]
fn json_ports_carry_bound_counters_with_their_qps_and_owners() {
    let s = bound_host(&DetailScope::All);
    let doc = serde_json::to_value(render_json(&s, &Filter::default())).unwrap();
    let port = &doc["devices"][0]["ports"][0];
    let c = &port["bound_counters"][0];
    assert_eq!(c["counter_id"], 0);
    assert_eq!(c["mode"], "auto");
    assert_eq!(c["pid"], 100);
    assert_eq!(c["owner"]["pid"], 100);
    assert_eq!(c["owner"]["name"], "train.py");
    assert_eq!(c["qps"][0]["lqpn"], 17);
    assert_eq!(c["qps"][1]["owner"]["pid"], 100);
    assert_eq!(c["counters"]["rx_write_requests"], 5120);
    assert!(port["bound_counters_note"].is_null());
    // Nothing bound: an empty list, not zeros.
    let other = &doc["devices"][1]["ports"][0];
    assert_eq!(other["bound_counters"], serde_json::json!([]));
}

#[test]
fn the_exporter_labels_bound_counters_by_id_port_and_owner() {
    let s = bound_host(&DetailScope::All);
    let mut health = Health::new(s.meta.source);
    health.record_success(&s, Duration::from_millis(30), s.meta.collected_at_ms);
    let text = render(
        &RenderInput {
            snapshot: Some(&s),
            health: &health,
            top: 10,
            error_qp_ages: None,
            leak_suspects: None,
        },
        Format::Text,
    );
    assert!(
        text.contains("# TYPE restop_qp_bound_stat_total counter"),
        "{text}"
    );
    assert!(text.contains(
        "restop_qp_bound_stat_total{device=\"mlx5_0\",port=\"1\",counter_id=\"0\",mode=\"auto\",pid=\"100\",name=\"train.py\",counter=\"out_of_sequence\"} 2"
    ));
    assert!(!text.contains("device=\"mlx5_1\",port=\"1\",counter_id"));
}

fn exposition(s: &Snapshot, pid_label: bool) -> String {
    let mut health = Health::new(s.meta.source);
    health.record_success(s, Duration::from_millis(30), s.meta.collected_at_ms);
    render_with(
        &RenderInput {
            snapshot: Some(s),
            health: &health,
            top: 10,
            error_qp_ages: None,
            leak_suspects: None,
        },
        Format::Text,
        &OwnerOptions {
            group: OwnerGroup::Process,
            pid_label,
        },
    )
}

/// The `restop_qp_bound_stat_total` samples of an exposition.
fn bound_samples(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with("restop_qp_bound_stat_total{"))
        .collect()
}

#[test]
fn without_the_pid_label_bound_counters_have_no_pid_like_the_owner_families() {
    let s = bound_host(&DetailScope::All);
    let text = exposition(&s, false);
    assert!(
        text.contains(
            "restop_qp_bound_stat_total{device=\"mlx5_0\",port=\"1\",counter_id=\"0\",mode=\"auto\",name=\"train.py\",counter=\"out_of_sequence\"} 2\n"
        ),
        "{text}"
    );
    assert!(bound_samples(&text).iter().all(|l| !l.contains("pid=")));
    // The per-owner families drop it too; the same counters are there, one each.
    assert!(
        text.lines()
            .filter(|l| l.starts_with("restop_process_"))
            .all(|l| !l.contains("pid="))
    );
    assert_eq!(
        bound_samples(&text).len(),
        bound_samples(&exposition(&s, true)).len()
    );
}

#[test]
fn bound_counters_whose_labels_coincide_without_pid_are_summed_into_one_series() {
    let mut s = bound_host(&DetailScope::All);
    // The kernel lists counter 0 of mlx5_0 port 1 again, allocated for pid 200's task: with
    // pid two series, without it one (two samples of one series would fail the scrape).
    let ports = &mut s.devices[0].ports;
    let bound = &mut ports[0].counters.as_mut().unwrap().bound;
    let mut again = bound[0].clone();
    again.reported = ReportedOwner::Task(200);
    again.counters = [("out_of_sequence".to_string(), 3)].into_iter().collect();
    bound.push(again);
    let name = |pid: &str| {
        format!(
            "restop_qp_bound_stat_total{{device=\"mlx5_0\",port=\"1\",counter_id=\"0\",mode=\"auto\",{pid}name=\"train.py\",counter=\"out_of_sequence\"}}"
        )
    };
    let with_pid = exposition(&s, true);
    assert!(
        with_pid.contains(&format!("{} 2\n", name("pid=\"100\","))),
        "{with_pid}"
    );
    assert!(with_pid.contains("pid=\"200\",name=\"ib_write_bw\",counter=\"out_of_sequence\"} 3\n"));

    // Without pid the two keep apart only by name; make the names match to collide.
    let owner_200 = s.processes.iter_mut().find(|p| p.key.pid == 200).unwrap();
    owner_200.comm = "train.py".into();
    owner_200.cmdline = vec!["train.py".into()];
    let without = exposition(&s, false);
    let samples: Vec<&str> = bound_samples(&without)
        .into_iter()
        .filter(|l| l.contains("port=\"1\",") && l.contains("out_of_sequence"))
        .collect();
    assert_eq!(samples, [format!("{} 5", name("")).as_str()], "{without}");
    let mut series: Vec<&str> = bound_samples(&without)
        .iter()
        .map(|l| l.rsplit_once(' ').unwrap().0)
        .collect();
    let all = series.len();
    series.sort_unstable();
    series.dedup();
    assert_eq!(series.len(), all, "one sample per series:\n{without}");
}

#[test]
fn recordings_keep_bound_counters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bound.rrec");
    let s = bound_host(&DetailScope::ErrorsOnly);
    let mut writer = RecordWriter::open(&path, SourceKind::Demo, Duration::from_secs(2)).unwrap();
    writer.append(&s, &DetailScope::ErrorsOnly).unwrap();
    drop(writer);
    let mut replay = ReplaySource::open(&path).unwrap();
    let back = replay.collect(&CollectRequest::default()).unwrap();
    let bound = |s: &Snapshot| {
        s.devices[0].ports[0]
            .counters
            .as_ref()
            .unwrap()
            .bound
            .clone()
    };
    assert_eq!(bound(&back), bound(&s));
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| restop::interactive::frame::draw(f, app))
        .unwrap();
    terminal.backend().to_string()
}

fn drill_into(row: usize) -> App {
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(120, 30));
    let details = DetailScope::All;
    app.update(snapshot_event(bound_host(&details), details.clone()));
    for _ in 0..row {
        app.update(key(KeyCode::Down));
    }
    app.update(key(KeyCode::Enter));
    app.update(snapshot_event(bound_host(&details), details));
    app
}

#[test]
fn the_drill_down_shows_a_process_bound_counters_or_how_to_bind_them() {
    let text = screen(&drill_into(0), 120, 30);
    assert!(
        text.contains(
            "QP counters mlx5_0/1 #0 auto, QPs 17 18: rx_write_requests 5120, out_of_sequence 2"
        ),
        "{text}"
    );
    // ib_write_bw (pid 200) runs on mlx5_1, where nothing is bound.
    let text = screen(&drill_into(1), 120, 30);
    assert!(text.contains("pid 200"), "{text}");
    assert!(
        text.contains("none bound; an admin binds them with `rdma statistic qp set link mlx5_1/1 auto type on`"),
        "{text}"
    );
    assert!(!text.contains("rx_write_requests 0"));
}
