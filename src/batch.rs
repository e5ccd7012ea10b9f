//! `--batch`: like `top -b`, a report every interval on stdout, for scripts
//! and pipes. Text reports under a tick line, or JSON Lines with `--json`.
//!
//! Each tick is written and flushed whole. The loop ends after `-n`
//! iterations, when a replay runs out, when the reader closes the pipe, or
//! on a termination signal; all of these are a normal end.

use crate::model::SourceKind;
use crate::model::history::History;
use crate::output::batch::{json_line_with, text_tick_with};
use crate::output::trends::trends_view;
use crate::output::unknown_device_warning;
use crate::session::{Flow, Session, Tick, Waiter};
use crate::settings::{Mode, Settings};
use crate::source::CollectError;
use std::io::{self, Write};

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

/// Why `--batch` stopped before `-n` reports (exit status 1).
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
    /// A report could not be serialized (`--json`).
    #[error("encoding JSON")]
    Json(#[from] serde_json::Error),
    /// stdout failed for a reason other than a closed reader.
    #[error("writing to stdout")]
    Write(#[source] io::Error),
}

/// Runs the batch loop on `session`: collect (recorded when the session
/// records), print, wait. `settings` says the format (`--json`), `-n`, the
/// filters and the report options; `waiter` paces and stops the loop;
/// `notice` gets what the user must be told besides the reports (stderr in
/// the binary).
pub fn run(
    session: &mut Session,
    settings: &Settings,
    out: &mut dyn Write,
    waiter: &mut dyn Waiter,
    notice: &mut dyn FnMut(&str),
) -> Result<Ended, BatchError> {
    if settings.iterations == Some(0) {
        return Ok(Ended::Done);
    }
    let mut printer = Printer {
        settings,
        history: History::new(settings.trends.clone()),
        device_missing: false,
        printed: 0,
        out,
        notice,
        ended: Ok(Ended::Stopped),
    };
    // The first report has every count; later ones follow the source's own
    // cadence for object dumps.
    session.force_objects();
    session.run(waiter, &mut |tick| printer.tick(tick));
    printer.ended
}

/// The loop's state between ticks.
struct Printer<'a> {
    settings: &'a Settings,
    /// Carried from tick to tick: every JSON Lines document's `trends`.
    history: History,
    /// The unknown `--dev` warning was told and still holds.
    device_missing: bool,
    printed: u64,
    out: &'a mut dyn Write,
    notice: &'a mut dyn FnMut(&str),
    /// How the loop ended, once it has.
    ended: Result<Ended, BatchError>,
}

impl Printer<'_> {
    fn tick(&mut self, tick: Tick) -> Flow {
        let snapshot = match tick.result {
            Ok(snapshot) => snapshot,
            Err(CollectError::Exhausted) => return self.end(Ok(Ended::Exhausted)),
            Err(e) if tick.number == 1 => return self.end(Err(BatchError::FirstCollection(e))),
            Err(e) => {
                (self.notice)(&format!("collection failed: {e}"));
                return Flow::Continue;
            }
        };
        if tick.number == 1
            && snapshot.devices.is_empty()
            && snapshot.meta.source == SourceKind::Live
        {
            return self.end(Err(BatchError::NoDevices));
        }
        self.printed += 1;
        let filter = &self.settings.filter;
        match unknown_device_warning(&snapshot, filter) {
            Some(warning) if !self.device_missing => {
                (self.notice)(&warning.message);
                self.device_missing = true;
            }
            Some(_) => {}
            None => self.device_missing = false,
        }
        self.history.push(&snapshot);
        // One reading of the history per tick: the trends and the problems.
        let insights = self.history.insights(&snapshot, filter);
        let text = match self.settings.mode {
            Mode::BatchJson => {
                let trends = serde_json::to_value(trends_view(&insights, &snapshot, filter))
                    .unwrap_or(serde_json::Value::Null);
                match json_line_with(
                    &snapshot,
                    filter,
                    &self.settings.report,
                    Some(&trends),
                    Some(&insights.problems),
                ) {
                    Ok(line) => line,
                    Err(e) => return self.end(Err(e.into())),
                }
            }
            _ => text_tick_with(
                self.printed,
                &snapshot,
                filter,
                &self.settings.report,
                &insights.problems,
            ),
        };
        match self
            .out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
        {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                return self.end(Ok(Ended::ReaderGone));
            }
            Err(e) => return self.end(Err(BatchError::Write(e))),
        }
        if self.settings.iterations.is_some_and(|n| self.printed >= n) {
            return self.end(Ok(Ended::Done));
        }
        Flow::Continue
    }

    fn end(&mut self, ended: Result<Ended, BatchError>) -> Flow {
        self.ended = ended;
        Flow::Stop
    }
}
