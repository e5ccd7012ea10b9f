//! `--batch`: like `top -b`, a report every interval on stdout, for scripts
//! and pipes. Text reports under a tick line, or JSON Lines with `--json`.
//!
//! Each tick is written and flushed whole. The loop ends after `-n`
//! iterations, when a replay runs out, when the reader closes the pipe, or
//! on a termination signal; all of these are a normal end.

use crate::model::filter::Filter;
use crate::model::history::{History, HistoryConfig};
use crate::model::{DetailScope, SourceKind, Thresholds};
use crate::output::batch::{json_line, text_tick};
use crate::output::trends::trend_fields;
use crate::output::{OnceOptions, unknown_device_warning};
use crate::record::RecordWriter;
use crate::source::{CollectError, CollectRequest, Source};
use std::io::{self, Write};
use std::thread;
use std::time::{Duration, Instant};

/// How long a wait sleeps before it looks for a stop request again.
const STOP_CHECK: Duration = Duration::from_millis(50);

#[derive(Clone, Debug, PartialEq)]
pub enum BatchFormat {
    Text(OnceOptions),
    JsonLines,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BatchOptions {
    pub interval: Duration,
    /// Stop after this many reports (`-n`); `None`: until stopped.
    pub iterations: Option<u64>,
    pub format: BatchFormat,
    pub filter: Filter,
    /// Where `limit` warnings start (the text format has its own copy).
    pub thresholds: Thresholds,
    /// Wait `interval` between ticks. A replay is not paced: it is printed
    /// as fast as it can be read.
    pub paced: bool,
    /// `--retention`, `--trend-window`, `--err-linger`.
    pub history: HistoryConfig,
}

/// Why the loop ended. Every one of these is a normal end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// `-n` reports were printed.
    Done,
    /// A replay has no more snapshots.
    Exhausted,
    /// A termination signal (or the caller) asked to stop.
    Stopped,
    /// The reader closed the pipe (`restop --batch | head`).
    ReaderGone,
}

#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The first collection failed: nothing to report at all.
    #[error("collecting RDMA resources")]
    FirstCollection(#[source] CollectError),
    /// The live host shows no device on the first collection.
    #[error(
        "no RDMA devices on this host (none is visible in this network namespace).\n\
         Run `restop --demo` to explore restop with a simulated host"
    )]
    NoDevices,
    #[error("encoding JSON")]
    Json(#[from] serde_json::Error),
    #[error("writing to stdout")]
    Write(#[source] io::Error),
}

/// Runs the batch loop: collect, record (when `recorder` is given), print,
/// wait. `stop` is polled while waiting and between ticks; `notice` gets
/// what the user must be told besides the reports (stderr in the binary).
pub fn run(
    source: &mut dyn Source,
    mut recorder: Option<&mut RecordWriter>,
    options: &BatchOptions,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
    notice: &mut dyn FnMut(&str),
) -> Result<Ended, BatchError> {
    // Carried from tick to tick: every JSON Lines document's `trends`.
    let mut history = History::new(options.history.clone());
    let mut device_missing = false;
    let mut tick: u64 = 0;
    loop {
        if options.iterations.is_some_and(|n| tick >= n) {
            return Ok(Ended::Done);
        }
        if stop() {
            return Ok(Ended::Stopped);
        }
        let started = Instant::now();
        let request = CollectRequest {
            details: DetailScope::ErrorsOnly,
            // The first report has every count; later ones follow the
            // source's own cadence for object dumps.
            force_objects: tick == 0,
        };
        let mut snapshot = match source.collect(&request) {
            Ok(snapshot) => snapshot,
            Err(CollectError::Exhausted) => return Ok(Ended::Exhausted),
            Err(e) if tick == 0 => return Err(BatchError::FirstCollection(e)),
            Err(e) => {
                notice(&format!("collection failed: {e}"));
                if !wait_for_next(started, options, stop) {
                    return Ok(Ended::Stopped);
                }
                continue;
            }
        };
        if tick == 0 && snapshot.devices.is_empty() && snapshot.meta.source == SourceKind::Live {
            return Err(BatchError::NoDevices);
        }
        tick += 1;
        if let Some(writer) = recorder.as_deref_mut()
            && let Some(failure) = writer.record_into(&mut snapshot, &request.details)
        {
            notice(&failure);
        }
        match unknown_device_warning(&snapshot, &options.filter) {
            Some(warning) if !device_missing => {
                notice(&warning.message);
                device_missing = true;
            }
            Some(_) => {}
            None => device_missing = false,
        }
        history.push(&snapshot);
        let text = match &options.format {
            BatchFormat::Text(once) => text_tick(tick, &snapshot, &options.filter, once),
            BatchFormat::JsonLines => json_line(
                &snapshot,
                &options.filter,
                &options.thresholds,
                Some(&trend_fields(&history, &snapshot, &options.filter)),
            )?,
        };
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(Ended::ReaderGone),
            Err(e) => return Err(BatchError::Write(e)),
        }
        let last = options.iterations.is_some_and(|n| tick >= n);
        if !last && !wait_for_next(started, options, stop) {
            return Ok(Ended::Stopped);
        }
    }
}

/// Waits until the next tick is due; false when asked to stop meanwhile.
fn wait_for_next(started: Instant, options: &BatchOptions, stop: &dyn Fn() -> bool) -> bool {
    if !options.paced {
        return !stop();
    }
    let due = started + options.interval;
    loop {
        if stop() {
            return false;
        }
        let now = Instant::now();
        if now >= due {
            return true;
        }
        thread::sleep((due - now).min(STOP_CHECK));
    }
}
