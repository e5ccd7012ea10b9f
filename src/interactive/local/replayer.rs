//! The replayer thread: reads the snapshots the application asks for
//! (`Control::Show`) from the recording and sends them as events. Pacing is
//! the application's (see `app::replay`); this thread only reads.

use crate::interactive::app::Event;
use crate::interactive::local::collector::Control;
use crate::model::DetailScope;
use crate::record::ReplaySource;
use crate::source::CollectError;
use std::sync::mpsc::{Receiver, Sender};
use std::thread::{self, JoinHandle};

pub(crate) fn spawn(
    replay: ReplaySource,
    events: Sender<Event>,
    control: Receiver<Control>,
) -> std::io::Result<JoinHandle<()>> {
    thread::Builder::new()
        .name("restop-replayer".into())
        .spawn(move || run(replay, &events, &control))
}

fn run(mut replay: ReplaySource, events: &Sender<Event>, control: &Receiver<Control>) {
    while let Ok(first) = control.recv() {
        // Only the latest request matters when several queued up (fast seeking).
        let mut wanted = None;
        for message in std::iter::once(first).chain(control.try_iter()) {
            match message {
                Control::Show(index) => wanted = Some(index),
                Control::Stop => return,
                // A recording has the details and pace it was made with.
                Control::SetInterval(_) | Control::SetDetails(_) => {}
            }
        }
        let Some(index) = wanted else {
            continue;
        };
        let event = match replay.read(index) {
            Ok(recorded) => Event::Snapshot {
                result: Ok(Box::new(recorded.snapshot)),
                details: recorded.details,
            },
            Err(e) => Event::Snapshot {
                result: Err(CollectError::Replay(e.to_string())),
                details: DetailScope::ErrorsOnly,
            },
        };
        if events.send(event).is_err() {
            return;
        }
    }
}
