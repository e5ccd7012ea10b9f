//! What the runtime asks of the view's data feed. A feed sends the view its
//! ticks (snapshots, or collection errors, as `Event::Snapshot` on the
//! channel it is started with) and takes the controls the application asks
//! for: the interval, the objects to keep in detail (which collects again at
//! once), a recording's snapshot to show, a signal to a process when the
//! feed's processes can be signalled from here, and the end of the view.
//!
//! This host's feed is `local::LocalFeed` (the session's collector, or a
//! recording's replayer); another feed (a fleet) brings its own, so the
//! runtime names neither.

use crate::interactive::signal::{SignalOutcome, SignalRequest};
use crate::model::DetailScope;
use std::time::Duration;

/// The controls of a data feed, as the event loop carries out the
/// application's commands.
pub trait Feed {
    /// Collect at this interval from now on.
    fn set_interval(&mut self, interval: Duration);

    /// Keep these objects in detail from the next collection on, and collect
    /// soon.
    fn set_details(&mut self, scope: DetailScope);

    /// A replay: read and send the recording's snapshot at this index
    /// (0-based). A feed that is not a recording ignores it.
    fn show_record(&mut self, index: usize);

    /// Sends a signal to a process the feed's snapshots name, after checking
    /// it is still the same process; a feed whose processes are not this
    /// host's says it sends none.
    fn send_signal(&mut self, request: &SignalRequest) -> SignalOutcome;

    /// The view is ending: stop feeding it.
    fn stop(&mut self);
}
