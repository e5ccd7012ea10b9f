//! The exposition restop exports: golden files of the demo host's first
//! snapshot in both formats, `promtool check metrics`, and the properties
//! every document must have (metadata, escaping, bounded owners, sums).

use restop::demo::DemoSource;
use restop::export::catalog::{self, MetricType};
use restop::export::health::Health;
use restop::export::{ErrorQpAges, Format, RenderInput, render};
use restop::model::consumers::consumers;
use restop::model::filter::Filter;
use restop::model::{OwnerKey, ProcessInfo, ProcessKey, ResourceType, Snapshot, SourceKind, Tally};
use restop::source::{CollectError, CollectRequest, Source};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

fn demo_snapshot(seed: u64, collections: usize) -> Snapshot {
    let mut source = DemoSource::new(seed, Duration::from_secs(2));
    let mut last = None;
    for _ in 0..collections {
        last = Some(source.collect(&CollectRequest::default()).unwrap());
    }
    last.unwrap()
}

/// Health after one successful collection, with fixed numbers.
fn health_after(snapshot: &Snapshot) -> Health {
    let mut health = Health::new(snapshot.meta.source);
    health.record_success(
        snapshot,
        Duration::from_micros(36_706),
        snapshot
            .meta
            .collected_at_ms
            .plus(restop::model::Millis(37)),
    );
    health
}

fn render_snapshot(snapshot: &Snapshot, top: usize, format: Format) -> String {
    let health = health_after(snapshot);
    render(
        &RenderInput {
            snapshot: Some(snapshot),
            health: &health,
            top,
            error_qp_ages: None,
            leak_suspects: None,
        },
        format,
    )
}

/// The build labels change with every commit and toolchain; golden files should not.
fn stable(text: String) -> String {
    use restop::export::build_info::{REVISION, RUSTC_VERSION, TARGET, VERSION};
    text.replace(
        &format!(
            "version=\"{VERSION}\",revision=\"{REVISION}\",rustc_version=\"{RUSTC_VERSION}\",target=\"{TARGET}\""
        ),
        "version=\"[version]\",revision=\"[revision]\",rustc_version=\"[rustc]\",target=\"[target]\"",
    )
}

#[test]
fn first_demo_exposition() {
    let text = render_snapshot(&demo_snapshot(1, 1), 20, Format::Text);
    insta::assert_snapshot!(stable(text));
}

#[test]
fn first_demo_exposition_openmetrics() {
    let text = render_snapshot(&demo_snapshot(1, 1), 5, Format::OpenMetrics);
    insta::assert_snapshot!(stable(text));
}

/// `promtool`, when installed (Debian package `prometheus`).
fn promtool() -> Option<std::path::PathBuf> {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("promtool"))
        .find(|p| p.is_file());
    if found.is_none() {
        println!("skipped: promtool not installed (apt-get install prometheus)");
    }
    found
}

fn promtool_check_metrics(text: &str) -> (bool, String) {
    let mut child = Command::new(promtool().unwrap())
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success() && said.trim().is_empty(), said)
}

#[test]
fn promtool_finds_nothing_to_complain_about() {
    if promtool().is_none() {
        return;
    }
    // Several moments of the story: ERR QPs appear, processes come and go.
    for collections in [1, 5, 40] {
        let text = render_snapshot(&demo_snapshot(1, collections), 20, Format::Text);
        let (clean, said) = promtool_check_metrics(&text);
        assert!(clean, "after {collections} collections: {said}");
    }
    let failed = failed_collection_text();
    let (clean, said) = promtool_check_metrics(&failed);
    assert!(clean, "{said}");
    // QP-bound counters, with and without the pid label.
    for pid_label in [true, false] {
        let text = render_owners(&demo_with_bound_counters(), Format::Text, pid_label);
        assert!(text.contains("restop_qp_bound_stat_total{"), "{text}");
        let (clean, said) = promtool_check_metrics(&text);
        assert!(clean, "bound counters, pid label {pid_label}: {said}");
    }
}

/// Every line is metadata of a catalog family or a sample of the family
/// whose metadata came last; each family appears once with HELP then TYPE.
fn check_structure(text: &str, format: Format) {
    let mut seen_families = BTreeSet::new();
    let mut current: Option<&catalog::Family> = None;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line == "# EOF" {
            assert_eq!(format, Format::OpenMetrics);
            assert!(lines.peek().is_none(), "# EOF is not last");
            continue;
        }
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let name = rest.split(' ').next().unwrap();
            let family = catalog::families()
                .find(|f| metadata_name(f, format) == name)
                .unwrap_or_else(|| panic!("HELP of an unknown family: {line}"));
            assert!(seen_families.insert(family.name), "{name} twice");
            let type_line = lines.next().unwrap();
            assert_eq!(
                type_line,
                format!("# TYPE {name} {}", family.kind.name()),
                "TYPE must follow HELP"
            );
            current = Some(family);
            continue;
        }
        assert!(!line.starts_with('#'), "unexpected comment {line}");
        let family = current.expect("sample before any metadata");
        let name = line.split(['{', ' ']).next().unwrap();
        assert_eq!(name, family.name, "sample outside its family: {line}");
        let value = line.rsplit(' ').next().unwrap();
        assert!(value.parse::<f64>().is_ok(), "bad value in {line}");
    }
    if format == Format::OpenMetrics {
        assert!(text.ends_with("# EOF\n"));
    }
}

fn metadata_name(f: &catalog::Family, format: Format) -> &'static str {
    match (format, f.kind) {
        (Format::OpenMetrics, MetricType::Counter) => f.name.strip_suffix("_total").unwrap(),
        _ => f.name,
    }
}

#[test]
fn every_document_is_well_formed_in_both_formats() {
    for collections in [1, 10, 60] {
        let snapshot = demo_snapshot(3, collections);
        for format in [Format::Text, Format::OpenMetrics] {
            check_structure(&render_snapshot(&snapshot, 20, format), format);
        }
    }
    for format in [Format::Text, Format::OpenMetrics] {
        let health = Health::new(SourceKind::Live);
        let text = render(
            &RenderInput {
                snapshot: None,
                health: &health,
                top: 20,
                error_qp_ages: None,
                leak_suspects: None,
            },
            format,
        );
        check_structure(&text, format);
    }
}

#[test]
fn the_demo_exports_every_family_but_those_that_need_history() {
    // Rendered without a history: QP ages and leak verdicts are unknown, so
    // those families are left out rather than shown as zero.
    let text = render_snapshot(&demo_snapshot(1, 1), 20, Format::Text);
    let need_history = [
        catalog::ERROR_QUEUE_PAIR_OLDEST_AGE.name,
        catalog::LEAK_SUSPECTS.name,
        catalog::PROCESS_LEAK_SUSPECT.name,
        // Not history, but live only: the demo host always knows its limits.
        catalog::DEVICE_LIMITS_UNREAD.name,
        catalog::PROBLEMS.name,
        catalog::PROBLEM.name,
    ];
    for family in catalog::families() {
        let present = text.contains(&format!("\n{}", family.name)) || text.starts_with(family.name);
        let expected = !need_history.contains(&family.name);
        assert_eq!(present, expected, "{}", family.name);
    }
}

#[test]
fn error_qp_ages_are_exported_only_when_known() {
    let snapshot = demo_snapshot(1, 1);
    let health = health_after(&snapshot);
    let ages: ErrorQpAges = BTreeMap::from([("mlx5_1".to_string(), Duration::from_secs(90))]);
    let text = render(
        &RenderInput {
            snapshot: Some(&snapshot),
            health: &health,
            top: 20,
            error_qp_ages: Some(&ages),
            leak_suspects: None,
        },
        Format::Text,
    );
    assert!(text.contains("\nrestop_error_queue_pair_oldest_age_seconds{device=\"mlx5_1\"} 90\n"));
}

fn failed_collection_text() -> String {
    let mut health = Health::new(SourceKind::Live);
    health.record_failure(
        &CollectError::Timeout {
            what: "RES_GET".into(),
            after: Duration::from_secs(5),
        },
        Duration::from_secs(5),
    );
    render(
        &RenderInput {
            snapshot: None,
            health: &health,
            top: 20,
            error_qp_ages: None,
            leak_suspects: None,
        },
        Format::Text,
    )
}

#[test]
fn a_failed_collection_exports_health_and_no_stale_numbers() {
    let text = failed_collection_text();
    assert!(text.contains("\nrestop_up{source=\"live\"} 0\n"));
    assert!(text.contains("\nrestop_collection_errors_total{kind=\"timeout\"} 1\n"));
    assert!(text.contains("\nrestop_collection_duration_seconds 5\n"));
    for absent in [
        "restop_resources",
        "restop_queue_pairs",
        "restop_process_",
        "restop_last_success",
    ] {
        assert!(!text.contains(absent), "{absent}");
    }
}

/// Sample values of `family`, keyed by their label set.
fn samples(text: &str, family: &str) -> Vec<(String, f64)> {
    text.lines()
        .filter(|l| l.starts_with(&format!("{family}{{")))
        .map(|l| {
            let (labels, value) = l.rsplit_once(' ').unwrap();
            (labels.to_string(), value.parse().unwrap())
        })
        .collect()
}

#[test]
fn per_owner_series_are_bounded_and_add_up_to_every_owner() {
    let snapshot = demo_snapshot(1, 1);
    let rows = consumers(&snapshot, &Filter::default());
    assert!(rows.len() > 5);
    let text = render_snapshot(&snapshot, 5, Format::Text);
    for t in ResourceType::ALL {
        let series: Vec<(String, f64)> = samples(&text, "restop_process_resources")
            .into_iter()
            .filter(|(labels, _)| labels.contains(&format!("type=\"{}\"", t.name())))
            .collect();
        assert!(series.len() <= 6, "{t}: {} series", series.len());
        assert_eq!(
            series
                .iter()
                .filter(|(l, _)| l.contains("name=\"other\""))
                .count(),
            1,
            "{t}: one remainder"
        );
        let exported: f64 = series.iter().map(|(_, v)| v).sum();
        let held: u64 = rows.iter().map(|c| c.counts.get(t)).sum();
        assert_eq!(exported, held as f64, "{t}");
    }
    let bytes = samples(&text, "restop_process_mr_bytes");
    assert_eq!(bytes.len(), 6);
    let exported: f64 = bytes.iter().map(|(_, v)| v).sum();
    let held: u64 = rows.iter().map(|c| c.mr_bytes).sum();
    assert_eq!(exported, held as f64);
}

/// A host with thousands of processes, one with a hostile name.
fn crowded_snapshot(processes: u32) -> Snapshot {
    let mut snapshot = Snapshot::empty(SourceKind::Live, restop::model::UnixMs(0));
    snapshot.meta.host = "h".into();
    snapshot.meta.kernel = "k".into();
    snapshot.devices = vec![restop::model::Device::new(0, "mlx5_0")];
    for pid in 1..=processes {
        let key = ProcessKey { pid, start_time: 1 };
        let mut info = ProcessInfo::unknown(key);
        info.comm = if pid == 1 {
            "evil\"\\\nname".to_string()
        } else {
            format!("worker{pid}")
        };
        snapshot.processes.push(info);
        let mut tally = Tally::new(OwnerKey::Process(key), 0);
        tally.counts.add(ResourceType::Qp, u64::from(pid % 97 + 1));
        tally.counts.add(ResourceType::Mr, 3);
        tally.mr_bytes = u64::from(pid) * 4096;
        snapshot.tallies.push(tally);
    }
    snapshot
}

#[test]
fn thousands_of_processes_give_at_most_top_plus_one_series_per_type() {
    let snapshot = crowded_snapshot(5000);
    let text = render_snapshot(&snapshot, 20, Format::Text);
    let series = samples(&text, "restop_process_resources");
    // QP and MR are held; every type has its remainder series.
    assert_eq!(series.len(), 2 * 20 + 7);
    assert_eq!(samples(&text, "restop_process_mr_bytes").len(), 21);
    let qps: f64 = series
        .iter()
        .filter(|(l, _)| l.contains("type=\"qp\""))
        .map(|(_, v)| v)
        .sum();
    let expected: u64 = (1..=5000u64).map(|pid| pid % 97 + 1).sum();
    assert_eq!(qps, expected as f64);
}

#[test]
fn label_values_are_escaped() {
    let snapshot = crowded_snapshot(1);
    for format in [Format::Text, Format::OpenMetrics] {
        let text = render_snapshot(&snapshot, 20, format);
        assert!(
            text.contains(r#"name="evil\"\\\nname""#),
            "{}",
            text.lines()
                .find(|l| l.contains("evil"))
                .unwrap_or("no evil line")
        );
        check_structure(&text, format);
    }
    if promtool().is_some() {
        let (clean, said) = promtool_check_metrics(&render_snapshot(&snapshot, 20, Format::Text));
        assert!(clean, "{said}");
    }
}

/// The demo's first snapshot with QPs bound on mlx5_2 port 1: counter 4 for rank 21407 and
/// counter 5 for rank 21408 of the pre-training job (both `train.py`), as `rdma statistic
/// qp set link mlx5_2/1 auto type on` leaves them.
fn demo_with_bound_counters() -> Snapshot {
    use restop::model::ReportedOwner;
    use restop::model::counters::bound::BoundCounter;
    let mut snapshot = demo_snapshot(1, 1);
    let device = snapshot
        .devices
        .iter_mut()
        .find(|d| d.name == "mlx5_2")
        .unwrap();
    let counters = device.ports[0].counters.as_mut().unwrap();
    for (id, pid) in [(4, 21407), (5, 21408)] {
        counters.bound.push(BoundCounter {
            id,
            mode: Some("auto".into()),
            reported: ReportedOwner::Task(pid),
            qps: vec![100 + id],
            counters: [("out_of_sequence".to_string(), u64::from(id))]
                .into_iter()
                .collect(),
        });
    }
    snapshot
}

fn render_owners(snapshot: &Snapshot, format: Format, pid_label: bool) -> String {
    let health = health_after(snapshot);
    restop::export::render_with(
        &RenderInput {
            snapshot: Some(snapshot),
            health: &health,
            top: 20,
            error_qp_ages: None,
            leak_suspects: None,
        },
        format,
        &restop::export::OwnerOptions {
            group: restop::export::OwnerGroup::Process,
            pid_label,
        },
    )
}

#[test]
fn no_pid_label_leaves_pid_out_of_owner_and_bound_counter_series() {
    let snapshot = demo_with_bound_counters();
    let with_pid = render_owners(&snapshot, Format::Text, true);
    assert!(
        with_pid.contains(
            "restop_qp_bound_stat_total{device=\"mlx5_2\",port=\"1\",counter_id=\"4\",mode=\"auto\",pid=\"21407\",name=\"train.py\",counter=\"out_of_sequence\"} 4\n"
        ),
        "{with_pid}"
    );
    for format in [Format::Text, Format::OpenMetrics] {
        let text = render_owners(&snapshot, format, false);
        check_structure(&text, format);
        let owner_series: Vec<&str> = text
            .lines()
            .filter(|l| {
                l.starts_with("restop_process_resources")
                    || l.starts_with("restop_process_mr_bytes")
                    || l.starts_with("restop_qp_bound_stat_total")
            })
            .collect();
        assert!(owner_series.iter().all(|l| !l.contains("pid=")), "{text}");
        // One sample per series, whatever the labels left.
        let mut names: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.rsplit_once(' ').unwrap().0)
            .collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all, "a series twice");
    }
    let text = render_owners(&snapshot, Format::Text, false);
    // The counter id keeps the two ranks' counters apart.
    for (id, v) in [(4, 4), (5, 5)] {
        assert!(text.contains(&format!(
            "restop_qp_bound_stat_total{{device=\"mlx5_2\",port=\"1\",counter_id=\"{id}\",mode=\"auto\",name=\"train.py\",counter=\"out_of_sequence\"}} {v}\n"
        )), "{text}");
    }
}

#[test]
fn no_pid_label_leaves_pid_out_of_leak_suspects_and_folds_namesakes() {
    use restop::export::LeakSuspect;
    let snapshot = demo_snapshot(1, 1);
    let health = health_after(&snapshot);
    let suspect = |pid: &str, name: &str, resource| LeakSuspect {
        pid: pid.into(),
        name: name.into(),
        resource,
    };
    let suspects = [
        suspect("3377", "leaky_svc", ResourceType::Mr),
        suspect("3378", "leaky_svc", ResourceType::Mr),
        suspect("3378", "leaky_svc", ResourceType::Qp),
    ];
    let text = |pid_label| {
        restop::export::render_with(
            &RenderInput {
                snapshot: Some(&snapshot),
                health: &health,
                top: 20,
                error_qp_ages: None,
                leak_suspects: Some(&suspects),
            },
            Format::Text,
            &restop::export::OwnerOptions {
                group: restop::export::OwnerGroup::Process,
                pid_label,
            },
        )
    };
    let samples = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("restop_process_leak_suspect{"))
            .map(str::to_string)
            .collect()
    };
    let with_pid = text(true);
    assert_eq!(samples(&with_pid).len(), 3, "{with_pid}");
    assert!(
        with_pid.contains(
            "restop_process_leak_suspect{pid=\"3377\",name=\"leaky_svc\",type=\"mr\"} 1\n"
        )
    );
    let without = text(false);
    check_structure(&without, Format::Text);
    assert_eq!(
        samples(&without),
        [
            "restop_process_leak_suspect{name=\"leaky_svc\",type=\"mr\"} 1",
            "restop_process_leak_suspect{name=\"leaky_svc\",type=\"qp\"} 1",
        ]
    );
    // The count of suspects is still of owners and types.
    assert!(without.contains("restop_leak_suspects 3\n"), "{without}");
}
