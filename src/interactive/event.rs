//! What the application reacts to, and what it asks the outside world to do.
//! Beside `app/`, not inside it: the runtime and the fleet's screens speak it
//! too, and screens must not name the application (`walls.rs`).

use crate::interactive::signal::{SignalOutcome, SignalRequest};
use crate::model::{DetailScope, Snapshot};
use crate::source::CollectError;
use crossterm::event::{KeyEvent, MouseEvent};
use std::time::Duration;

/// Everything that can change the application's state. Terminal input, the
/// collector and the clock all arrive as one of these, over one channel.
#[derive(Debug)]
pub enum Event {
    Key(KeyEvent),
    Mouse(MouseEvent),
    /// The terminal now has this many columns and rows.
    Resize(u16, u16),
    /// A collection finished. `details` is the detail scope it was collected
    /// with, so the drill-down knows whether its objects are in it.
    Snapshot {
        result: Result<Box<Snapshot>, CollectError>,
        details: DetailScope,
    },
    /// Time passed; carries the wall clock (Unix milliseconds) so ages shown in
    /// the header come from the event stream, never from a clock read while drawing.
    Tick(crate::model::UnixMs),
    /// Leave (a signal, the input closing).
    Quit,
    /// The fleet view's feed read the fleet or a host (`restop fleet`); the single-host view
    /// never gets one.
    Fleet(Box<crate::fleet::feed::FeedUpdate>),
    /// The event loop tried to send a signal the signal dialog asked for.
    SignalResult {
        request: SignalRequest,
        outcome: SignalOutcome,
    },
}

/// What `App::update` asks the event loop to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Quit,
    /// Collect at this interval from now on.
    SetInterval(Duration),
    /// Keep these objects in detail from the next collection on (collect soon).
    SetDetails(DetailScope),
    /// A replay: show the recording's snapshot at this index (0-based).
    ShowRecord(usize),
    /// Send a signal to a process, after checking its start time (the only
    /// command that acts on the host).
    Signal(SignalRequest),
}
