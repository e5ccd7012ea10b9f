//! What the full-screen fleet view draws, as text snapshots of a `TestBackend`, from a fixed
//! fleet model (no Prometheus, no clock): the hosts table worst first, the cluster lists and a
//! host's detail (Prometheus' and the live exporter's), at 80x24 and 160x50; and the keys that
//! move between them, filter and sort.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::fleet::feed::{FeedRequest, FeedUpdate};
use restop::fleet::model::trails::Trail;
use restop::fleet::model::{
    Consumer, ErrorQps, FleetReading, HostReport, LimitKind, Metric, NicProblem, PortReport, Reach,
    RowRules, Severity, Suspect, Usage,
};
use restop::interactive::app::{Event, ThemeKind};
use restop::interactive::screens::fleet::draw::draw;
use restop::interactive::screens::fleet::{FleetCommand, FleetConfig, FleetView};
use restop::model::limits::Thresholds;
use restop::model::{Millis, ResourceType, UnixMs};
use std::collections::BTreeMap;
use std::time::Duration;

const NOW: UnixMs = UnixMs(1_767_225_600_000);

fn consumer(host: &str, pid: &str, name: &str, pod: &str, metric: Metric, value: f64) -> Consumer {
    Consumer {
        host: host.into(),
        pid: pid.into(),
        name: name.into(),
        namespace: if pod.is_empty() { "" } else { "ml" }.into(),
        pod: pod.into(),
        container: String::new(),
        metric,
        value,
    }
}

fn host(name: &str, devices: u64, top: f64) -> HostReport {
    HostReport {
        exporters: vec![format!("10.0.0.{}:9879", name.len())],
        collecting: Some(true),
        scraped_at: Some(NOW.minus(Millis(4_000))),
        devices: Some(devices),
        worst_usage: Some(Usage {
            device: "mlx5_0".into(),
            rtype: ResourceType::Qp,
            ratio: top,
            limit: LimitKind::Device,
        }),
        top_consumer: Some(consumer(
            name,
            "4242",
            "train.py",
            "",
            Metric::Objects(ResourceType::Qp),
            571.0,
        )),
        ..HostReport::named(name)
    }
}

/// Eight hosts: down, stale, storm (a port down), error QPs, at a limit, leaking, two healthy.
pub fn fleet() -> FleetReading {
    let qp = Metric::Objects(ResourceType::Qp);
    let mut down = HostReport::named("gpu-node-05");
    down.exporters = vec!["10.0.0.15:9879".into()];
    down.reach = Reach::Down {
        reason: "Prometheus' scrape of 10.0.0.15:9879 fails (up 0)".into(),
    };
    let mut stale = host("gpu-node-06", 2, 0.2);
    stale.scraped_at = Some(NOW.minus(Millis(95_000)));
    let mut storm = host("gpu-node-01-storm", 4, 0.31);
    storm.nic = vec![
        NicProblem {
            device: "mlx5_1".into(),
            port: "1".into(),
            severity: Severity::Critical,
            what: "port down".into(),
            rate: None,
        },
        NicProblem {
            device: "mlx5_0".into(),
            port: "1".into(),
            severity: Severity::Warning,
            what: "out_of_sequence".into(),
            rate: Some(41.5),
        },
    ];
    let mut errqp = host("gpu-node-03-errqp", 4, 0.12);
    errqp.error_qps = 3;
    errqp.error_qp_devices = vec![ErrorQps {
        device: "mlx5_2".into(),
        count: 3,
        oldest_age_seconds: Some(312.0),
    }];
    let limit = host("gpu-node-02-limit", 2, 0.97);
    let mut leak = host("gpu-node-00-leak", 2, 0.4);
    leak.leak_suspects = 1;
    FleetReading {
        read_at: NOW,
        server_time: Some(NOW),
        hosts: vec![
            host("gpu-node-04", 8, 0.05),
            host("gpu-node-07", 8, 0.06),
            down,
            stale,
            storm,
            errqp,
            limit,
            leak,
        ],
        processes: vec![
            consumer(
                "gpu-node-02-limit",
                "911",
                "nccl-allreduce",
                "",
                qp,
                15_890.0,
            ),
            consumer("gpu-node-04", "4242", "train.py", "", qp, 571.0),
            consumer("gpu-node-00-leak", "3377", "leaky_svc", "", qp, 402.0),
            consumer(
                "gpu-node-00-leak",
                "3377",
                "leaky_svc",
                "",
                Metric::MrBytes,
                3.5e9,
            ),
        ],
        pods: vec![consumer("gpu-node-04", "", "", "llama-3-0", qp, 571.0)],
        namespaces: vec![consumer("", "", "", "", qp, 17_000.0)],
        suspects: vec![Suspect {
            host: "gpu-node-00-leak".into(),
            pid: "3377".into(),
            name: "leaky_svc".into(),
            rtype: "mr".into(),
        }],
        notes: vec!["recording rules not loaded (assets/prometheus/restop-fleet-rules.yml)".into()],
    }
}

/// One host's detail, as Prometheus and the exporter answer it.
fn detail() -> FleetReading {
    let mut h = host("gpu-node-01-storm", 4, 0.31);
    h.usage = vec![
        Usage {
            device: "mlx5_0".into(),
            rtype: ResourceType::Qp,
            ratio: 0.31,
            limit: LimitKind::Device,
        },
        Usage {
            device: "mlx5_1".into(),
            rtype: ResourceType::Mr,
            ratio: 0.84,
            limit: LimitKind::Device,
        },
    ];
    h.ports = vec![
        PortReport {
            device: "mlx5_0".into(),
            port: "1".into(),
            active: true,
        },
        PortReport {
            device: "mlx5_1".into(),
            port: "1".into(),
            active: false,
        },
    ];
    h.nic = fleet().hosts[4].nic.clone();
    FleetReading {
        read_at: NOW,
        hosts: vec![h],
        processes: vec![consumer(
            "gpu-node-01-storm",
            "2001",
            "ib_write_bw",
            "perf-0",
            Metric::Objects(ResourceType::Qp),
            128.0,
        )],
        ..FleetReading::default()
    }
}

fn view() -> FleetView {
    let mut view = FleetView::new(FleetConfig {
        ascii: false,
        source: "Prometheus http://prometheus:9090".into(),
        rules: RowRules {
            thresholds: Thresholds::default(),
            stale_after: Millis(30_000),
        },
        top: 10,
        interval: Duration::from_secs(15),
        color: false,
        theme: ThemeKind::Default,
        mouse: false,
    });
    view.update(Event::Fleet(Box::new(FeedUpdate::Fleet {
        outcome: Ok(fleet()),
        at: NOW,
        took: Millis(180),
    })));
    view.update(Event::Tick(NOW.plus(Millis(3_000))));
    view
}

fn screen(view: &mut FleetView, w: u16, h: u16) -> String {
    view.update(Event::Resize(w, h));
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| draw(f, view)).unwrap();
    terminal.backend().to_string()
}

fn key(view: &mut FleetView, code: KeyCode) -> Vec<FleetCommand> {
    view.update(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn typed(view: &mut FleetView, text: &str) {
    for c in text.chars() {
        key(view, KeyCode::Char(c));
    }
}

fn hosts_order(view: &FleetView) -> Vec<String> {
    view.hosts.rows.iter().map(|r| r.host.clone()).collect()
}

#[test]
fn the_hosts_table_worst_first() {
    let mut v = view();
    let order = hosts_order(&v);
    assert_eq!(order[0], "gpu-node-05", "down first: {order:?}");
    assert_eq!(order[1], "gpu-node-06", "stale next: {order:?}");
    assert_eq!(&order[6..], ["gpu-node-07", "gpu-node-04"], "{order:?}");
    insta::assert_snapshot!(screen(&mut v, 80, 24));
    insta::assert_snapshot!(screen(&mut v, 160, 50));
}

#[test]
fn the_cluster_lists() {
    let mut v = view();
    key(&mut v, KeyCode::Char('2'));
    insta::assert_snapshot!(screen(&mut v, 80, 24));
    insta::assert_snapshot!(screen(&mut v, 160, 50));
    // `s` ranks by the next type; the last is MR bytes, one step back from QPs.
    key(&mut v, KeyCode::Char('<'));
    assert_eq!(v.cluster.metric, Metric::MrBytes);
    assert!(screen(&mut v, 160, 50).contains("leaky_svc (3377)"));
    // Enter on a list's row opens its host.
    key(&mut v, KeyCode::Char('e'));
    let commands = key(&mut v, KeyCode::Enter);
    assert_eq!(v.host.as_ref().unwrap().target.host, "gpu-node-03-errqp");
    assert!(matches!(
        &commands[..],
        [FleetCommand::Feed(FeedRequest::Detail(Some(_)))]
    ));
}

#[test]
fn a_hosts_detail_from_prometheus_and_live() {
    let mut v = view();
    // Down to the storm host (down, stale, storm: the third row).
    key(&mut v, KeyCode::Down);
    key(&mut v, KeyCode::Down);
    let commands = key(&mut v, KeyCode::Enter);
    let target = match &commands[..] {
        [FleetCommand::Feed(FeedRequest::Detail(Some(t)))] => t.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(target.host, "gpu-node-01-storm");
    assert_eq!(target.instance.as_deref(), Some("10.0.0.17:9879"));
    let mut live = detail();
    live.hosts[0].host = "10.0.0.17:9879".into();
    live.processes[0].host = "10.0.0.17:9879".into();
    v.update(Event::Fleet(Box::new(FeedUpdate::Detail {
        host: target.host.clone(),
        outcome: Ok(detail()),
        live: Some(Ok(live)),
        at: NOW.plus(Millis(1_000)),
    })));
    insta::assert_snapshot!(screen(&mut v, 80, 24));
    insta::assert_snapshot!(screen(&mut v, 160, 50));
    let commands = key(&mut v, KeyCode::Esc);
    assert_eq!(commands, [FleetCommand::Feed(FeedRequest::Detail(None))]);
    assert!(v.host.is_none());
}

#[test]
fn the_filter_sort_and_a_failed_refresh() {
    let mut v = view();
    key(&mut v, KeyCode::Char('/'));
    typed(&mut v, "leak");
    key(&mut v, KeyCode::Enter);
    assert_eq!(hosts_order(&v), ["gpu-node-00-leak"]);
    // A pod's name finds its host too.
    key(&mut v, KeyCode::Char('/'));
    key(&mut v, KeyCode::Backspace);
    key(&mut v, KeyCode::Backspace);
    key(&mut v, KeyCode::Backspace);
    key(&mut v, KeyCode::Backspace);
    typed(&mut v, "llama");
    key(&mut v, KeyCode::Enter);
    assert_eq!(hosts_order(&v), ["gpu-node-04"]);
    key(&mut v, KeyCode::Esc);
    assert_eq!(hosts_order(&v).len(), 8);
    key(&mut v, KeyCode::Char('s'));
    assert_eq!(hosts_order(&v)[0], "gpu-node-00-leak", "by host name");
    key(&mut v, KeyCode::Char('r'));
    assert_eq!(hosts_order(&v)[0], "gpu-node-07");
    // A failed refresh keeps the rows, every one stale, and says why in the header.
    v.update(Event::Fleet(Box::new(FeedUpdate::Fleet {
        outcome: Err("http://prometheus:9090: not reachable (connection refused)".into()),
        at: NOW.plus(Millis(15_000)),
        took: Millis(2),
    })));
    assert!(v.hosts.rows.iter().all(|r| r.status.label() != "ok"));
    let text = screen(&mut v, 120, 30);
    assert!(text.contains("refresh failed"), "{text}");
    assert!(text.contains("STALE"), "{text}");
    // `+` asks the feed for a longer interval.
    assert_eq!(
        key(&mut v, KeyCode::Char('+')),
        [FleetCommand::Feed(FeedRequest::SetInterval(
            Duration::from_secs(30)
        ))]
    );
    assert_eq!(key(&mut v, KeyCode::Char('q')), [FleetCommand::Quit]);
}

#[test]
fn the_help_box_lists_the_fleet_keys_and_tiny_terminals_are_told() {
    let mut v = view();
    key(&mut v, KeyCode::Char('?'));
    let text = screen(&mut v, 100, 40);
    assert!(text.contains("the selected host's detail"), "{text}");
    key(&mut v, KeyCode::Esc);
    assert!(v.overlay.is_none());
    assert!(screen(&mut v, 30, 8).contains("terminal too small"));
}

/// A host's worst usage at minute `m` of the half hour.
type Line = fn(u64) -> f64;

/// A range answer: half an hour of points a minute apart, one line per host.
fn history(lines: &[(&str, Line)]) -> BTreeMap<String, Trail> {
    lines
        .iter()
        .map(|(host, ratio)| {
            let points = (0..=30u64)
                .map(|m| (NOW.minus(Millis((30 - m) * 60_000)), ratio(m)))
                .collect();
            (host.to_string(), points)
        })
        .collect()
}

#[test]
fn the_rows_draw_their_sparklines_from_the_range_answer() {
    let mut v = view();
    assert_eq!(v.visible_hosts().len(), 8, "every row fits 80x24");
    // A shorter terminal: the feed is told the rows on screen, and again when they scroll.
    let commands = v.update(Event::Resize(160, 10));
    let on_screen = match &commands[..] {
        [FleetCommand::Feed(FeedRequest::Visible(hosts))] => hosts.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(on_screen, hosts_order(&v)[..5]);
    let commands = key(&mut v, KeyCode::End);
    assert!(
        matches!(&commands[..], [FleetCommand::Feed(FeedRequest::Visible(h))] if h[..] == hosts_order(&v)[3..]),
        "{commands:?}"
    );
    assert!(
        key(&mut v, KeyCode::Up).is_empty(),
        "the same rows: nothing new to ask"
    );
    key(&mut v, KeyCode::Home);
    v.update(Event::Fleet(Box::new(FeedUpdate::Trails {
        outcome: Ok(history(&[
            ("gpu-node-02-limit", |m| 0.5 + m as f64 * 0.016),
            ("gpu-node-00-leak", |m| m as f64 / 75.0),
            ("gpu-node-07", |_| 0.06),
            ("gpu-node-01-storm", |m| if m % 10 < 5 { 0.2 } else { 0.31 }),
        ])),
    })));
    let text = screen(&mut v, 160, 50);
    let row = |host: &str| {
        text.lines()
            .find(|l| l.contains(&format!(" {host} ")))
            .unwrap_or_default()
            .to_string()
    };
    let limit = row("gpu-node-02-limit");
    assert!(limit.contains('▁') && limit.contains('█'), "{text}");
    assert!(row("gpu-node-07").contains("▁▁▁▁▁▁▁▁▁▁"), "{text}");
    assert!(
        !row("gpu-node-05").contains('▁'),
        "a down host draws no line: {text}"
    );
    insta::assert_snapshot!(text);
    // At 80 columns the sparklines give way to the counts.
    assert!(!screen(&mut v, 80, 24).contains("USAGE 30m"));
    // A failed range query keeps the lines and says why under `w`.
    v.update(Event::Fleet(Box::new(FeedUpdate::Trails {
        outcome: Err("http://prometheus:9090: no answer within 5s".into()),
    })));
    let text = screen(&mut v, 160, 50);
    assert!(
        text.lines()
            .any(|l| l.contains("gpu-node-02-limit") && l.contains('█'))
    );
    key(&mut v, KeyCode::Char('w'));
    let text = screen(&mut v, 160, 50);
    assert!(text.contains("sparklines' history not read"), "{text}");
}

#[test]
fn without_prometheus_the_view_draws_its_own_lines_from_past_refreshes() {
    let mut v = view();
    for (i, ratio) in [0.1, 0.4, 0.7, 1.0].into_iter().enumerate() {
        let mut reading = fleet();
        let at = NOW.plus(Millis(15_000 * (i as u64 + 1)));
        reading.server_time = None;
        reading.read_at = at;
        for h in &mut reading.hosts {
            if h.host == "gpu-node-07"
                && let Some(usage) = h.worst_usage.as_mut()
            {
                usage.ratio = ratio;
            }
        }
        v.update(Event::Fleet(Box::new(FeedUpdate::Fleet {
            outcome: Ok(reading),
            at,
            took: Millis(5),
        })));
    }
    assert_eq!(v.trails.per_mille("gpu-node-07"), [60, 100, 400, 700, 1000]);
    let text = screen(&mut v, 160, 50);
    let row = text
        .lines()
        .find(|l| l.contains(" gpu-node-07 "))
        .unwrap_or_default();
    assert!(row.contains("▁▁▃▅█"), "{text}");
}
