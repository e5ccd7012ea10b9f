//! Running a real Prometheus in tests: finding it, a free loopback port, a child that is killed
//! when dropped, the server itself started on one (`start_prometheus`), and the HTTP API's
//! queries (`export_prometheus`, `kube_join`, `fleet_prometheus`, `fleet_terminal`).

use serde_json::Value;
use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

pub const WAIT: Duration = Duration::from_secs(60);

pub fn on_path(tool: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Percent-encodes a query parameter.
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// GET over HTTP/1.0 (so the answer is never chunked) and parse the JSON body.
pub fn api(port: u16, path_and_query: &str) -> Option<Value> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {path_and_query} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
    )
    .ok()?;
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).ok()?;
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
    serde_json::from_slice(&bytes[end + 4..]).ok()
}

pub fn query(port: u16, promql: &str) -> Option<Value> {
    api(port, &format!("/api/v1/query?query={}", encode(promql)))
}

/// Polls `probe` until it gives something, or fails after `WAIT` with `what`
/// and Prometheus' log.
pub fn wait_for<T>(what: &str, log: &Path, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(found) = probe() {
            return found;
        }
        if Instant::now() > deadline {
            let log = fs::read_to_string(log).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(20).collect();
            panic!(
                "timed out waiting for {what}; prometheus log (last lines, newest first):\n{}",
                tail.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

pub fn results(answer: &Value) -> Option<&Vec<Value>> {
    (answer["status"] == "success")
        .then(|| answer["data"]["result"].as_array())
        .flatten()
}

/// A Prometheus server started for a test: killed when dropped, with its port and log.
pub struct Prometheus {
    _child: Killed,
    pub port: u16,
    pub log: PathBuf,
}

/// Starts `binary` (a found `prometheus`) on a free loopback port with `config` (YAML) as its
/// configuration and its data, output and log in `dir`.
pub fn start_prometheus(binary: &Path, dir: &Path, config: &str) -> Prometheus {
    let port = free_port();
    let config_file = dir.join("prometheus.yml");
    fs::write(&config_file, config).unwrap();
    let log = dir.join("prometheus.log");
    let child = std::process::Command::new(binary)
        .arg(format!("--config.file={}", config_file.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdin(std::process::Stdio::null())
        .stdout(fs::File::create(dir.join("prometheus.out")).unwrap())
        .stderr(fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    Prometheus {
        _child: Killed(child),
        port,
        log,
    }
}
