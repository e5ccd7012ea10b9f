//! The outputs on the simulated host: golden files of its first snapshot
//! (seed 1), and the 80-column promise over many later ones.

use restop::demo::DemoSource;
use restop::model::filter::Filter;
use restop::model::{QpState, Snapshot};
use restop::output::text::WIDTH;
use restop::output::{OnceOptions, render_json, render_once};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

/// `count` snapshots `step` apart.
fn snapshots(seed: u64, count: usize, step: Duration) -> Vec<Snapshot> {
    let mut source = DemoSource::new(seed, step);
    (0..count)
        .map(|_| source.collect(&CollectRequest::default()).unwrap())
        .collect()
}

fn first_snapshot() -> Snapshot {
    snapshots(1, 1, Duration::from_secs(2)).remove(0)
}

#[test]
fn first_demo_report() {
    let text = render_once(
        &first_snapshot(),
        &Filter::default(),
        &OnceOptions::default(),
    );
    insta::assert_snapshot!(text);
}

#[test]
fn first_demo_document() {
    let doc = render_json(&first_snapshot(), &Filter::default());
    let json = serde_json::to_string_pretty(&doc).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["meta"]["source"], "demo");
    insta::assert_snapshot!(json);
}

#[test]
fn demo_reports_fit_80_columns_as_the_host_evolves() {
    let filters = [
        Filter::default(),
        Filter {
            state: Some(QpState::Err),
            ..Filter::default()
        },
        Filter {
            device: Some("mlx5_2".into()),
            ..Filter::default()
        },
    ];
    // Ten minutes of simulated time per seed, in 40 s steps.
    for seed in [1, 42] {
        for snapshot in snapshots(seed, 15, Duration::from_secs(40)) {
            for filter in &filters {
                let options = OnceOptions {
                    top: 0,
                    ..OnceOptions::default()
                };
                let text = render_once(&snapshot, filter, &options);
                for line in text.lines() {
                    assert!(
                        line.chars().count() <= WIDTH,
                        "seed {seed}: line wider than {WIDTH}: {line:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn demo_error_qps_appear_in_both_outputs() {
    let mut source = DemoSource::new(1, Duration::from_secs(4));
    let snapshot = (0..30)
        .map(|_| source.collect(&CollectRequest::default()).unwrap())
        .find(|s| {
            s.objects
                .iter()
                .any(|o| matches!(o, restop::model::Object::Qp(q) if q.state.is_error()))
        })
        .expect("the demo's QPs fall into ERR within two minutes");
    let text = render_once(&snapshot, &Filter::default(), &OnceOptions::default());
    assert!(!text.contains("no QPs in ERR/SQE"));
    let doc = serde_json::to_value(render_json(&snapshot, &Filter::default())).unwrap();
    assert!(!doc["error_qps"].as_array().unwrap().is_empty());
}
