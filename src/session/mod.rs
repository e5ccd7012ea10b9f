//! The session driver: every mode runs a session the same way — open the
//! source the settings name (the exporter's live host again after each
//! failed open, `reopen.rs`), wrap it for recording, collect at a pace, stop
//! when asked (a signal, the user quitting, a [`Stop`]).
//!
//! ```text
//! open_source ─▶ with_recording ─▶ Session { source, pacer } ─run(waiter)─▶ tick(Tick) ─▶ Flow
//! ```
//!
//! The interactive view's collector thread, `--batch`, `--once` and the
//! exporter differ only in their waiter (control channel, signals, a `Stop`)
//! and in what they do with each tick; none of them calls the source itself.

pub mod events;
pub mod open;
pub mod pace;
pub mod record;
pub mod reopen;
pub mod stop;

use crate::model::{DetailScope, Snapshot, SourceKind};
use crate::settings::Settings;
use crate::source::{CollectError, CollectRequest, Source};
use std::time::{Duration, Instant};

pub use open::{open_source, with_recording};
pub use pace::{Flow, Pacer, Waiter, Wake};
pub use record::RecordingSource;
pub use reopen::Reopening;
pub use stop::{PollStop, Stop, on_signals, stop_on_signals};

/// One collection, as the front end gets it.
#[derive(Debug)]
pub struct Tick {
    /// 1 for the first collection of the session.
    pub number: u64,
    /// The snapshot, or why the whole collection failed (the session goes on).
    pub result: Result<Snapshot, CollectError>,
    /// The objects this collection kept in detail.
    pub details: DetailScope,
    /// Wall time of the collection (the source's `collect`, recording included).
    pub took: Duration,
}

/// A source and the rhythm it is read at.
pub struct Session {
    source: Box<dyn Source>,
    pacer: Pacer,
    ticks: u64,
}

impl Session {
    /// A session reading `source` at the rhythm of `pacer`; no collection yet.
    pub fn new(source: Box<dyn Source>, pacer: Pacer) -> Session {
        Session {
            source,
            pacer,
            ticks: 0,
        }
    }

    /// The pacing the settings ask for: every `-d`, except a replay, which is
    /// read as fast as it is asked for.
    pub fn pacer_for(settings: &Settings) -> Pacer {
        if settings.source.paced() {
            Pacer::every(settings.source.interval)
        } else {
            Pacer::unpaced()
        }
    }

    /// Live, demo or replay: what the session's source is.
    pub fn kind(&self) -> SourceKind {
        self.source.kind()
    }

    /// The time between paced collections.
    pub fn interval(&self) -> Duration {
        self.pacer.interval()
    }

    /// The next paced collection at `at` rather than at once (one was just
    /// made with [`Session::next_tick`]).
    pub fn resume_at(&mut self, at: Instant) {
        self.pacer.set_first_at(at);
    }

    /// The next collection dumps objects whatever their cadence says.
    pub fn force_objects(&mut self) {
        self.pacer.force_objects();
    }

    /// One collection now, outside the rhythm (`--once`).
    pub fn collect(&mut self, request: &CollectRequest) -> Tick {
        self.ticks += 1;
        let started = Instant::now();
        let result = self.source.collect(request);
        Tick {
            number: self.ticks,
            result,
            details: request.details.clone(),
            took: started.elapsed(),
        }
    }

    /// One collection now, with what the pace would ask next (the
    /// exporter's first, before it serves; `--textfile --once`).
    pub fn next_tick(&mut self) -> Tick {
        let request = self.pacer.next_request();
        self.collect(&request)
    }

    /// Collects at the pace until `tick` or `waiter` says stop.
    pub fn run(&mut self, waiter: &mut dyn Waiter, tick: &mut dyn FnMut(Tick) -> Flow) {
        let Session {
            source,
            pacer,
            ticks,
        } = self;
        // A device event (collect/monitor) is a tick now, whatever the waiter.
        let mut waiter = events::EventsOrWaiter::new(waiter, crate::collect::monitor::wake::bell());
        pacer.run(&mut waiter, &mut |request| {
            *ticks += 1;
            let started = Instant::now();
            let result = source.collect(request);
            tick(Tick {
                number: *ticks,
                result,
                details: request.details.clone(),
                took: started.elapsed(),
            })
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::settings::tests::crate_modules_named;
    use std::path::Path;

    /// The session drives every front end and imports none of them (the
    /// exporter's stop and reopening are the session's own).
    #[test]
    fn the_session_imports_no_front_end() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/session");
        let below = [
            "collect", "demo", "model", "record", "settings", "signals", "source", "session",
        ];
        for (file, module) in crate_modules_named(&dir) {
            assert!(
                below.contains(&module.as_str()),
                "{file} imports crate::{module}"
            );
        }
    }
}
