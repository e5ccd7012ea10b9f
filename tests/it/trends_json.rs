//! The `trends` object batch documents carry: its shape, and what it says
//! about the demo host after a minute.

use restop::demo::DemoSource;
use restop::model::filter::Filter;
use restop::model::history::{History, HistoryConfig};
use restop::model::{DetailScope, Snapshot};
use restop::output::trends::trend_fields;
use restop::source::{CollectRequest, Source};
use serde_json::Value;
use std::time::Duration;

/// The demo host after `seconds` at a 2 s step, and its history.
fn demo(seconds: u64, details: DetailScope) -> (History, Snapshot) {
    let mut source = DemoSource::new(1, Duration::from_secs(2));
    let mut history = History::new(HistoryConfig::default());
    let mut last = None;
    for _ in 0..=seconds / 2 {
        let snapshot = source
            .collect(&CollectRequest {
                details: details.clone(),
                force_objects: true,
            })
            .unwrap();
        history.push(&snapshot);
        last = Some(snapshot);
    }
    (history, last.unwrap())
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

#[test]
fn the_shape_is_the_documented_one() {
    // The first tick with a leak suspect and an ERROR QP both.
    let mut source = DemoSource::new(1, Duration::from_secs(2));
    let mut history = History::new(HistoryConfig::default());
    let mut trends = Value::Null;
    for _ in 0..300 {
        let snapshot = source
            .collect(&CollectRequest {
                details: DetailScope::All,
                force_objects: true,
            })
            .unwrap();
        history.push(&snapshot);
        trends = trend_fields(&history, &snapshot, &Filter::default());
        if trends["error_qps"][0].is_object() && trends["warnings"][0].is_object() {
            break;
        }
    }
    assert_eq!(
        keys(&trends),
        [
            "covered_s",
            "error_qps",
            "owners",
            "retention_s",
            "warnings",
            "window_s"
        ]
    );
    assert_eq!(trends["window_s"], 300.0);
    assert_eq!(trends["retention_s"], 600.0);
    let owner = &trends["owners"][0];
    assert_eq!(
        keys(owner),
        ["kind", "leak_suspect", "name", "pid", "start_time", "types"]
    );
    let (_, some_type) = owner["types"].as_object().unwrap().iter().next().unwrap();
    assert_eq!(
        keys(some_type),
        [
            "current",
            "explanation",
            "growth",
            "leak_suspect",
            "monotonicity",
            "rate_per_min",
            "span_s"
        ]
    );
    let err = &trends["error_qps"][0];
    assert_eq!(
        keys(err),
        [
            "age_is_lower_bound",
            "age_s",
            "device",
            "first_seen",
            "first_seen_ms",
            "lingering",
            "lqpn",
            "owner",
            "pid",
            "port",
            "previous_state",
            "start_time",
            "state"
        ]
    );
    let warning = &trends["warnings"][0];
    assert_eq!(keys(warning), ["device", "kind", "message", "pid", "since"]);
}

#[test]
fn after_a_minute_the_leak_is_in_owners_and_warnings() {
    let (history, snapshot) = demo(60, DetailScope::ErrorsOnly);
    let trends = trend_fields(&history, &snapshot, &Filter::default());
    let leaky: Vec<&Value> = trends["owners"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["leak_suspect"] == true)
        .collect();
    assert_eq!(leaky.len(), 1, "{trends:#}");
    let leaky = leaky[0];
    assert_eq!(leaky["name"], "leaky_svc");
    assert_eq!(leaky["kind"], "process");
    assert_eq!(leaky["pid"], 3377);
    assert_eq!(leaky["types"]["mr"]["rate_per_min"], 90.0);
    assert_eq!(leaky["types"]["mr"]["growth"], 90);
    assert_eq!(
        leaky["types"]["mr"]["explanation"],
        "+90 MRs in 1 min, never decreased"
    );
    assert_eq!(leaky["types"]["qp"]["leak_suspect"], true);
    assert_eq!(leaky["types"]["pd"]["leak_suspect"], false, "held, flat");
    assert_eq!(leaky["types"]["pd"]["rate_per_min"], 0.0);
    assert_eq!(leaky["types"]["srq"], Value::Null, "never held");

    let warnings = trends["warnings"].as_array().unwrap();
    let kinds: Vec<&str> = warnings
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["leak_suspect"], "{warnings:#?}");
    assert_eq!(warnings[0]["pid"], 3377);
    assert_eq!(warnings[0]["since"], "2026-01-01T00:00:00.000Z");
}

#[test]
fn error_qps_have_ages_and_filters_apply() {
    let (history, snapshot) = demo(40, DetailScope::All);
    let trends = trend_fields(&history, &snapshot, &Filter::default());
    let errors = trends["error_qps"].as_array().unwrap();
    assert!(!errors.is_empty());
    for e in errors {
        assert!(e["age_s"].as_f64().unwrap() >= 0.0);
        assert_eq!(e["lingering"], false, "the demo's QPs recover within 40 s");
    }
    let by_pid = Filter {
        pid: Some(3377),
        ..Filter::default()
    };
    let only = trend_fields(&history, &snapshot, &by_pid);
    let names: Vec<&str> = only["owners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["leaky_svc"]);
    assert_eq!(only["error_qps"], Value::Array(Vec::new()));
}

/// The `trends` of `restop --demo --batch --json --pid 3377`, 31st line.
fn docs_example_actual() -> Value {
    let (history, snapshot) = demo(60, DetailScope::ErrorsOnly);
    let filter = Filter {
        pid: Some(3377),
        ..Filter::default()
    };
    trend_fields(&history, &snapshot, &filter)
}

#[test]
fn json_md_trends_example_is_the_demo_output() {
    let markdown = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json.md"))
        .expect("docs/json.md");
    let heading = "### `trends` example";
    let section = &markdown[markdown.find(heading).expect("heading")..];
    let start = section.find("```json\n").expect("json block") + "```json\n".len();
    let end = section[start..].find("\n```").expect("end of block") + start;
    let example: Value = serde_json::from_str(&section[start..end]).expect("valid JSON");
    let actual = docs_example_actual();
    assert_eq!(
        example,
        actual,
        "docs/json.md's trends example is stale; it is:\n{}",
        serde_json::to_string_pretty(&actual).unwrap()
    );
}
