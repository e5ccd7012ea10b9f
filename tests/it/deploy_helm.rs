//! The Helm chart (deploy/helm/restop): `helm lint --strict`, `helm template` for several
//! value sets validated offline against the Kubernetes schemas (kubernetes-validate,
//! strict, newest and 1.27), the defaults and switches rendering what the kustomize
//! overlays render (one deployment, two ways to install it), the rules and dashboard the
//! chart carries identical to assets/, and RestopExporterDown firing for the job the
//! chart's ServiceMonitor and PodMonitor give. Skipped with a notice where helm,
//! kubectl, kubernetes-validate or promtool is missing (tests/run-all.sh installs them).

use crate::deploy_manifests::{
    assert_exporter_down_fires, documents, on_path, operator_job, render, run,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn chart() -> PathBuf {
    root().join("deploy/helm/restop")
}

fn tools(needed: &[&str]) -> bool {
    for tool in needed {
        if on_path(tool).is_none() {
            println!("skipped: {tool} not installed (tests/run-all.sh installs it)");
            return false;
        }
    }
    true
}

/// `helm template restop` in namespace restop with `--set` values.
fn template(sets: &[&str]) -> String {
    let mut cmd = Command::new("helm");
    cmd.arg("template")
        .arg("restop")
        .arg(chart())
        .args(["--namespace", "restop"]);
    for set in sets {
        cmd.arg("--set").arg(set);
    }
    run(&mut cmd)
}

fn find<'a>(docs: &'a [Value], kind: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind}"))
}

const VALUE_SETS: [&[&str]; 5] = [
    &[],
    &[
        "serviceMonitor.enabled=true",
        "serviceMonitor.additionalLabels.release=kube-prometheus-stack",
        "prometheusRule.enabled=true",
        "prometheusRule.additionalLabels.release=kube-prometheus-stack",
        "dashboard.enabled=true",
    ],
    &[
        "podMonitor.enabled=true",
        "service.enabled=false",
        "networkPolicy.enabled=true",
        "namespace.create=true",
    ],
    &[
        "hostNetwork=true",
        "rdmaResource=rdma/rdma_shared_device_a",
        "priorityClassName=system-node-critical",
        "image.digest=sha256:4a5f0e0e7bd6c6e2b7b8a3d0c0f6d1b8a7e3c2d1f0e9d8c7b6a5f4e3d2c1b0a9",
    ],
    &[
        "nameOverride=rdmatop",
        "image.repository=registry.example.com/restop",
        "image.tag=0.1.0",
        "nodeSelector.restop=enabled",
        "affinity=null",
        "tolerations=null",
    ],
];

#[test]
fn the_chart_copies_of_the_rules_and_dashboard_are_the_assets() {
    for (copy, asset) in [
        (
            "files/restop-rules.yml",
            "assets/prometheus/restop-rules.yml",
        ),
        (
            "files/restop-dashboard.json",
            "assets/grafana/restop-dashboard.json",
        ),
        (
            "files/restop-fleet-rules.yml",
            "assets/prometheus/restop-fleet-rules.yml",
        ),
    ] {
        let asset_text = std::fs::read_to_string(root().join(asset)).ok();
        let copy_text = std::fs::read_to_string(chart().join(copy)).ok();
        assert!(
            asset_text == copy_text,
            "deploy/helm/restop/{copy} differs from {asset}: run scripts/sync-chart-files.sh"
        );
    }
}

#[test]
fn helm_lint_passes_and_every_value_set_validates_against_the_kubernetes_schemas() {
    if !tools(&["helm", "kubernetes-validate"]) {
        return;
    }
    run(Command::new("helm").args(["lint", "--strict"]).arg(chart()));
    let dir = tempfile::tempdir().unwrap();
    for (i, sets) in VALUE_SETS.iter().enumerate() {
        let file = dir.path().join(format!("values-{i}.yaml"));
        std::fs::write(&file, template(sets)).unwrap();
        for version in [None, Some("1.27.0")] {
            let mut cmd = Command::new("kubernetes-validate");
            cmd.arg("--strict").arg("--quiet");
            if let Some(v) = version {
                cmd.arg("-k").arg(v);
            }
            let out = run(cmd.arg(&file));
            for line in out.lines() {
                assert!(
                    ["PrometheusRule", "ServiceMonitor", "PodMonitor"]
                        .iter()
                        .any(|k| line.contains(&format!("Couldn't find schema for kind {k}"))),
                    "{sets:?} ({version:?}): {line}"
                );
            }
        }
    }
}

/// The parts of a rendered object the two ways of installing must agree on.
fn spec_of<'a>(docs: &'a [Value], kind: &str) -> &'a Value {
    &find(docs, kind)["spec"]
}

#[test]
fn the_chart_renders_what_the_kustomize_overlays_render() {
    if !tools(&["helm", "kubectl"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pairs: [(&str, &[&str]); 4] = [
        ("base", &[]),
        ("host-network", &["hostNetwork=true"]),
        (
            "rdma-device-plugin",
            &["rdmaResource=rdma/rdma_shared_device_a"],
        ),
        ("network-policy", &["networkPolicy.enabled=true"]),
    ];
    for (overlay, sets) in pairs {
        let kustomized = documents(&render(overlay), dir.path());
        let charted = documents(&template(sets), dir.path());
        let (k, c) = (find(&kustomized, "DaemonSet"), find(&charted, "DaemonSet"));
        assert_eq!(k["metadata"]["name"], c["metadata"]["name"]);
        assert_eq!(
            k["spec"]["template"]["spec"], c["spec"]["template"]["spec"],
            "{overlay}: the DaemonSet's pod spec"
        );
        for part in ["selector", "updateStrategy"] {
            assert_eq!(k["spec"][part], c["spec"][part], "{overlay}: {part}");
        }
        assert_eq!(
            k["spec"]["template"]["metadata"]["labels"],
            c["spec"]["template"]["metadata"]["labels"]
        );
        assert_eq!(
            spec_of(&kustomized, "Service"),
            spec_of(&charted, "Service")
        );
        let (ks, cs) = (
            find(&kustomized, "ServiceAccount"),
            find(&charted, "ServiceAccount"),
        );
        assert_eq!(ks["metadata"]["name"], cs["metadata"]["name"]);
        assert_eq!(ks["automountServiceAccountToken"], false);
        assert_eq!(cs["automountServiceAccountToken"], false);
        if overlay == "network-policy" {
            let (k, c) = (
                spec_of(&kustomized, "NetworkPolicy"),
                spec_of(&charted, "NetworkPolicy"),
            );
            assert_eq!(k, c, "the NetworkPolicy");
        }
    }
    // The Operator overlay: the same scrape, plus the namespace it is limited to.
    let kustomized = documents(&render("prometheus-operator"), dir.path());
    let charted = documents(
        &template(&[
            "serviceMonitor.enabled=true",
            "prometheusRule.enabled=true",
            // The kustomize PrometheusRule carries the alerting rules only.
            "prometheusRule.fleetRecordingRules=false",
        ]),
        dir.path(),
    );
    let mut chart_sm = spec_of(&charted, "ServiceMonitor").clone();
    assert_eq!(
        chart_sm["namespaceSelector"],
        serde_json::json!({"matchNames": ["restop"]})
    );
    chart_sm
        .as_object_mut()
        .unwrap()
        .remove("namespaceSelector");
    assert_eq!(spec_of(&kustomized, "ServiceMonitor"), &chart_sm);
    assert_eq!(
        spec_of(&kustomized, "PrometheusRule"),
        spec_of(&charted, "PrometheusRule"),
        "the chart's rules are the kustomize PrometheusRule's"
    );
}

#[test]
fn the_chart_carries_selector_labels_rules_and_the_dashboard() {
    if !tools(&["helm"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(&template(VALUE_SETS[1]), dir.path());
    for kind in ["ServiceMonitor", "PrometheusRule"] {
        assert_eq!(
            find(&docs, kind)["metadata"]["labels"]["release"],
            "kube-prometheus-stack",
            "{kind}: additionalLabels"
        );
    }
    let dashboard = docs
        .iter()
        .find(|d| d["kind"] == "ConfigMap")
        .expect("the dashboard ConfigMap");
    assert_eq!(dashboard["metadata"]["labels"]["grafana_dashboard"], "1");
    let json: Value =
        serde_json::from_str(dashboard["data"]["restop-dashboard.json"].as_str().unwrap()).unwrap();
    let asset: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("assets/grafana/restop-dashboard.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json, asset);
    // A digest pins the image.
    let pinned = documents(&template(VALUE_SETS[3]), dir.path());
    let image = find(&pinned, "DaemonSet")["spec"]["template"]["spec"]["containers"][0]["image"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        image.starts_with("ghcr.io/restop/restop@sha256:"),
        "{image}"
    );
}

#[test]
fn the_exporter_down_alert_fires_under_the_charts_monitors() {
    if !tools(&["helm"]) {
        return;
    }
    let Some(promtool) = on_path("promtool") else {
        println!("skipped: promtool not installed");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The default name, and another one: the rules follow the job the monitors give.
    for name in [None, Some("rdmatop")] {
        let mut sets = vec![
            "serviceMonitor.enabled=true",
            "podMonitor.enabled=true",
            "prometheusRule.enabled=true",
        ];
        let name_set = name.map(|n| format!("nameOverride={n}"));
        if let Some(set) = &name_set {
            sets.push(set);
        }
        let docs = documents(&template(&sets), dir.path());
        let rule = find(&docs, "PrometheusRule");
        let rules = dir.path().join("chart-rules.json");
        std::fs::write(&rules, serde_json::to_string(&rule["spec"]).unwrap()).unwrap();
        run(Command::new(&promtool)
            .arg("check")
            .arg("rules")
            .arg(&rules));

        let svc = find(&docs, "Service");
        let sm = find(&docs, "ServiceMonitor");
        let sm_job = operator_job(sm, svc, svc["metadata"]["name"].to_string());
        let pm = find(&docs, "PodMonitor");
        let pod = &find(&docs, "DaemonSet")["spec"]["template"];
        let pm_job = operator_job(
            pm,
            pod,
            format!("restop/{}", pm["metadata"]["name"].as_str().unwrap()),
        );
        assert_eq!(sm_job, name.unwrap_or("restop"));
        for job in [sm_job, pm_job] {
            assert_exporter_down_fires(&promtool, &rules, &job, dir.path());
        }
    }
}

#[test]
fn the_fleet_recording_rules_are_added_when_the_chart_carries_them() {
    if !tools(&["helm"]) {
        return;
    }
    let fleet = chart().join("files/restop-fleet-rules.yml");
    let dir = tempfile::tempdir().unwrap();
    let groups = |sets: &[&str]| -> usize {
        let docs = documents(&template(sets), dir.path());
        find(&docs, "PrometheusRule")["spec"]["groups"]
            .as_array()
            .unwrap()
            .len()
    };
    let without = groups(&[
        "prometheusRule.enabled=true",
        "prometheusRule.fleetRecordingRules=false",
    ]);
    let with = groups(&["prometheusRule.enabled=true"]);
    if fleet.exists() {
        assert!(
            with > without,
            "{with} groups with the fleet rules, {without} without"
        );
    } else {
        println!("no files/restop-fleet-rules.yml: the switch adds nothing");
        assert_eq!(with, without);
    }
}
