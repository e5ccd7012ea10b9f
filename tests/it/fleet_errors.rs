//! `restop fleet --prometheus` against a hostile or broken server on loopback: every failure
//! (401, 403, 5xx, a body that is not JSON, a body cut short, an API error, an answer larger
//! than --max-bytes, a server that never answers) is one clear line and exit status 1, within
//! the timeout, never a panic or a hang.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

/// Serves `response` (status line, headers and body) to every connection, after reading the
/// request; `None` never answers.
fn server(response: Option<Vec<u8>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming().take(16) {
            let Ok(mut conn) = conn else { continue };
            let mut buf = [0u8; 4096];
            let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = conn.read(&mut buf);
            match &response {
                Some(bytes) => {
                    let _ = conn.write_all(bytes);
                }
                None => held.push(conn),
            }
        }
    });
    port
}

fn http(status: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn fleet(port: u16, extra: &[&str]) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(["fleet", "--once", "--http-timeout", "2s", "--prometheus"])
        .arg(format!("http://127.0.0.1:{port}"))
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        started.elapsed(),
    )
}

#[test]
fn every_server_failure_is_one_clear_line_and_status_1() {
    let json = "application/json";
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            http("401 Unauthorized", "text/plain", b"no"),
            "401 Unauthorized",
        ),
        (http("403 Forbidden", "text/plain", b"no"), "403 Forbidden"),
        (
            http("502 Bad Gateway", "text/html", b"<html>bad gateway</html>"),
            "server error 502",
        ),
        (
            http("200 OK", "text/html", b"<html>login page</html>"),
            "not JSON",
        ),
        (
            http(
                "200 OK",
                json,
                br#"{"status":"success","data":{"resultType":"vec"#,
            ),
            "cut short",
        ),
        (
            http(
                "400 Bad Request",
                json,
                br#"{"status":"error","errorType":"bad_data","error":"parse error"}"#,
            ),
            "bad_data: parse error",
        ),
        (
            http("200 OK", json, &vec![b' '; 4096]),
            "larger than 1024 bytes",
        ),
    ];
    for (response, expected) in cases {
        let port = server(Some(response));
        let (code, stderr, _) = fleet(port, &["--max-bytes", "1024"]);
        assert_eq!(code, Some(1), "{expected}: {stderr}");
        assert!(stderr.contains(expected), "{expected}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn a_server_that_never_answers_is_a_timeout_within_the_timeout() {
    let port = server(None);
    let (code, stderr, took) = fleet(port, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no answer within 2s"), "{stderr}");
    assert!(took < Duration::from_secs(4), "{took:?}");
}

#[test]
fn a_server_that_is_down_says_so() {
    // Port 1 (tcpmux) has no listener on a test machine; a free port could be taken by a
    // concurrent test between finding and using it.
    let (code, stderr, _) = fleet(1, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("not reachable"), "{stderr}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["fleet", "--once"],
        vec!["fleet", "--prometheus", "prometheus:9090", "--once"],
        vec![
            "fleet",
            "--prometheus",
            "http://p:9090",
            "--header",
            "broken",
            "--once",
        ],
        vec![
            "fleet",
            "--prometheus",
            "http://p:9090",
            "--user",
            "ops",
            "--once",
        ],
        vec!["fleet", "--prometheus", "http://p:9090"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_restop"))
            .args(&args)
            .env_remove("RESTOP_FLEET_PASSWORD")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}
