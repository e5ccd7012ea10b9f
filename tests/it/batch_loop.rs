//! The batch loop (`--batch`) driven in process: JSON Lines that follow the
//! `--json` schema, text reports under tick lines, and every way it ends.

use restop::batch::{self, BatchError, Ended};
use restop::demo::DemoSource;
use restop::model::{DetailScope, Snapshot, SourceKind};
use restop::record::{RecordWriter, ReplaySource};
use restop::session::{Pacer, PollStop, RecordingSource, Session};
use restop::settings::{Mode, Settings};
use restop::source::{CollectError, CollectRequest, Source};
use serde_json::Value;
use std::cell::Cell;
use std::io::{self, Write};
use std::time::Duration;

#[derive(Clone, Copy)]
enum BatchFormat {
    Text,
    JsonLines,
}

/// The settings of the run and the pace of its session.
struct Options {
    settings: Settings,
    pacer: Pacer,
}

fn options(format: BatchFormat, iterations: Option<u64>) -> Options {
    let mode = match format {
        BatchFormat::Text => Mode::Batch,
        BatchFormat::JsonLines => Mode::BatchJson,
    };
    Options {
        settings: Settings {
            mode,
            iterations,
            ..Settings::default()
        },
        pacer: Pacer::every(Duration::from_millis(1)),
    }
}

fn demo() -> DemoSource {
    DemoSource::new(1, Duration::from_secs(2))
}

/// Runs the loop; returns how it ended, stdout and the notices.
fn run(
    source: impl Source + 'static,
    options: &Options,
    stop: &dyn Fn() -> bool,
) -> (Result<Ended, BatchError>, String, Vec<String>) {
    let mut out = Vec::new();
    let (ended, notices) = run_into(Box::new(source), options, &mut out, stop);
    (ended, String::from_utf8(out).unwrap(), notices)
}

fn run_into(
    source: Box<dyn Source>,
    options: &Options,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> (Result<Ended, BatchError>, Vec<String>) {
    let mut notices = Vec::new();
    let mut session = Session::new(source, options.pacer.clone());
    let ended = batch::run(
        &mut session,
        &options.settings,
        out,
        &mut PollStop::new(stop),
        &mut |m: &str| notices.push(m.to_string()),
    );
    (ended, notices)
}

fn never() -> bool {
    false
}

/// Keys every `--json` document has at the top level and in `meta` (docs/json.md).
const TOP_KEYS: [&str; 7] = [
    "schema_version",
    "meta",
    "devices",
    "processes",
    "kernel",
    "unattributed",
    "error_qps",
];
const META_KEYS: [&str; 10] = [
    "source",
    "restop_version",
    "host",
    "kernel",
    "collected_at",
    "collected_at_ms",
    "collect_ms",
    "netns_mode",
    "hidden_fields",
    "warnings",
];

#[test]
fn json_lines_one_document_per_tick_in_the_json_schema() {
    let (ended, out, notices) = run(demo(), &options(BatchFormat::JsonLines, Some(3)), &never);
    assert_eq!(ended.unwrap(), Ended::Done);
    assert!(notices.is_empty(), "{notices:?}");
    assert!(out.ends_with('\n'));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    let mut times = Vec::new();
    for line in lines {
        let doc: Value = serde_json::from_str(line).unwrap();
        let object = doc.as_object().unwrap();
        for key in TOP_KEYS {
            assert!(object.contains_key(key), "missing {key}");
        }
        // The documented order, so a line reads like the --json document.
        assert!(line.starts_with(r#"{"schema_version":1,"meta":{"source":"demo","#));
        assert_eq!(doc["schema_version"], 1);
        let meta = doc["meta"].as_object().unwrap();
        for key in META_KEYS {
            assert!(meta.contains_key(key), "missing meta.{key}");
        }
        assert_eq!(doc["meta"]["source"], "demo");
        times.push(doc["meta"]["collected_at_ms"].as_u64().unwrap());
    }
    assert!(times.windows(2).all(|w| w[1] > w[0]), "{times:?}");
}

#[test]
fn text_reports_each_open_with_a_tick_line() {
    let format = BatchFormat::Text;
    let (ended, out, _) = run(demo(), &options(format, Some(2)), &never);
    assert_eq!(ended.unwrap(), Ended::Done);
    let ticks: Vec<&str> = out.lines().filter(|l| l.starts_with("=== ")).collect();
    assert_eq!(
        ticks,
        [
            "=== restop tick 1: 2026-01-01 00:00:00 UTC ===",
            "=== restop tick 2: 2026-01-01 00:00:02 UTC ===",
        ]
    );
    assert!(out.starts_with("=== restop tick 1"));
    assert!(
        out.contains("\n\n=== restop tick 2"),
        "a blank line between reports"
    );
    assert_eq!(out.matches("DEVICES (5)").count(), 2);
}

#[test]
fn a_stop_request_ends_the_loop_between_ticks() {
    let ticks = Cell::new(0);
    let stop = || {
        ticks.set(ticks.get() + 1);
        ticks.get() > 2
    };
    let (ended, out, _) = run(demo(), &options(BatchFormat::JsonLines, None), &stop);
    assert_eq!(ended.unwrap(), Ended::Stopped);
    assert!(!out.is_empty());
    assert!(out.ends_with('\n'), "only whole lines");
    for line in out.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
}

/// A reader that takes `lines` lines, then closes the pipe.
struct ClosingPipe {
    left: usize,
    taken: Vec<u8>,
}

impl Write for ClosingPipe {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        self.left -= buf.iter().filter(|&&b| b == b'\n').count().min(self.left);
        self.taken.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_closed_pipe_is_a_normal_end() {
    let mut pipe = ClosingPipe {
        left: 2,
        taken: Vec::new(),
    };
    let (ended, _) = run_into(
        Box::new(demo()),
        &options(BatchFormat::JsonLines, None),
        &mut pipe,
        &never,
    );
    assert_eq!(ended.unwrap(), Ended::ReaderGone);
    assert_eq!(pipe.taken.iter().filter(|&&b| b == b'\n').count(), 2);
}

/// Fails as scripted: `Some(true)` a snapshot, `Some(false)` an error, then exhausted.
struct Scripted {
    script: Vec<bool>,
    demo: DemoSource,
}

impl Source for Scripted {
    fn kind(&self) -> SourceKind {
        SourceKind::Demo
    }
    fn collect(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError> {
        if self.script.is_empty() {
            return Err(CollectError::Exhausted);
        }
        if self.script.remove(0) {
            self.demo.collect(request)
        } else {
            Err(CollectError::Replay("the kernel is busy".into()))
        }
    }
}

#[test]
fn a_failed_first_collection_is_an_error_later_ones_are_notices() {
    let first_fails = Scripted {
        script: vec![false, true],
        demo: demo(),
    };
    let (ended, out, _) = run(first_fails, &options(BatchFormat::JsonLines, None), &never);
    let err = ended.unwrap_err();
    assert!(matches!(err, BatchError::FirstCollection(_)));
    // As the binary prints it: the cause once, after what failed.
    assert_eq!(
        format!("{:#}", anyhow::Error::from(err)),
        "collecting RDMA resources: the kernel is busy"
    );
    assert!(out.is_empty());

    let later_fails = Scripted {
        script: vec![true, false, true],
        demo: demo(),
    };
    let (ended, out, notices) = run(later_fails, &options(BatchFormat::JsonLines, None), &never);
    assert_eq!(ended.unwrap(), Ended::Exhausted);
    assert_eq!(out.lines().count(), 2);
    assert_eq!(notices, ["collection failed: the kernel is busy"]);
}

#[test]
fn an_unknown_device_is_told_once_while_it_is_missing() {
    let mut opts = options(BatchFormat::JsonLines, Some(3));
    opts.settings.filter.device = Some("mlx5_9".into());
    let (ended, out, notices) = run(demo(), &opts, &never);
    assert_eq!(ended.unwrap(), Ended::Done);
    assert_eq!(out.lines().count(), 3);
    assert_eq!(notices.len(), 1);
    assert!(
        notices[0].starts_with("no device named mlx5_9 (have: "),
        "{notices:?}"
    );
}

#[test]
fn batch_records_every_tick_and_replays_to_the_same_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("batch.rec");
    let writer = RecordWriter::open(&path, SourceKind::Demo, Duration::from_secs(2)).unwrap();
    let recording = RecordingSource::new(Box::new(demo()), writer);
    let mut live = Vec::new();
    let (ended, notices) = run_into(
        Box::new(recording),
        &options(BatchFormat::JsonLines, Some(4)),
        &mut live,
        &never,
    );
    assert_eq!(ended.unwrap(), Ended::Done);
    assert!(notices.is_empty(), "{notices:?}");

    let replay = ReplaySource::open(&path).unwrap();
    let mut opts = options(BatchFormat::JsonLines, None);
    opts.pacer = Pacer::unpaced();
    let (ended, replayed, _) = run(replay, &opts, &never);
    assert_eq!(
        ended.unwrap(),
        Ended::Exhausted,
        "a replay ends with the recording"
    );
    let live: Vec<Value> = String::from_utf8(live)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let replayed: Vec<Value> = replayed
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replayed.len(), 4);
    for (mut a, mut b) in live.into_iter().zip(replayed) {
        assert_eq!(b["meta"]["source"], "replay");
        for doc in [&mut a, &mut b] {
            doc["meta"]["source"] = Value::Null;
            doc["meta"]["warnings"] = Value::Null;
        }
        assert_eq!(a, b);
    }
}

#[test]
fn paced_ticks_wait_the_interval() {
    let mut opts = options(BatchFormat::JsonLines, Some(3));
    opts.pacer = Pacer::every(Duration::from_millis(150));
    let started = std::time::Instant::now();
    let (ended, _, _) = run(demo(), &opts, &never);
    assert_eq!(ended.unwrap(), Ended::Done);
    // Two waits between three ticks; none after the last.
    assert!(started.elapsed() >= Duration::from_millis(300));
    let _ = DetailScope::ErrorsOnly;
}

#[test]
fn every_json_line_carries_trends_and_the_demo_leak_is_flagged_within_a_minute() {
    // 31 ticks at the demo's 2 s step: one simulated minute, unpaced.
    let mut opts = options(BatchFormat::JsonLines, Some(31));
    opts.pacer = Pacer::unpaced();
    let (ended, out, _) = run(demo(), &opts, &never);
    assert_eq!(ended.unwrap(), Ended::Done);
    let docs: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(docs.len(), 31);
    for doc in &docs {
        let trends = doc["trends"].as_object().expect("trends object");
        for key in ["owners", "error_qps", "warnings"] {
            assert!(trends.contains_key(key), "trends.{key}");
        }
    }
    // `trends` comes after the --json document's own keys.
    let first = out.lines().next().unwrap();
    assert!(first.find(r#","error_qps":"#).unwrap() < first.find(r#","trends":"#).unwrap());
    let last = &docs[30]["trends"];
    let suspects: Vec<&str> = last["owners"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["leak_suspect"] == true)
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert!(suspects.contains(&"leaky_svc"), "{suspects:?}");
}
