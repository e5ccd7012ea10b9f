//! The alert rules, the Grafana dashboard and docs/exporter.md against what
//! restop really exports: promtool accepts and unit-tests the rules, and
//! every metric any of them names exists.

use restop::demo::DemoSource;
use restop::export::catalog;
use restop::export::collector::Collector;
use restop::model::{LimitsUnread, Snapshot, SourceKind};
use restop::session::{Pacer, Session};
use restop::source::{CollectError, CollectRequest, Source};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(root().join(relative)).unwrap()
}

fn promtool() -> Option<PathBuf> {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("promtool"))
        .find(|p| p.is_file());
    if found.is_none() {
        println!("skipped: promtool not installed (apt-get install prometheus)");
    }
    found
}

fn run_promtool(args: &[&str]) {
    let Some(promtool) = promtool() else {
        return;
    };
    let out = Command::new(promtool)
        .args(args)
        .current_dir(root().join("assets/prometheus"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "promtool {args:?}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn promtool_checks_the_rules() {
    run_promtool(&["check", "rules", "restop-rules.yml"]);
}

/// The fleet's per-exporter rules over a host whose VFs live in pods' network
/// namespaces (their series carry `netns`, `restop_device_info` also `pod`):
/// one series per exporter (the target's labels, from its `up`), every device
/// counted, every ERROR QP summed.
#[test]
fn the_fleet_rules_see_devices_of_other_namespaces_as_one_host() {
    let Some(promtool) = promtool() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let rules = root().join("assets/prometheus/restop-fleet-rules.yml");
    let host = r#"job="restop",instance="a:9879",node="node-a""#;
    let info = |device: &str, pf: &str, ns: &str| {
        format!(
            r#"restop_device_info{{{host},device="{device}",node_type="CA",protocol="roce",pf="{pf}",pci="",firmware_version="28.39"{ns}}}"#
        )
    };
    let ns16 = r#",netns="net:[4026533016]""#;
    let ns17 = r#",netns="net:[4026533017]""#;
    let test = format!(
        r#"rule_files:
  - {rules}
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'up{{{host}}}'
        values: '1x5'
      - series: '{i0}'
        values: '1x5'
      - series: '{i16}'
        values: '1x5'
      - series: '{i17}'
        values: '1x5'
      - series: 'restop_error_queue_pairs{{{host},device="mlx5_0"}}'
        values: '1x5'
      - series: 'restop_error_queue_pairs{{{host},device="mlx5_16"{ns16}}}'
        values: '6x5'
      - series: 'restop_resources_usage_ratio{{{host},device="mlx5_0",type="qp"}}'
        values: '0.2x5'
      - series: 'restop_resources_usage_ratio{{{host},device="mlx5_16",type="qp"{ns16}}}'
        values: '0.9x5'
      - series: 'restop_resources_usage_ratio{{{host},device="mlx5_17",type="mr"{ns17}}}'
        values: '0.5x5'
    promql_expr_test:
      - expr: restop:fleet_target_devices
        eval_time: 5m
        exp_samples:
          - labels: 'restop:fleet_target_devices{{{host}}}'
            value: 3
      - expr: restop:fleet_target_error_queue_pairs
        eval_time: 5m
        exp_samples:
          - labels: 'restop:fleet_target_error_queue_pairs{{{host}}}'
            value: 7
      - expr: restop:fleet_target_usage_ratio:top1
        eval_time: 5m
        exp_samples:
          - labels: 'restop:fleet_target_usage_ratio:top1{{{host},device="mlx5_16",type="qp"{ns16}}}'
            value: 0.9
"#,
        rules = rules.display(),
        i0 = info("mlx5_0", "", ""),
        i16 = info(
            "mlx5_16",
            "mlx5_0",
            &format!(r#"{ns16},pod="ml/trainer-0""#)
        ),
        i17 = info(
            "mlx5_17",
            "mlx5_0",
            &format!(r#"{ns17},pod="ml/trainer-1""#)
        ),
    );
    let file = dir.path().join("netns.test.yml");
    std::fs::write(&file, test).unwrap();
    let out = Command::new(promtool)
        .args(["test", "rules"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn promtool_unit_tests_of_every_alert_pass() {
    run_promtool(&["test", "rules", "restop-rules.test.yml"]);
}

/// Every `restop_…` metric name in a text (identifiers only: `restop-rules`
/// or `restop.prom` are not names).
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(found) = text[i..].find("restop_") {
        let start = i + found;
        let preceded_by_word =
            start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let end = text[start..]
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .map_or(text.len(), |n| start + n);
        let name = &text[start..end];
        if !preceded_by_word && name.len() > "restop_".len() && !name.ends_with('_') {
            names.insert(name.to_string());
        }
        i = end.max(start + 1);
    }
    names
}

fn catalog_names() -> BTreeSet<String> {
    catalog::families().map(|f| f.name.to_string()).collect()
}

/// The demo host, with one device whose limits could not be read (as on a live
/// host whose libibverbs cannot open it): the demo itself always knows its limits.
struct DemoWithUnreadLimits(DemoSource);

impl Source for DemoWithUnreadLimits {
    fn kind(&self) -> SourceKind {
        self.0.kind()
    }

    fn collect(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError> {
        let mut snapshot = self.0.collect(request)?;
        if let Some(device) = snapshot.devices.first_mut() {
            device.limits_unread = Some(LimitsUnread::NotListed);
        }
        Ok(snapshot)
    }
}

/// Names that appear in the demo's exposition.
fn exported_names() -> BTreeSet<String> {
    let demo = DemoSource::new(1, Duration::from_secs(2));
    let mut session = Session::new(Box::new(DemoWithUnreadLimits(demo)), Pacer::unpaced());
    let mut collector = Collector::new(session.kind(), 20);
    let text = String::from_utf8(collector.render(session.next_tick()).text).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split(['{', ' ']).next())
        .map(String::from)
        .collect()
}

#[test]
fn the_rules_only_use_metrics_restop_exports() {
    let used = metric_names(&read("assets/prometheus/restop-rules.yml"));
    assert!(used.len() >= 6, "{used:?}");
    let exported = exported_names();
    for name in &used {
        assert!(
            exported.contains(name),
            "rules use {name}, which restop does not export"
        );
    }
    let tested = metric_names(&read("assets/prometheus/restop-rules.test.yml"));
    for name in &tested {
        assert!(catalog_names().contains(name), "rule tests feed {name}");
    }
}

#[test]
fn the_dashboard_is_importable_json_over_restop_metrics() {
    let dashboard: Value =
        serde_json::from_str(&read("assets/grafana/restop-dashboard.json")).unwrap();
    assert!(dashboard["title"].is_string());
    assert!(dashboard["uid"].is_string());
    let variables = dashboard["templating"]["list"].as_array().unwrap();
    let datasource = variables
        .iter()
        .find(|v| v["name"] == "datasource")
        .expect("a datasource variable");
    assert_eq!(datasource["type"], "datasource");
    assert_eq!(datasource["query"], "prometheus");

    let panels = dashboard["panels"].as_array().unwrap();
    let mut ids = BTreeSet::new();
    let mut used = BTreeSet::new();
    let mut titles = Vec::new();
    for panel in panels {
        assert!(ids.insert(panel["id"].as_u64().unwrap()), "duplicate id");
        assert!(panel["gridPos"]["w"].as_u64().unwrap() <= 24);
        titles.push(panel["title"].as_str().unwrap().to_string());
        if panel["type"] == "row" {
            continue;
        }
        assert_eq!(
            panel["datasource"]["uid"], "${datasource}",
            "{}",
            panel["title"]
        );
        let targets = panel["targets"].as_array().unwrap();
        assert!(!targets.is_empty(), "{}", panel["title"]);
        for target in targets {
            assert_eq!(target["datasource"]["uid"], "${datasource}");
            // Rates over Grafana's $__rate_interval (at least four scrapes at any
            // zoom), never a fixed window that breaks with another scrape interval.
            let expr = target["expr"].as_str().unwrap();
            if expr.contains("rate(") || expr.contains("increase(") {
                assert!(expr.contains("[$__rate_interval]"), "{expr}");
            }
            used.extend(metric_names(target["expr"].as_str().unwrap()));
        }
    }
    for row in [
        "Exporter health",
        "Device usage",
        "Top consumers",
        "Queue pairs and ERROR QPs",
        "NIC counters",
    ] {
        assert!(titles.iter().any(|t| t == row), "no {row} row");
    }
    for v in variables {
        if let Some(q) = v["definition"].as_str() {
            used.extend(metric_names(q));
        }
    }
    let exported = exported_names();
    for name in &used {
        assert!(
            exported.contains(name),
            "the dashboard uses {name}, which restop does not export"
        );
    }
    for needed in [
        "restop_up",
        "restop_resources_usage_ratio",
        "restop_process_resources",
        "restop_error_queue_pairs",
        "restop_port_transmit_bytes_total",
        "restop_port_hw_stat_total",
    ] {
        assert!(
            used.contains(needed),
            "the dashboard does not show {needed}"
        );
    }
}

#[test]
fn the_docs_describe_every_metric_and_no_other() {
    let docs = read("docs/exporter.md");
    for family in catalog::families() {
        let row = docs
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", family.name)))
            .unwrap_or_else(|| panic!("docs/exporter.md has no table row for {}", family.name));
        assert!(
            row.contains(&format!("| {} |", family.kind.name())),
            "{}: type",
            family.name
        );
        for label in family.labels {
            assert!(
                row.contains(&format!("`{label}`")),
                "{}: label {label}",
                family.name
            );
        }
    }
    let catalog = catalog_names();
    for name in metric_names(&docs) {
        assert!(
            catalog.contains(&name),
            "docs/exporter.md names {name}, which does not exist"
        );
    }
}
