//! Crafted recordings inside the 64 MiB cap, run through the binary: the
//! CPU time, peak RSS (`/usr/bin/time`) and output size of `--replay
//! --json`, `--once` and `--batch` grow linearly with the entries, and a
//! snapshot past the entry bound or a field past its bound is refused
//! quickly, with the frame's offset, before it costs memory.
//!
//! Defects: a 3.0 MB file with 530k tallies ran `--replay --json` past
//! 300 s (40k tallies 2.35 s, 80k 8.3 s, 160k 49.6 s: each JSON process
//! summed its shares over every tally) and `--once` of it took 1.44 GB; a
//! 148 KB file with a 60 MiB command line and 299 delta frames wrote 755 MB
//! per JSON line.
//!
//! Times are compared side by side (a size against four times that size),
//! never against a clock; the absolute figures are printed for
//! docs/performance.md.

use restop::demo::DemoSource;
use restop::model::{OwnerKey, ProcessKey, Snapshot, Tally, UnixMs};
use restop::record::format::{
    FLAG_DEFLATE, FLAG_KEYFRAME, KIND_SNAPSHOT, encode_file_header, encode_frame,
};
use restop::source::{CollectRequest, Source};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn demo_snapshot() -> Snapshot {
    DemoSource::new(2, Duration::from_secs(1))
        .collect(&CollectRequest::default())
        .unwrap()
}

/// The demo snapshot with `extra` tallies of owners procfs did not name.
fn with_tallies(extra: u32) -> Snapshot {
    let mut snapshot = demo_snapshot();
    let template = snapshot.tallies[0].clone();
    let devices: Vec<u32> = snapshot.devices.iter().map(|d| d.index).collect();
    for i in 0..extra {
        snapshot.tallies.push(Tally {
            owner: OwnerKey::Process(ProcessKey {
                pid: 1_000_000 + i,
                start_time: 7,
            }),
            device: devices[i as usize % devices.len()],
            ..template.clone()
        });
    }
    snapshot
}

fn deflate(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

/// A recording as a hostile writer makes it (no writer-side checks): one
/// keyframe of `snapshot`, then `deltas` frames that repeat its lists.
fn crafted(snapshot: &Snapshot, deltas: u64) -> Vec<u8> {
    let mut bytes = encode_file_header("0.1.0");
    let key = serde_json::json!({
        "details": "ErrorsOnly",
        "meta": snapshot.meta,
        "devices": snapshot.devices,
        "processes": snapshot.processes,
        "tallies": snapshot.tallies,
        "objects": snapshot.objects,
    });
    let at = snapshot.meta.collected_at_ms.as_u64();
    let frame = |flags, ms, json: &serde_json::Value| {
        let payload = deflate(json.to_string().as_bytes());
        encode_frame(KIND_SNAPSHOT, FLAG_DEFLATE | flags, UnixMs(ms), &payload).unwrap()
    };
    bytes.extend(frame(FLAG_KEYFRAME, at, &key));
    for i in 1..=deltas {
        let mut meta = snapshot.meta.clone();
        meta.collected_at_ms = UnixMs(at + i * 1000);
        let delta = serde_json::json!({"details": "ErrorsOnly", "meta": meta});
        bytes.extend(frame(0, at + i * 1000, &delta));
    }
    bytes
}

/// A recording with one keyframe of the demo plus `extra` tallies written
/// as small as a hostile writer can (counts of one type, no QP states), so
/// that 530,000 of them stay under the 64 MiB a frame may inflate to and the
/// entry bound is what refuses them, as in the hostile file (63.6 MiB of JSON).
fn crafted_small_tallies(extra: u32) -> Vec<u8> {
    let snapshot = demo_snapshot();
    let mut template = serde_json::to_value(&snapshot.tallies[0]).unwrap();
    template["counts"] = serde_json::json!({"qp": 1});
    template["qp_states"] = serde_json::json!({});
    template["mr_bytes"] = serde_json::json!(0);
    let mut tallies = Vec::with_capacity(extra as usize);
    for i in 0..extra {
        let mut t = template.clone();
        t["owner"] = serde_json::to_value(OwnerKey::Process(ProcessKey {
            pid: 1_000_000 + i,
            start_time: 7,
        }))
        .unwrap();
        tallies.push(t);
    }
    let key = serde_json::json!({
        "details": "ErrorsOnly",
        "meta": snapshot.meta,
        "devices": snapshot.devices,
        "processes": snapshot.processes,
        "tallies": tallies,
        "objects": snapshot.objects,
    });
    let text = key.to_string();
    assert!(text.len() < 64 << 20, "{} bytes of JSON", text.len());
    let mut bytes = encode_file_header("0.1.0");
    let at = snapshot.meta.collected_at_ms.as_u64();
    bytes.extend(
        encode_frame(
            KIND_SNAPSHOT,
            FLAG_DEFLATE | FLAG_KEYFRAME,
            UnixMs(at),
            &deflate(text.as_bytes()),
        )
        .unwrap(),
    );
    bytes
}

/// What one run of the binary cost.
#[derive(Debug)]
struct Run {
    success: bool,
    stderr: String,
    /// User + system CPU seconds.
    cpu_s: f64,
    max_rss_mib: f64,
    output_bytes: u64,
    output_lines: u64,
}

/// Runs `restop --replay FILE ARGS` under `/usr/bin/time`, counting (not
/// keeping) what it writes; `None` when there is no `/usr/bin/time`.
fn run(file: &Path, args: &[&str]) -> Option<Run> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        eprintln!("skipped: no /usr/bin/time (Debian's `time` package)");
        return None;
    }
    let mut child = Command::new(time)
        .args(["-f", "restop-cost %U %S %M"])
        .arg(env!("CARGO_BIN_EXE_restop"))
        .arg("--replay")
        .arg(file)
        .args(args)
        .env_remove("RESTOP_CONFIG")
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let counter = std::thread::spawn(move || {
        let (mut bytes, mut lines) = (0u64, 0u64);
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match std::io::Read::read(&mut stdout, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    bytes += n as u64;
                    lines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
                }
            }
        }
        (bytes, lines)
    });
    let out = child.wait_with_output().unwrap();
    let (output_bytes, output_lines) = counter.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let cost = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("restop-cost "))
        .unwrap_or_else(|| panic!("no figures from /usr/bin/time: {stderr}"));
    let f: Vec<f64> = cost
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    Some(Run {
        success: out.status.success(),
        stderr,
        cpu_s: f[0] + f[1],
        max_rss_mib: f[2] / 1024.0,
        output_bytes,
        output_lines,
    })
}

#[test]
fn a_snapshot_past_the_entry_bound_is_refused_with_its_offset_in_bounded_memory() {
    let bytes = crafted_small_tallies(530_000);
    assert!(bytes.len() < 8 << 20, "{} bytes", bytes.len());
    eprintln!("530k tallies: a {} KB file", bytes.len() / 1000);
    assert!(bytes.len() < 8 << 20, "{} bytes", bytes.len());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tallies.rec");
    std::fs::write(&file, &bytes).unwrap();
    let offset = encode_file_header("0.1.0").len();
    for args in [&["--json"][..], &["--once"], &["--batch", "--json"]] {
        let Some(r) = run(&file, args) else { return };
        eprintln!("{args:?}: {r:?}");
        assert!(!r.success, "{args:?}: {r:?}");
        assert!(r.stderr.contains(&format!("offset {offset}")), "{r:?}");
        assert!(
            r.stderr
                .contains("more than 500000 tallies in one snapshot"),
            "{r:?}"
        );
        assert_eq!(r.output_bytes, 0, "{args:?}");
        // Parsing stops at the bound: what 500,000 small entries take.
        assert!(r.max_rss_mib < 400.0, "{args:?}: {r:?}");
    }
}

#[test]
fn a_command_line_past_its_bound_with_299_delta_frames_writes_nothing() {
    let mut snapshot = demo_snapshot();
    snapshot.processes[0].cmdline = vec!["x".repeat(60 << 20)];
    let bytes = crafted(&snapshot, 299);
    eprintln!(
        "60 MiB command line, 299 deltas: a {} KB file",
        bytes.len() / 1000
    );
    assert!(bytes.len() < 1 << 20, "{} bytes", bytes.len());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cmdline.rec");
    std::fs::write(&file, &bytes).unwrap();
    for args in [&["--json"][..], &["--once"], &["--batch", "--json"]] {
        let Some(r) = run(&file, args) else { return };
        eprintln!("{args:?}: {r:?}");
        assert!(!r.success, "{r:?}");
        assert!(r.stderr.contains("the command line of pid"), "{r:?}");
        assert!(r.stderr.contains("offset"), "{r:?}");
        assert_eq!(r.output_bytes, 0, "{args:?}");
        // The 60 MiB string, inflated and parsed once.
        assert!(r.max_rss_mib < 400.0, "{args:?}: {r:?}");
    }
}

#[test]
fn a_command_line_at_its_bound_gives_documents_a_real_host_would() {
    let mut snapshot = demo_snapshot();
    let arg = "x".repeat((64 << 10) - 1);
    snapshot.processes[0].cmdline = vec![arg];
    let deltas = 29;
    let bytes = crafted(&snapshot, deltas);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cmdline.rec");
    std::fs::write(&file, &bytes).unwrap();
    let Some(r) = run(&file, &["--batch", "--json"]) else {
        return;
    };
    eprintln!("64 KiB command line, {deltas} deltas: {r:?}");
    assert!(r.success, "{r:?}");
    assert_eq!(r.output_lines, deltas + 1);
    // The name and the command line, each once per place that shows the
    // process: what the same process on a live host gives.
    let per_line = r.output_bytes / r.output_lines;
    assert!(per_line < 16 * (64 << 10), "{per_line} bytes per document");
    assert!(r.max_rss_mib < 200.0, "{r:?}");
}

#[test]
fn every_stage_of_a_replay_is_linear_in_the_tallies() {
    let dir = tempfile::tempdir().unwrap();
    let (small, large) = (5_000u32, 20_000u32);
    let deltas = 2;
    let mut files = Vec::new();
    for n in [small, large] {
        let file = dir.path().join(format!("t{n}.rec"));
        std::fs::write(&file, crafted(&with_tallies(n), deltas)).unwrap();
        files.push(file);
    }
    for args in [
        &["--json"][..],
        &["--once"],
        &["--batch"],
        &["--batch", "--json"],
    ] {
        let Some(a) = run(&files[0], args) else {
            return;
        };
        let Some(b) = run(&files[1], args) else {
            return;
        };
        eprintln!("{args:?}: {small} tallies {a:?}\n{args:?}: {large} tallies {b:?}");
        assert!(a.success && b.success, "{a:?} {b:?}");
        // Four times the tallies: about four times the time (it was
        // sixteen), with room for a loaded machine's noise.
        assert!(
            b.cpu_s < 7.0 * a.cpu_s.max(0.05),
            "{args:?}: {} s vs {} s: not linear",
            a.cpu_s,
            b.cpu_s
        );
        assert!(
            b.output_bytes < 5 * a.output_bytes.max(1),
            "{args:?}: output {} vs {}",
            a.output_bytes,
            b.output_bytes
        );
        // A real host's figures: at most 1 KiB of JSON and 8 KiB of memory
        // per tally and document, over what the demo host alone costs.
        let tallies = u64::from(large) * (deltas + 1);
        assert!(b.output_bytes < tallies * 1024 + (1 << 20), "{b:?}");
        assert!(
            b.max_rss_mib < 64.0 + f64::from(large) * 8.0 / 1024.0,
            "{args:?}: {b:?}"
        );
    }
}
