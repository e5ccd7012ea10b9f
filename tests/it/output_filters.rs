//! `--dev`, `--pid`, `--type` and `--state` change exactly what they should,
//! in the JSON document and in the `--once` report alike.

use restop::model::filter::Filter;
use restop::model::{QpState, ResourceType};
use restop::output::{OnceOptions, render_json, render_once};
use serde_json::{Value, json};

fn document(filter: &Filter) -> Value {
    serde_json::to_value(render_json(&crate::common::fixture(), filter)).unwrap()
}

fn report(filter: &Filter) -> String {
    render_once(&crate::common::fixture(), filter, &OnceOptions::default())
}

fn names(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v[field].to_string().trim_matches('"').to_string())
        .collect()
}

/// The parts of the document a filter must leave alone.
fn assert_same_meta(filtered: &Value, unfiltered: &Value) {
    assert_eq!(filtered["meta"]["host"], unfiltered["meta"]["host"]);
    assert_eq!(
        filtered["meta"]["collected_at_ms"],
        unfiltered["meta"]["collected_at_ms"]
    );
    assert_eq!(filtered["meta"]["warnings"], unfiltered["meta"]["warnings"]);
}

#[test]
fn dev_restricts_devices_owners_and_error_qps_to_that_device() {
    let all = document(&Filter::default());
    let doc = document(&Filter {
        device: Some("mlx5_1".into()),
        ..Filter::default()
    });
    assert_same_meta(&doc, &all);
    assert_eq!(names(&doc["devices"], "name"), ["mlx5_1"]);
    assert_eq!(doc["devices"][0], all["devices"][1]);
    assert_eq!(names(&doc["processes"], "pid"), ["5151", "8888"]);
    // ib_core is counted over mlx5_1 only.
    assert_eq!(names(&doc["kernel"], "name"), ["ib_core"]);
    assert_eq!(doc["kernel"][0]["counts"]["qp"], 1);
    assert_eq!(doc["kernel"][0]["devices"], json!(["mlx5_1"]));
    assert_eq!(doc["unattributed"]["counts"]["qp"], 0);
    assert_eq!(doc["unattributed"]["devices"], json!([]));
    assert_eq!(names(&doc["error_qps"], "lqpn"), ["301"]);
}

#[test]
fn pid_restricts_owners_and_error_qps_but_not_devices() {
    let all = document(&Filter::default());
    let doc = document(&Filter {
        pid: Some(4242),
        ..Filter::default()
    });
    assert_same_meta(&doc, &all);
    assert_eq!(doc["devices"], all["devices"]);
    assert_eq!(names(&doc["processes"], "pid"), ["4242"]);
    assert_eq!(doc["processes"][0], all["processes"][0]);
    assert_eq!(doc["kernel"], json!([]));
    assert_eq!(doc["unattributed"]["counts"]["mr"], 0);
    assert_eq!(names(&doc["error_qps"], "lqpn"), ["4690", "4711", "4712"]);
}

#[test]
fn a_thread_id_as_pid_selects_its_process() {
    let by_pid = document(&Filter {
        pid: Some(4242),
        ..Filter::default()
    });
    let by_tid = document(&Filter {
        pid: Some(4250),
        ..Filter::default()
    });
    assert_eq!(by_tid, by_pid);
}

#[test]
fn an_unknown_pid_selects_no_owner() {
    let doc = document(&Filter {
        pid: Some(1),
        ..Filter::default()
    });
    assert_eq!(doc["processes"], json!([]));
    assert_eq!(doc["error_qps"], json!([]));
    assert_eq!(doc["devices"].as_array().unwrap().len(), 3);
}

#[test]
fn type_drops_owners_without_those_types_but_keeps_every_count_key() {
    let all = document(&Filter::default());
    let doc = document(&Filter {
        types: vec![ResourceType::CmId],
        ..Filter::default()
    });
    assert_eq!(doc["devices"], all["devices"], "usage keeps every type");
    assert_eq!(names(&doc["processes"], "pid"), ["777"]);
    assert_eq!(
        doc["processes"][0], all["processes"][1],
        "counts keep every type"
    );
    assert_eq!(names(&doc["kernel"], "name"), ["rdma_rxe"]);
    assert_eq!(doc["unattributed"]["counts"]["qp"], 0);
    assert_eq!(doc["error_qps"], json!([]), "no QPs were asked for");
}

#[test]
fn type_including_qp_keeps_error_qps() {
    let all = document(&Filter::default());
    let doc = document(&Filter {
        types: vec![ResourceType::Srq, ResourceType::Qp],
        ..Filter::default()
    });
    assert_eq!(doc["error_qps"], all["error_qps"]);
    assert_eq!(doc["processes"], all["processes"]);
}

#[test]
fn state_selects_owners_holding_qps_in_it_and_those_error_qps() {
    let all = document(&Filter::default());
    let doc = document(&Filter {
        state: Some(QpState::Sqe),
        ..Filter::default()
    });
    assert_eq!(doc["devices"], all["devices"]);
    assert_eq!(names(&doc["processes"], "pid"), ["4242"]);
    assert_eq!(doc["kernel"], json!([]));
    assert_eq!(doc["unattributed"]["counts"]["qp"], 0);
    assert_eq!(names(&doc["error_qps"], "lqpn"), ["4712"]);

    let rts = document(&Filter {
        state: Some(QpState::Rts),
        ..Filter::default()
    });
    assert_eq!(names(&rts["processes"], "pid"), ["4242", "777", "5151"]);
    assert_eq!(names(&rts["kernel"], "name"), ["ib_core"]);
    assert_eq!(rts["unattributed"]["counts"]["qp"], 10);
    assert_eq!(rts["error_qps"], json!([]));
}

#[test]
fn report_dev_shows_only_that_device() {
    let text = report(&Filter {
        device: Some("rxe0".into()),
        ..Filter::default()
    });
    assert!(text.contains("3: rxe0: "));
    assert!(!text.contains("mlx5_0"));
    assert!(!text.contains("train.py"));
    assert!(text.contains("[rdma_rxe]"));
    assert!(text.contains("(unattributed)"));
}

#[test]
fn report_type_shows_only_those_columns_and_usage() {
    let text = report(&Filter {
        types: vec![ResourceType::Qp],
        ..Filter::default()
    });
    assert!(text.contains("0: mlx5_0: qp 1024/131072 (0.8%)\n"));
    assert!(
        text.contains(" PID USER  NAME             QP ERR\n"),
        "{text}"
    );
    assert!(!text.contains("MR-BYTES"));
    assert!(!text.contains("[rdma_rxe]"), "holds no QP");
    assert!(text.contains("ERROR QPs (5)"));
}

#[test]
fn report_without_qps_has_no_error_qp_section() {
    let text = report(&Filter {
        types: vec![ResourceType::Mr],
        ..Filter::default()
    });
    assert!(!text.contains("ERROR QPs"));
    assert!(!text.contains(" ERR"));
}

#[test]
fn report_pid_keeps_every_device() {
    let text = report(&Filter {
        pid: Some(5151),
        ..Filter::default()
    });
    assert!(text.contains("DEVICES (3)"));
    assert!(text.contains("5151 root ib_write_bw"), "{text}");
    assert!(!text.contains("train.py"));
    assert!(text.contains("ERROR QPs (1)"));
}
