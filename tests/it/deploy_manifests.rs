//! The Kubernetes manifests: every kustomization renders (`kubectl kustomize`), the
//! result validates offline against the Kubernetes schemas (PyPI `kubernetes-validate`,
//! strict), the DaemonSet asks for exactly the privileges docs/kubernetes.md explains, and
//! the PrometheusRule is the alerting rules of assets/ (generated, never edited by hand).
//! Skipped with a notice where kubectl or kubernetes-validate is missing (tests/run-all.sh
//! installs them).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const KUSTOMIZATIONS: [&str; 5] = [
    "base",
    "prometheus-operator",
    "host-network",
    "rdma-device-plugin",
    "network-policy",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn on_path(tool: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

pub(crate) fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub(crate) fn render(kustomization: &str) -> String {
    run(Command::new("kubectl")
        .arg("kustomize")
        .arg(root().join("deploy/kubernetes").join(kustomization)))
}

/// The documents of a YAML stream, as JSON (PyYAML comes with kubernetes-validate).
pub(crate) fn documents(yaml: &str, dir: &Path) -> Vec<Value> {
    let file = dir.join("stream.yaml");
    std::fs::write(&file, yaml).unwrap();
    let json = run(Command::new("python3").arg("-c").arg(
        "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))",
    ).arg(&file));
    serde_json::from_str(&json).unwrap()
}

fn tools() -> bool {
    for tool in ["kubectl", "kubernetes-validate"] {
        if on_path(tool).is_none() {
            println!("skipped: {tool} not installed (tests/run-all.sh installs it)");
            return false;
        }
    }
    true
}

#[test]
fn the_prometheusrule_is_generated_from_the_alerting_rules() {
    let generated = run(&mut Command::new(
        root().join("scripts/gen-prometheusrule.sh"),
    ));
    let committed = std::fs::read_to_string(
        root().join("deploy/kubernetes/prometheus-operator/prometheusrule.yaml"),
    )
    .unwrap();
    assert!(
        generated == committed,
        "deploy/kubernetes/prometheus-operator/prometheusrule.yaml differs from \
         assets/prometheus/restop-rules.yml: run scripts/gen-prometheusrule.sh > that file"
    );
}

#[test]
fn every_kustomization_renders_and_validates_against_the_kubernetes_schemas() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for k in KUSTOMIZATIONS {
        let file = dir.path().join(format!("{k}.yaml"));
        std::fs::write(&file, render(k)).unwrap();
        // The newest schemas the validator has, and an old cluster still in service.
        for version in [None, Some("1.27.0")] {
            let mut cmd = Command::new("kubernetes-validate");
            cmd.arg("--strict").arg("--quiet");
            if let Some(v) = version {
                cmd.arg("-k").arg(v);
            }
            let out = run(cmd.arg(&file));
            // Custom resources have no schema there; everything else must pass.
            for line in out.lines() {
                assert!(
                    line.contains("Couldn't find schema for kind PrometheusRule")
                        || line.contains("Couldn't find schema for kind ServiceMonitor"),
                    "{k} ({version:?}): {line}"
                );
            }
        }
    }
}

#[test]
fn the_daemonset_asks_only_for_what_docs_explain() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(&render("base"), dir.path());
    let ds = docs
        .iter()
        .find(|d| d["kind"] == "DaemonSet")
        .expect("a DaemonSet");
    let pod = &ds["spec"]["template"]["spec"];
    assert_eq!(pod["hostPID"], true);
    assert!(
        pod.get("hostNetwork").is_none(),
        "the base listens on the pod IP"
    );
    assert_eq!(pod["automountServiceAccountToken"], false);
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    let tolerations: Vec<&str> = pod["tolerations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["key"].as_str())
        .collect();
    assert!(tolerations.contains(&"nvidia.com/gpu"), "{tolerations:?}");
    // Scheduled only on RDMA nodes, by Node Feature Discovery's labels.
    let terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        ["nodeSelectorTerms"]
        .as_array()
        .expect("a required node affinity");
    let keys: Vec<&str> = terms
        .iter()
        .flat_map(|t| t["matchExpressions"].as_array().unwrap())
        .filter_map(|e| e["key"].as_str())
        .collect();
    assert!(
        keys.contains(&"feature.node.kubernetes.io/rdma.capable"),
        "{keys:?}"
    );

    let c = &pod["containers"][0];
    let sc = &c["securityContext"];
    assert_eq!(sc["readOnlyRootFilesystem"], true);
    assert_eq!(sc["allowPrivilegeEscalation"], false);
    assert_eq!(sc["privileged"], false);
    assert_eq!(sc["capabilities"]["drop"], serde_json::json!(["ALL"]));
    assert!(sc["capabilities"].get("add").is_none());
    for kind in ["requests", "limits"] {
        for r in ["cpu", "memory"] {
            assert!(c["resources"][kind][r].is_string(), "{kind}.{r}");
        }
    }
    let args: Vec<&str> = c["args"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    // Every interface of the pod's own network namespace (port-forward works),
    // named by the environment as in the image; no --listen argument overrides it.
    assert!(!args.iter().any(|a| a.starts_with("--listen")), "{args:?}");
    let listen = c["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "RESTOP_LISTEN")
        .expect("RESTOP_LISTEN");
    assert_eq!(listen["value"], "0.0.0.0:9879");
    let image_build = std::fs::read_to_string(root().join("scripts/image-build.sh")).unwrap();
    assert!(image_build.contains("--env RESTOP_LISTEN=0.0.0.0:9879"));
    // Every host path is mounted read-only, and only those docs/kubernetes.md names.
    let mut mounted: Vec<(String, String)> = Vec::new();
    for m in c["volumeMounts"].as_array().unwrap() {
        assert_eq!(m["readOnly"], true, "{m}");
        let volume = pod["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == m["name"])
            .unwrap();
        mounted.push((
            volume["hostPath"]["path"].as_str().unwrap().to_string(),
            m["mountPath"].as_str().unwrap().to_string(),
        ));
    }
    mounted.sort();
    let expected: Vec<(String, String)> = ["/proc", "/sys", "/var/log/containers", "/var/log/pods"]
        .iter()
        .map(|p| (p.to_string(), format!("/host{p}")))
        .collect();
    assert_eq!(mounted, expected);
    let docs_text = std::fs::read_to_string(root().join("docs/kubernetes.md")).unwrap();
    for privilege in [
        "hostPID",
        "/proc",
        "/sys",
        "/var/log/pods",
        "/var/log/containers",
        "readOnlyRootFilesystem",
        "drop: [ALL]",
        "RESTOP_LISTEN",
        "feature.node.kubernetes.io/rdma.capable",
    ] {
        assert!(
            docs_text.contains(privilege),
            "docs/kubernetes.md does not explain {privilege}"
        );
    }
}

#[test]
fn the_operator_resources_scrape_the_exporter_and_carry_valid_rules() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(&render("prometheus-operator"), dir.path());
    let sm = docs
        .iter()
        .find(|d| d["kind"] == "ServiceMonitor")
        .expect("a ServiceMonitor");
    let svc = docs.iter().find(|d| d["kind"] == "Service").unwrap();
    for (k, v) in sm["spec"]["selector"]["matchLabels"].as_object().unwrap() {
        assert_eq!(&svc["metadata"]["labels"][k], v, "selector {k}");
    }
    assert_eq!(
        sm["spec"]["endpoints"][0]["port"],
        svc["spec"]["ports"][0]["name"]
    );

    let rule = docs
        .iter()
        .find(|d| d["kind"] == "PrometheusRule")
        .expect("a PrometheusRule");
    assert_eq!(rule["metadata"]["namespace"], "restop");
    let Some(promtool) = on_path("promtool") else {
        println!("skipped the rules check: promtool not installed");
        return;
    };
    let rules = dir.path().join("rules.json");
    std::fs::write(&rules, serde_json::to_string(&rule["spec"]).unwrap()).unwrap();
    run(Command::new(promtool).arg("check").arg("rules").arg(&rules));
}

/// The job label the Prometheus Operator gives a monitor's targets: with
/// `spec.jobLabel`, the value of that label on the scraped object (the Service
/// for a ServiceMonitor, the pod for a PodMonitor); without it, the Service's
/// name, or `<namespace>/<PodMonitor name>`.
pub(crate) fn operator_job(monitor: &Value, scraped: &Value, default: String) -> String {
    match monitor["spec"]["jobLabel"].as_str() {
        Some(label) => scraped["metadata"]["labels"][label]
            .as_str()
            .unwrap_or_else(|| panic!("jobLabel {label} is not a label of the scraped object"))
            .to_string(),
        None => default,
    }
}

/// `promtool test rules` that RestopExporterDown of `rules` fires for a target
/// of `job` that cannot be scraped.
pub(crate) fn assert_exporter_down_fires(promtool: &Path, rules: &Path, job: &str, dir: &Path) {
    let test = dir.join(format!("exporter-down-{}.test.yml", job.replace('/', "_")));
    let text = format!(
        r#"rule_files: [{rules:?}]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'up{{instance="node-1",job="{job}"}}'
        values: '0x15'
    alert_rule_test:
      - eval_time: 10m
        alertname: RestopExporterDown
        exp_alerts:
          - exp_labels: {{severity: warning, instance: node-1, job: "{job}"}}
            exp_annotations:
              summary: "restop exporter on node-1 cannot be scraped"
              description: "Prometheus has failed to scrape restop on node-1 for 5 minutes: RDMA resources of that host are not monitored."
"#
    );
    std::fs::write(&test, text).unwrap();
    let out = Command::new(promtool)
        .arg("test")
        .arg("rules")
        .arg(&test)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "RestopExporterDown does not fire for job {job:?}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_exporter_down_alert_fires_under_the_shipped_servicemonitor() {
    if on_path("kubectl").is_none() {
        println!("skipped: kubectl not installed (tests/run-all.sh installs it)");
        return;
    }
    let Some(promtool) = on_path("promtool") else {
        println!("skipped: promtool not installed");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(&render("prometheus-operator"), dir.path());
    let sm = docs.iter().find(|d| d["kind"] == "ServiceMonitor").unwrap();
    let svc = docs.iter().find(|d| d["kind"] == "Service").unwrap();
    let job = operator_job(
        sm,
        svc,
        svc["metadata"]["name"].as_str().unwrap().to_string(),
    );
    let rule = docs.iter().find(|d| d["kind"] == "PrometheusRule").unwrap();
    let rules = dir.path().join("rules.json");
    std::fs::write(&rules, serde_json::to_string(&rule["spec"]).unwrap()).unwrap();
    assert_exporter_down_fires(&promtool, &rules, &job, dir.path());
}

#[test]
fn the_exporter_down_alert_fires_under_the_documented_static_scrape_configs() {
    let Some(promtool) = on_path("promtool") else {
        println!("skipped: promtool not installed");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let rules = root().join("assets/prometheus/restop-rules.yml");
    // The example configuration, as Prometheus reads it, and the one in the docs.
    run(Command::new(&promtool)
        .arg("check")
        .arg("config")
        .arg(root().join("deploy/prometheus/static.yml")));
    let mut jobs = Vec::new();
    for file in ["deploy/prometheus/static.yml", "docs/kubernetes.md"] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let found: Vec<String> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- job_name:"))
            .map(|j| j.trim().to_string())
            .collect();
        assert!(!found.is_empty(), "{file} has no job_name");
        jobs.extend(found);
    }
    for job in jobs {
        assert_exporter_down_fires(&promtool, &rules, &job, dir.path());
    }
}

#[test]
fn the_device_plugin_overlay_gives_the_exporter_the_uverbs_devices() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(&render("rdma-device-plugin"), dir.path());
    let ds = docs.iter().find(|d| d["kind"] == "DaemonSet").unwrap();
    let c = &ds["spec"]["template"]["spec"]["containers"][0];
    for kind in ["requests", "limits"] {
        assert_eq!(
            c["resources"][kind]["rdma/rdma_shared_device_a"], "1",
            "{kind}"
        );
    }
    // Still no privilege: the device comes from the plugin, not from privileged mode.
    assert_eq!(c["securityContext"]["privileged"], false);
    let docs_text = std::fs::read_to_string(root().join("docs/kubernetes.md")).unwrap();
    assert!(docs_text.contains("rdma-device-plugin"));
}

#[test]
fn the_network_policy_admits_only_prometheus_to_the_metrics_port() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(&render("network-policy"), dir.path());
    let policy = docs.iter().find(|d| d["kind"] == "NetworkPolicy").unwrap();
    let ds = docs.iter().find(|d| d["kind"] == "DaemonSet").unwrap();
    let pod_labels = &ds["spec"]["template"]["metadata"]["labels"];
    for (k, v) in policy["spec"]["podSelector"]["matchLabels"]
        .as_object()
        .unwrap()
    {
        assert_eq!(&pod_labels[k], v, "podSelector {k}");
    }
    let ingress = policy["spec"]["ingress"].as_array().unwrap();
    assert_eq!(ingress.len(), 1);
    assert_eq!(ingress[0]["ports"][0]["port"], "metrics");
    assert_eq!(
        ingress[0]["from"][0]["podSelector"]["matchLabels"]["app.kubernetes.io/name"],
        "prometheus"
    );
    assert_eq!(policy["spec"]["egress"], serde_json::json!([]));
}
