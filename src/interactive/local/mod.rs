//! This host as the interactive view's data source: the collector thread
//! that runs the session's source, the replayer thread that reads a
//! recording, and signals sent to this host's processes.

mod app_view;
pub(crate) mod collector;
pub(crate) mod replayer;
pub mod send_signal;

use crate::interactive::app::{App, AppConfig};
use crate::interactive::signal::{SignalOutcome, SignalRequest};
use crate::interactive::terminal::{self, Feed};
use crate::model::DetailScope;
use crate::model::SourceKind;
use crate::record::ReplaySource;
use crate::source::Source;
use collector::Control;
use std::path::Path;
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

/// Runs the interactive UI on the controlling terminal until the user quits
/// or a termination signal arrives. The terminal is restored on every path.
pub fn run(source: Box<dyn Source>, config: AppConfig) -> anyhow::Result<()> {
    let interval = config.interval;
    let app = App::new(config, source.kind());
    terminal::run(app, move |events| {
        let (feed, control) = LocalFeed::new();
        // Never joined: a dump in progress must not delay quitting.
        collector::spawn(source, interval, events, control)?;
        Ok(Box::new(feed))
    })
}

/// Runs the interactive UI on a recording: the application paces it and
/// asks the replayer thread for each snapshot.
pub fn run_replay(replay: ReplaySource, config: AppConfig) -> anyhow::Result<()> {
    let mut app = App::new(config, SourceKind::Replay);
    app.start_replay(replay.timeline());
    terminal::run(app, move |events| {
        let (feed, control) = LocalFeed::new();
        replayer::spawn(replay, events, control)?;
        Ok(Box::new(feed))
    })
}

/// This host's feed: the collector or replayer thread steered through its
/// control channel; signals go to this host's processes (`/proc`).
struct LocalFeed {
    control: Sender<Control>,
}

impl LocalFeed {
    /// The feed and the end of its control channel its thread waits on.
    fn new() -> (LocalFeed, mpsc::Receiver<Control>) {
        let (control, receiver) = mpsc::channel();
        (LocalFeed { control }, receiver)
    }

    /// Tells the thread; a thread that has ended has nothing to be told.
    fn tell(&self, message: Control) {
        let _ = self.control.send(message);
    }
}

impl Feed for LocalFeed {
    fn set_interval(&mut self, interval: Duration) {
        self.tell(Control::SetInterval(interval));
    }

    fn set_details(&mut self, scope: DetailScope) {
        self.tell(Control::SetDetails(scope));
    }

    fn show_record(&mut self, index: usize) {
        self.tell(Control::Show(index));
    }

    fn send_signal(&mut self, request: &SignalRequest) -> SignalOutcome {
        send_signal::send(Path::new("/proc"), request)
    }

    fn stop(&mut self) {
        self.tell(Control::Stop);
    }
}
