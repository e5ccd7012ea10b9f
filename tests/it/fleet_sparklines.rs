//! The hosts table's sparklines over the real Prometheus of `fleet_prometheus` (called from
//! that test, with its 20 exporters): the fleet view in a terminal too short for every row
//! (tmux, 160x16), reading Prometheus through a proxy that keeps each request line, sends one
//! range query naming exactly the hosts whose rows are on screen, and those rows draw a
//! sparkline. Skipped where tmux is missing.

use crate::tui_terminal::{Session, restop_under};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A TCP proxy in front of Prometheus that keeps the request line of every request it
/// passes on; it stops taking connections when dropped.
struct QueryLog {
    port: u16,
    lines: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl QueryLog {
    fn start(target: u16) -> QueryLog {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (kept, stopped) = (Arc::clone(&lines), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stopped.load(Ordering::SeqCst) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                };
                let _ = client.set_nonblocking(false);
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                let (mut answers, mut back) =
                    (server.try_clone().unwrap(), client.try_clone().unwrap());
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut answers, &mut back);
                    let _ = back.shutdown(std::net::Shutdown::Both);
                });
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || pass_requests(client, server, &kept));
            }
        });
        QueryLog { port, lines, stop }
    }

    /// The hosts the latest range query named (its `node=~"a|b"` matcher), if one was sent.
    fn last_range_hosts(&self) -> Option<Vec<String>> {
        let lines = self.lines.lock().unwrap();
        let line = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("GET /api/v1/query_range?"))?;
        let query = line
            .split(['?', '&', ' '])
            .find_map(|part| part.strip_prefix("query="))
            .map(percent_decoded)?;
        let names = query.split("node=~\"").nth(1)?.split('"').next()?;
        let mut hosts: Vec<String> = names.split('|').map(str::to_string).collect();
        hosts.sort();
        Some(hosts)
    }
}

impl Drop for QueryLog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Copies the client's bytes to the server, keeping every line that starts a GET request.
fn pass_requests(mut client: TcpStream, mut server: TcpStream, kept: &Mutex<Vec<String>>) {
    let mut buf = [0u8; 16 * 1024];
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let n = match client.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if server.write_all(&buf[..n]).is_err() {
            break;
        }
        pending.extend_from_slice(&buf[..n]);
        while let Some(end) = pending.windows(2).position(|w| w == b"\r\n") {
            let line: Vec<u8> = pending.drain(..end + 2).collect();
            if line.starts_with(b"GET ") {
                kept.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&line).trim_end().to_string());
            }
        }
    }
    let _ = server.shutdown(std::net::Shutdown::Both);
}

fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("3f");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a row's first cell says (`RowStatus::label`).
const STATUSES: [&str; 7] = ["DOWN", "MISSING", "STALE", "NO-RDMA", "CRIT", "WARN", "ok"];

/// The hosts table's rows on `screen` (up to the footer): (host, the row's text).
fn rows(screen: &str) -> Vec<(String, String)> {
    screen
        .lines()
        .skip_while(|l| !l.starts_with("STATUS"))
        .skip(1)
        .map_while(|l| {
            let mut words = l.split_whitespace();
            let status = words.next()?;
            let host = words.next()?;
            STATUSES
                .contains(&status)
                .then(|| (host.to_string(), l.to_string()))
        })
        .collect()
}

/// The view through the proxy, 16 rows high: its one range query names the rows on screen,
/// fewer than the fleet's `hosts`, and those rows draw their sparklines.
pub fn check(prom_port: u16, hosts: usize) {
    let Some(session) = Session::start(160, 16) else {
        return;
    };
    let log = QueryLog::start(prom_port);
    let bin = env!("CARGO_BIN_EXE_restop");
    session.type_text(&format!(
        "{bin} fleet --prometheus http://127.0.0.1:{} --host-label node -d 2s --http-timeout 20s",
        log.port
    ));
    session.send(&["Enter"]);
    session.wait_for("the fleet view", |s| s.contains("restop fleet"));
    let shell: i32 = session.query("#{pane_pid}").parse().expect("pane pid");
    session.restop.set(restop_under(shell));
    let screen = session.wait_for(
        "the range query naming the rows on screen, and their sparklines",
        |s| {
            let shown = rows(s);
            let mut on_screen: Vec<String> = shown.iter().map(|(h, _)| h.clone()).collect();
            on_screen.sort();
            !on_screen.is_empty()
                && log.last_range_hosts().as_ref() == Some(&on_screen)
                && shown
                    .iter()
                    .any(|(_, row)| row.chars().any(|c| BLOCKS.contains(&c)))
        },
    );
    let shown = rows(&screen);
    assert!(
        shown.len() < hosts,
        "the terminal is too short for every row: {screen}"
    );
    let ranges = log
        .lines
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.starts_with("GET /api/v1/query_range?"))
        .count();
    assert!(ranges >= 1, "no range query");
    session.send(&["q"]);
    session.wait_for("the shell prompt", |s| {
        s.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.starts_with(crate::tui_terminal::PROMPT))
    });
    session.restop.set(None);
}
