//! NIC counters in the outputs: the `--json` port keys (the contract of
//! docs/json.md), the `--once` COUNTERS section, and the exporter families,
//! over the simulated host (mlx5 names, a storm on mlx5_1, a flap on mlx5_0).

use crate::vm_support::schema;
use restop::demo::DemoSource;
use restop::export::collector::Collector;
use restop::model::Snapshot;
use restop::model::filter::Filter;
use restop::output::{OnceOptions, render_json, render_once};
use restop::session::{Pacer, Session};
use restop::source::{CollectRequest, Source};
use serde_json::Value;
use std::time::Duration;

fn demo(n: usize) -> Vec<Snapshot> {
    let mut d = DemoSource::new(1, Duration::from_secs(2));
    (0..n)
        .map(|_| d.collect(&CollectRequest::default()).unwrap())
        .collect()
}

fn port(doc: &Value, device: &str) -> Value {
    doc["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == device)
        .unwrap()["ports"][0]
        .clone()
}

#[test]
fn every_port_has_every_counter_key_and_a_first_read_has_no_rates() {
    let first = serde_json::to_value(render_json(&demo(1)[0], &Filter::default())).unwrap();
    for d in first["devices"].as_array().unwrap() {
        for p in d["ports"].as_array().unwrap() {
            for key in schema::PORT {
                assert!(p.get(*key).is_some(), "{} port: no {key}", d["name"]);
            }
            assert!(p["rates"].is_null() && p["throughput"].is_null());
            assert_eq!(p["counters_source"], "demo");
            assert!(p["counters"]["out_of_sequence"].is_u64());
            assert!(p["sysfs_counters"]["port_xmit_data"].is_u64());
        }
    }
}

#[test]
fn rates_are_per_second_and_throughput_converts_words_to_bytes() {
    let s = demo(2);
    let doc = serde_json::to_value(render_json(&s[1], &Filter::default())).unwrap();
    let p = port(&doc, "mlx5_0");
    assert_eq!(p["rates_interval_s"], 2.0);
    let words = p["sysfs_rates"]["port_xmit_data"].as_f64().unwrap();
    let bytes = p["throughput"]["tx_bytes_per_s"].as_f64().unwrap();
    assert!((bytes - 4.0 * words).abs() < 1e-3, "{bytes} vs {words}");
    let u = p["throughput"]["utilisation"].as_f64().unwrap();
    assert!(
        (u - bytes.max(p["throughput"]["rx_bytes_per_s"].as_f64().unwrap()) * 8.0 / 200e9).abs()
            < 1e-9
    );
    assert!(u > 0.2 && u < 0.8, "{u}");
}

#[test]
fn the_storm_port_names_its_moving_counters_and_healthy_ports_none() {
    // 20 s in the storm on mlx5_1 has started.
    let s = demo(13);
    let doc = serde_json::to_value(render_json(&s[12], &Filter::default())).unwrap();
    let storm = port(&doc, "mlx5_1");
    let health: Vec<&str> = storm["health"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for name in ["np_cnp_sent", "out_of_sequence", "rp_cnp_handled"] {
        assert!(health.contains(&name), "{health:?}");
    }
    assert_eq!(storm["rates"]["out_of_sequence"], 180.0);
    assert_eq!(port(&doc, "mlx5_2")["health"], serde_json::json!([]));
}

#[test]
fn the_once_report_lists_counters_with_totals_and_rates_when_known() {
    let s = demo(13);
    let all = OnceOptions {
        all_counters: true,
        ..OnceOptions::default()
    };
    let first = render_once(&s[0], &Filter::default(), &all);
    let section = &first[first.find("COUNTERS\n").expect("COUNTERS section")..];
    assert!(
        section.contains("mlx5_0 port 1 (demo)  link 200 Gb/sec (4X HDR)"),
        "{section}"
    );
    assert!(!section.contains("rates over"));
    let later = render_once(&s[12], &Filter::default(), &all);
    let section = &later[later.find("COUNTERS\n").unwrap()..];
    assert!(section.contains("rates over 2.0 s"), "{section}");
    assert!(
        section.contains("moved: np_cnp_sent, np_ecn_marked_roce_packets, out_of_sequence"),
        "{section}"
    );
    assert!(section.contains("no error or congestion counter moved"));
    for line in later.lines() {
        assert!(line.chars().count() <= 80, "too wide: {line}");
    }
}

#[test]
fn the_once_summary_is_one_line_per_port_with_decimal_rates() {
    let s = demo(13);
    let first = render_once(&s[0], &Filter::default(), &OnceOptions::default());
    let section = &first[first.find("COUNTERS (one line per port").expect("summary")..];
    assert!(section.contains("\n  mlx5_0/1 ACTIVE  sent "), "{section}");
    assert!(section.contains("  errors "), "{section}");
    let later = render_once(&s[12], &Filter::default(), &OnceOptions::default());
    let section = &later[later.find("COUNTERS (one line per port").unwrap()..];
    let mlx5_0 = section
        .lines()
        .find(|l| l.starts_with("  mlx5_0/1"))
        .unwrap();
    assert!(mlx5_0.contains(" GB/s rx "), "decimal bytes/s: {mlx5_0}");
    assert!(!mlx5_0.contains("moved"), "{mlx5_0}");
    assert!(section.contains("out_of_sequence +360"), "{section}");
    for line in later.lines() {
        assert!(line.chars().count() <= 80, "too wide: {line}");
    }
}

#[test]
fn the_exporter_writes_raw_counters_conventional_names_and_the_link_rate() {
    let demo = DemoSource::new(1, Duration::from_secs(2));
    let mut session = Session::new(Box::new(demo), Pacer::unpaced());
    let mut collector = Collector::new(session.kind(), 20);
    let text = String::from_utf8(collector.render(session.next_tick()).text).unwrap();
    for needle in [
        "# TYPE restop_port_hw_stat_total counter",
        "restop_port_hw_stat_total{device=\"mlx5_1\",port=\"1\",counter=\"np_cnp_sent\"} ",
        "restop_port_pma_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"port_xmit_data\"} ",
        "# TYPE restop_port_transmit_bytes_total counter",
        "restop_port_link_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 25000000000",
    ] {
        assert!(text.contains(needle), "no {needle}");
    }
    let value = |prefix: &str| -> f64 {
        let line = text.lines().find(|l| l.starts_with(prefix)).unwrap();
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let words = value(
        "restop_port_pma_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"port_xmit_data\"}",
    );
    let bytes = value("restop_port_transmit_bytes_total{device=\"mlx5_0\",port=\"1\"}");
    assert_eq!(bytes, words * 4.0);
}
