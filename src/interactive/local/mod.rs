//! This host as the interactive view's data source: the collector thread
//! that runs the session's source, the replayer thread that reads a
//! recording, and signals sent to this host's processes.

pub(crate) mod collector;
pub(crate) mod replayer;
pub mod send_signal;

use crate::interactive::app::{App, AppConfig};
use crate::interactive::terminal::run_app;
use crate::model::SourceKind;
use crate::record::ReplaySource;
use crate::source::Source;

/// Runs the interactive UI on the controlling terminal until the user quits
/// or a termination signal arrives. The terminal is restored on every path.
pub fn run(source: Box<dyn Source>, config: AppConfig) -> anyhow::Result<()> {
    let interval = config.interval;
    let app = App::new(config, source.kind());
    run_app(app, move |events, control| {
        // Never joined: a dump in progress must not delay quitting.
        collector::spawn(source, interval, events, control).map(drop)
    })
}

/// Runs the interactive UI on a recording: the application paces it and
/// asks the replayer thread for each snapshot.
pub fn run_replay(replay: ReplaySource, config: AppConfig) -> anyhow::Result<()> {
    let mut app = App::new(config, SourceKind::Replay);
    app.start_replay(replay.timeline());
    run_app(app, move |events, control| {
        replayer::spawn(replay, events, control).map(drop)
    })
}
