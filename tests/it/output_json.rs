//! The `--json` document: golden output on the fixture, and its shape
//! checked against the schema in docs/json.md.

use crate::vm_support::schema;
use restop::model::filter::Filter;
use restop::output::render_json;
use serde_json::Value;

fn document(filter: &Filter) -> Value {
    serde_json::to_value(render_json(&crate::common::fixture(), filter)).unwrap()
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

fn sorted(list: &[&'static str]) -> Vec<&'static str> {
    let mut v = list.to_vec();
    v.sort_unstable();
    v
}

#[test]
fn full_document() {
    let doc = render_json(&crate::common::fixture(), &Filter::default());
    insta::assert_snapshot!(serde_json::to_string_pretty(&doc).unwrap());
}

#[test]
fn top_level_and_meta_keys_match_the_schema() {
    let doc = document(&Filter::default());
    assert_eq!(
        keys(&doc),
        sorted(&[
            "schema_version",
            "meta",
            "problems",
            "devices",
            "processes",
            "kernel",
            "unattributed",
            "error_qps"
        ])
    );
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(
        keys(&doc["meta"]),
        sorted(&[
            "source",
            "restop_version",
            "host",
            "kernel",
            "collected_at",
            "collected_at_ms",
            "collect_ms",
            "netns_mode",
            "hidden_fields",
            "warnings"
        ])
    );
    assert_eq!(doc["meta"]["source"], "live");
    assert_eq!(doc["meta"]["restop_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(doc["meta"]["collected_at"], "2026-11-29T17:00:00.123Z");
    assert_eq!(doc["meta"]["collect_ms"], 12.5);
    assert_eq!(keys(&doc["meta"]["warnings"][0]), ["kind", "message"]);
    assert_eq!(doc["meta"]["warnings"][0]["kind"], "permission");
}

#[test]
fn device_keys_match_the_schema() {
    let doc = document(&Filter::default());
    let dev = &doc["devices"][0];
    assert_eq!(keys(dev), sorted(schema::DEVICE));
    assert_eq!(keys(&dev["ports"][0]), sorted(schema::PORT));
    assert_eq!(dev["ports"][0]["state"], "ACTIVE");
    assert_eq!(dev["ports"][0]["phys_state"], "LINK_UP");
    assert_eq!(
        keys(&dev["usage"]["qp"]),
        sorted(&["current", "max", "ratio", "max_source", "level"])
    );
    assert_eq!(dev["usage"]["qp"]["ratio"], 1024.0 / 131072.0);
    assert_eq!(dev["usage"]["cm_id"]["max"], Value::Null);
    assert_eq!(dev["node_guid"], "0c42:a103:0012:3456");
    // A type missing from the kernel's summary is omitted, not zero.
    let rxe = &doc["devices"][2];
    assert_eq!(rxe["name"], "rxe0");
    assert!(rxe["usage"].get("srq").is_none());
    assert_eq!(rxe["object_errors"][0]["type"], "srq");
}

#[test]
fn vfs_follow_their_pf_and_name_it() {
    let doc = document(&Filter::default());
    let names: Vec<&str> = doc["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mlx5_0", "mlx5_1", "rxe0"]);
    assert_eq!(doc["devices"][1]["pf"], "mlx5_0");
    assert_eq!(doc["devices"][0]["pf"], Value::Null);
}

#[test]
fn process_keys_match_the_schema() {
    let doc = document(&Filter::default());
    let p = &doc["processes"][0];
    assert_eq!(
        keys(p),
        sorted(&[
            "pid",
            "start_time",
            "started_at",
            "comm",
            "name",
            "cmdline",
            "uid",
            "user",
            "container",
            "threads",
            "counts",
            "mr_bytes",
            "qp_states",
            "devices",
            "share",
            "rdma_cgroup"
        ])
    );
    assert_eq!(p["pid"], 4242);
    assert_eq!(p["name"], "train.py");
    assert_eq!(p["comm"], "pt_main_thread");
    assert_eq!(
        keys(&p["container"]),
        sorted(&["runtime", "id", "pod", "kubernetes"])
    );
    assert_eq!(p["container"]["pod"], Value::Null);
    assert_eq!(
        p["threads"][0],
        serde_json::json!({"tid": 4250, "comm": "pt_nccl_0"})
    );
    assert_eq!(
        keys(&p["counts"]),
        sorted(&["qp", "cq", "mr", "pd", "cm_id", "ctx", "srq"])
    );
    assert_eq!(
        p["qp_states"],
        serde_json::json!({"RTS": 997, "SQE": 1, "ERR": 2})
    );
    assert_eq!(p["started_at"], "2026-11-29T16:33:20Z");
}

#[test]
fn processes_are_listed_by_qp_count() {
    let doc = document(&Filter::default());
    let qps: Vec<u64> = doc["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["counts"]["qp"].as_u64().unwrap())
        .collect();
    assert_eq!(qps, [1000, 16, 4, 1]);
}

#[test]
fn a_process_procfs_could_not_read_is_still_listed() {
    let doc = document(&Filter::default());
    let ghost = &doc["processes"][3];
    assert_eq!(ghost["pid"], 8888);
    assert_eq!(ghost["start_time"], 99_000);
    assert_eq!(ghost["name"], "pid 8888");
    assert_eq!(ghost["user"], Value::Null);
    assert_eq!(ghost["cmdline"], serde_json::json!([]));
}

#[test]
fn kernel_owners_and_the_unattributed_bucket() {
    let doc = document(&Filter::default());
    let ib_core = &doc["kernel"][0];
    assert_eq!(
        keys(ib_core),
        sorted(&["name", "counts", "mr_bytes", "qp_states", "devices"])
    );
    assert_eq!(ib_core["name"], "ib_core");
    assert_eq!(
        ib_core["devices"],
        serde_json::json!(["mlx5_0", "mlx5_1", "rxe0"])
    );
    let un = &doc["unattributed"];
    assert_eq!(
        keys(un),
        sorted(&["counts", "mr_bytes", "qp_states", "devices"])
    );
    assert_eq!(un["counts"]["qp"], 10);
    assert_eq!(un["mr_bytes"], 96 * 1024 * 1024 + 6 * 4096);
}

#[test]
fn error_qp_keys_match_the_schema() {
    let doc = document(&Filter::default());
    let e = &doc["error_qps"][0];
    assert_eq!(
        keys(e),
        sorted(&[
            "device", "port", "lqpn", "rqpn", "type", "state", "pid", "comm", "owner"
        ])
    );
    assert_eq!(
        *e,
        serde_json::json!({"device": "mlx5_0", "port": 1, "lqpn": 4690, "rqpn": 9001, "type": "RC",
            "state": "ERR", "pid": 4242, "comm": "pt_main_thread", "owner": "train.py"})
    );
    let last = &doc["error_qps"][4];
    assert_eq!(last["owner"], "(unattributed)");
    assert_eq!(last["pid"], Value::Null);
    assert_eq!(last["comm"], Value::Null);
    assert_eq!(last["port"], Value::Null);
}

#[test]
fn an_unknown_device_is_a_warning() {
    let doc = document(&Filter {
        device: Some("mlx5_9".into()),
        ..Filter::default()
    });
    assert_eq!(
        doc["meta"]["warnings"][1],
        serde_json::json!({"kind": "other", "message": "no device named mlx5_9 (have: mlx5_0, mlx5_1, rxe0)"})
    );
    assert_eq!(doc["devices"], serde_json::json!([]));
}
