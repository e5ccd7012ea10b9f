//! The problems list in the reports: `--once` and `--json` list the same
//! problems for the same snapshot (the demo's storm at 44 s among them), a
//! run's history escalates and clears them (`--batch`), and the demo's
//! timeline raises the kinds docs/user-guide.md promises.

use restop::demo::DemoSource;
use restop::model::filter::Filter;
use restop::model::history::{History, HistoryConfig};
use restop::model::problems::{ProblemKind, Severity};
use restop::model::{DetailScope, Snapshot};
use restop::output::{OnceOptions, render_json, render_once};
use restop::source::{CollectRequest, Source};
use std::collections::BTreeSet;
use std::time::Duration;

const STEP: Duration = Duration::from_secs(2);

fn request() -> CollectRequest {
    CollectRequest {
        details: DetailScope::ErrorsOnly,
        force_objects: true,
    }
}

/// `restop --demo --demo-at <at> --once`'s snapshot.
fn demo_at(at: Duration) -> Snapshot {
    DemoSource::starting_at(1, STEP, at)
        .collect(&request())
        .unwrap()
}

/// The PROBLEMS section's entries, each one line again.
fn once_problems(report: &str) -> Vec<(String, String)> {
    let section = &report[report.find("PROBLEMS").expect("PROBLEMS section")..];
    let mut entries: Vec<(String, String)> = Vec::new();
    for line in section.lines().skip(1).take_while(|l| !l.is_empty()) {
        let head = line.get(2..10).unwrap_or("").trim().to_string();
        let text = line.get(21..).unwrap_or("").trim();
        match entries.last_mut() {
            Some(last) if head.is_empty() => {
                last.1.push(' ');
                last.1.push_str(text);
            }
            _ => entries.push((head, text.to_string())),
        }
    }
    entries
}

fn json_problems(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["severity"].as_str().unwrap().to_string(),
                p["why"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn once_and_json_list_the_same_problems_and_the_storm_at_44s() {
    for at in [0, 44, 90, 600] {
        let s = demo_at(Duration::from_secs(at));
        let report = render_once(&s, &Filter::default(), &OnceOptions::default());
        let doc = serde_json::to_value(render_json(&s, &Filter::default())).unwrap();
        assert_eq!(once_problems(&report), json_problems(&doc), "at {at} s");
    }
    let s = demo_at(Duration::from_secs(44));
    let doc = serde_json::to_value(render_json(&s, &Filter::default())).unwrap();
    let storm = doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "nic_errors" && p["detail"] == "out_of_sequence")
        .expect("the storm is a problem");
    assert_eq!(storm["severity"], "critical");
    assert_eq!(storm["subject"]["device"], "mlx5_1");
    assert_eq!(storm["opens"]["kind"], "port_counters");
    assert_eq!(storm["value"], 180.0);
    let report = render_once(&s, &Filter::default(), &OnceOptions::default());
    assert!(
        report.contains("mlx5_1 port 1: out_of_sequence keeps rising (180.0/s"),
        "{report}"
    );
    assert!(report.contains("congestion storm"), "{report}");
}

#[test]
fn a_healthy_snapshot_says_so_in_one_line() {
    let mut s = demo_at(Duration::ZERO);
    for d in &mut s.devices {
        d.usage = Default::default();
    }
    s.tallies
        .retain(|t| t.owner != restop::model::OwnerKey::Unattributed);
    let report = render_once(&s, &Filter::default(), &OnceOptions::default());
    assert!(
        report.contains("PROBLEMS\n  none: nothing is wrong\n"),
        "{report}"
    );
    let doc = serde_json::to_value(render_json(&s, &Filter::default())).unwrap();
    assert_eq!(doc["problems"], serde_json::json!([]));
}

/// The kinds and severities the demo's history lists, starting at `from`,
/// every `step`, for `n` collections.
fn history_kinds(
    from: Duration,
    step: Duration,
    n: usize,
) -> Vec<BTreeSet<(ProblemKind, Severity)>> {
    let mut demo = DemoSource::starting_at(1, step, from);
    let mut history = History::new(HistoryConfig::default());
    (0..n)
        .map(|_| {
            let s = demo.collect(&request()).unwrap();
            history.push(&s);
            history
                .insights(&s, &Filter::default())
                .problems
                .iter()
                .map(|p| (p.kind, p.severity))
                .collect()
        })
        .collect()
}

#[test]
fn the_demo_timeline_raises_what_the_user_guide_says() {
    // The first two minutes at 2 s: storm, flap, port down, leak, limits.
    let ticks = history_kinds(Duration::ZERO, STEP, 60);
    let seen: BTreeSet<ProblemKind> = ticks.iter().flatten().map(|(k, _)| *k).collect();
    for kind in [
        ProblemKind::Limit,
        ProblemKind::NicErrors,
        ProblemKind::Congestion,
        ProblemKind::LinkFlap,
        ProblemKind::PortNotActive,
        ProblemKind::LeakSuspect,
        ProblemKind::ErrorQps,
        ProblemKind::Unattributed,
    ] {
        assert!(seen.contains(&kind), "{kind:?} never raised: {seen:?}");
    }
    // The storm ends 110 s in; its problems with it.
    assert!(
        !ticks[59]
            .iter()
            .any(|(k, _)| matches!(k, ProblemKind::NicErrors | ProblemKind::Congestion)),
        "{:?}",
        ticks[59]
    );
    // From 5 min the inference server's stuck QPs escalate: warning, then critical.
    let stuck = history_kinds(Duration::from_secs(290), Duration::from_secs(5), 70);
    let error_severities: BTreeSet<Severity> = stuck
        .iter()
        .flatten()
        .filter(|(k, _)| *k == ProblemKind::ErrorQps)
        .map(|(_, s)| *s)
        .collect();
    assert!(error_severities.contains(&Severity::Warning));
    assert!(error_severities.contains(&Severity::Critical));
}

/// An owner's ERROR QPs on two devices are one problem in the list and one
/// `restop_problem` series per device, each naming its device.
#[test]
fn the_exporter_names_the_devices_of_an_owners_error_qps() {
    use crate::tui_common::{fixture, owner, qp};
    use restop::export::exposition::Format;
    use restop::export::health::Health;
    use restop::export::render::{RenderInput, render_with_problems};
    use restop::export::top_owners::OwnerOptions;
    use restop::model::QpState;

    let mut s = fixture(&DetailScope::ErrorsOnly);
    s.objects.push(qp(1, 77, QpState::Err, owner(100)));
    let mut history = History::new(HistoryConfig::default());
    history.push(&s);
    let problems = history.insights(&s, &Filter::default()).problems;
    let broken: Vec<_> = problems
        .iter()
        .filter(|p| p.kind == ProblemKind::ErrorQps && p.subject_name.contains("train.py"))
        .collect();
    assert_eq!(broken.len(), 1, "one problem for the owner: {problems:#?}");
    assert_eq!(broken[0].devices(), vec!["mlx5_0", "mlx5_1"]);

    let health = Health::new(s.meta.source);
    let text = render_with_problems(
        &RenderInput {
            snapshot: Some(&s),
            health: &health,
            top: 5,
            error_qp_ages: None,
            leak_suspects: None,
        },
        Format::Text,
        &OwnerOptions::default(),
        Some(&problems),
    );
    let series: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("restop_problem{kind=\"error_qps\"") && l.contains("train.py"))
        .collect();
    assert_eq!(series.len(), 2, "one series per device: {series:#?}");
    for device in ["mlx5_0", "mlx5_1"] {
        assert!(
            series
                .iter()
                .any(|l| l.contains(&format!("device=\"{device}\""))),
            "no series on {device}: {series:#?}"
        );
    }
    assert!(
        !text.lines().any(
            |l| l.starts_with("restop_problem{kind=\"error_qps\"") && l.contains("device=\"\"")
        ),
        "an ERROR-QP series without its device: {text}"
    );
}
