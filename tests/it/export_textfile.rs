//! Textfile mode: node_exporter's collector reads the file at any moment, so
//! every read must see a whole document — the old one or the new one.

use restop::export::textfile::write_atomically;
use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Two documents of different sizes, each recognisable as whole.
fn document(tag: char, lines: usize) -> Vec<u8> {
    // Starts as restop's own files do, so the next write may replace it.
    let mut text = format!("# HELP restop_test begin {tag}\n");
    for i in 0..lines {
        text.push_str(&format!("restop_test{{n=\"{i}\",tag=\"{tag}\"}} {i}\n"));
    }
    text.push_str(&format!("# end {tag}\n"));
    text.into_bytes()
}

#[test]
fn concurrent_readers_never_see_a_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = Arc::new(dir.path().join("restop.prom"));
    let a = document('a', 5_000);
    let b = document('b', 300);
    write_atomically(&path, &a).unwrap();

    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (path, done, a, b) = (Arc::clone(&path), Arc::clone(&done), a.clone(), b.clone());
            thread::spawn(move || {
                let mut reads = 0u64;
                while !done.load(Ordering::SeqCst) {
                    let seen = fs::read(&*path).unwrap();
                    assert!(seen == a || seen == b, "partial read: {} bytes", seen.len());
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    for i in 0..400 {
        write_atomically(&path, if i % 2 == 0 { &b } else { &a }).unwrap();
    }
    done.store(true, Ordering::SeqCst);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "restop.prom")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn restop() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_restop"));
    c.stdin(Stdio::null());
    c
}

fn only_file_in(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn once_writes_the_demo_metrics_and_exits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("restop.prom");
    let out = restop()
        .args(["export", "--demo", "--textfile"])
        .arg(&path)
        .arg("--once")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout.is_empty());
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains("\nrestop_up{source=\"demo\"} 1\n"));
    assert!(text.contains("\nrestop_resources{device=\"mlx5_0\",type=\"qp\"} 370\n"));
    assert!(
        !text.contains("# EOF"),
        "the textfile is in the text format"
    );
    assert_eq!(only_file_in(dir.path()), ["restop.prom"]);
}

#[test]
fn without_rdma_once_still_writes_the_health_and_exits_0() {
    if Path::new("/sys/class/infiniband").exists() {
        println!("skipped: this host has RDMA devices");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("restop.prom");
    let out = restop()
        .args(["export", "--textfile"])
        .arg(&path)
        .arg("--once")
        .output()
        .unwrap();
    // Nothing to monitor is no failure (docs/exporter.md): the file says so.
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("restop_rdma_present 0"), "{stderr}");
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains("\nrestop_rdma_present 0\n"));
    assert!(text.contains("\nrestop_up{source=\"live\"} 0\n"));
    assert!(text.contains("\nrestop_collection_errors_total{kind=\"no_rdma\"} 1\n"));
}

#[test]
fn a_missing_directory_is_reported_with_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no/such/dir/restop.prom");
    for once in [true, false] {
        let mut cmd = restop();
        cmd.args(["export", "--demo", "-d", "100ms", "--textfile"])
            .arg(&path);
        if once {
            cmd.arg("--once");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1), "once={once}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("no/such/dir/restop.prom"), "{stderr}");
    }
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn collections_in(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("restop_collections_total "))
        .and_then(|n| n.parse().ok())
}

#[test]
fn the_file_is_rewritten_every_interval_and_always_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("restop.prom");
    let _child = Killed(
        restop()
            .args(["export", "--demo", "-d", "100ms", "--textfile"])
            .arg(&path)
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = Vec::new();
    while Instant::now() < deadline && seen.len() < 4 {
        if let Ok(text) = fs::read_to_string(&path) {
            // The last family's remainder series closes every document.
            let last_line = text.lines().last().unwrap_or("");
            assert!(
                text.ends_with('\n')
                    && last_line.starts_with("restop_process_mr_bytes{pid=\"\",name=\"other\""),
                "partial document of {} bytes",
                text.len()
            );
            let n = collections_in(&text).unwrap();
            if seen.last() != Some(&n) {
                seen.push(n);
            }
        }
        thread::sleep(Duration::from_millis(10));
    }
    assert!(seen.len() >= 4, "saw collections {seen:?}");
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
}
