//! `PromSource` against a loopback server that answers like a Prometheus with or without the
//! fleet's recording rules (the real server is `tests/it/fleet_prometheus.rs`'s): which queries
//! a refresh sends in each case and the note that says the rules are missing or too old.

use super::PromSource;
use crate::fleet::http::{Client, HttpOptions};
use crate::fleet::source::FleetSource;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const EMPTY: &str = r#"{"status":"success","data":{"resultType":"vector","result":[]}}"#;
const ONE: &str = r#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1767225600,"19"]}]}}"#;

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// A server that answers the rules probe with `probe` and every other query with no series,
/// and keeps each query it was sent.
fn server(probe: &'static str) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let queries = Arc::new(Mutex::new(Vec::new()));
    let kept = queries.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming().take(32) {
            let Ok(mut conn) = conn else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(conn.try_clone().unwrap());
            let _ = reader.read_line(&mut line);
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) <= 2 {
                    break;
                }
            }
            let query = line
                .split_whitespace()
                .nth(1)
                .and_then(|target| target.split_once("query="))
                .map(|(_, q)| decode(q.split('&').next().unwrap_or("")))
                .unwrap_or_default();
            let body = if query.contains("restop:fleet_rules_version") {
                probe
            } else {
                EMPTY
            };
            kept.lock().unwrap().push(query);
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, queries)
}

fn source(port: u16, top: usize) -> PromSource {
    let client = Client::new(&HttpOptions {
        ca_file: None,
        bearer_token_file: None,
        basic: None,
        headers: Vec::new(),
        timeout: Duration::from_secs(5),
        max_bytes: 1 << 20,
    })
    .unwrap();
    PromSource::new(client, &format!("http://127.0.0.1:{port}"), "node", top)
}

#[test]
fn without_the_rules_the_queries_go_inline_and_a_note_says_so() {
    let (port, queries) = server(EMPTY);
    let reading = source(port, 10).read().unwrap();
    assert!(
        reading.notes.iter().any(|n| n.starts_with(
            "recording rules not loaded, or older than version 2 (assets/prometheus/restop-fleet-rules.yml)"
        )),
        "{:?}",
        reading.notes
    );
    let sent = queries.lock().unwrap().join("\n");
    assert!(
        sent.contains("topk by (type) (10, restop_process_resources{name!=\"other\"})"),
        "{sent}"
    );
    assert!(sent.contains("(restop_port_active == 0)"), "{sent}");
    assert!(!sent.contains(":top10"), "{sent}");
}

#[test]
fn with_the_rules_a_refresh_reads_recorded_series_only() {
    let (port, queries) = server(ONE);
    let mut source = source(port, 10);
    let reading = source.read().unwrap();
    assert!(reading.notes.is_empty(), "{:?}", reading.notes);
    source.read().unwrap();
    let sent = queries.lock().unwrap().clone();
    // The probe once, then three queries a refresh.
    assert_eq!(sent.len(), 7, "{sent:?}");
    let refresh = sent[1..].join("\n");
    assert!(
        refresh.contains("topk by (type) (10, restop:fleet_process_resources:top10)"),
        "{refresh}"
    );
    for raw in [
        "restop_process_resources",
        "restop_process_mr_bytes",
        "restop_port_active",
    ] {
        assert!(!refresh.contains(raw), "{raw}: {refresh}");
    }
}

#[test]
fn a_top_above_the_recorded_lists_is_computed_inline_and_noted() {
    let (port, queries) = server(ONE);
    let reading = source(port, 25).read().unwrap();
    assert_eq!(
        reading.notes,
        [
            "--top 25 is more than the 10 consumers the recording rules keep: \
          the cluster's top lists are computed inline"
        ]
    );
    let sent = queries.lock().unwrap().join("\n");
    assert!(
        sent.contains("topk by (type) (25, restop_process_resources{name!=\"other\"})"),
        "{sent}"
    );
    assert!(sent.contains("restop:fleet_port_down"), "{sent}");
}
