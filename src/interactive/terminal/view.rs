//! What the runtime drives: a view's state with its one update function, its drawing, and
//! how its commands reach what feeds it. The single-host `App` (with a [`Feed`](super::Feed):
//! this host's collector or a recording's replayer) and the fleet view (with the fleet's feed
//! thread) both implement it, so raw mode, the input thread, termination signals, job control
//! and the hang-up are one runtime for every view.
//!
//! The one file named `view.rs` holds this one idea, a full-screen view: the `--json`
//! document's shape is `output/json/document.rs`, the live source's per-type dumps
//! `collect/live/latest_dumps.rs`.

use crate::interactive::event::Event;
use crate::model::UnixMs;
use ratatui::Frame;
use std::time::Duration;

/// A full-screen view the event loop runs.
pub trait View {
    /// What the view's update asks of the outside world.
    type Command;
    /// The controls of the view's feed, started by the caller before the loop and stopped by
    /// the runtime after it.
    type Feed: ?Sized;

    /// Whether the terminal reports the mouse.
    fn mouse(&self) -> bool;

    /// Takes one event in (a key, the mouse, a resize, a tick, what the feed sent, the end).
    fn update(&mut self, event: Event) -> Vec<Self::Command>;

    /// Draws the whole screen.
    fn draw(&mut self, frame: &mut Frame);

    /// Carries the commands out on the feed (an answer may be fed back through `update`);
    /// true when one of them ends the view.
    fn carry_out(&mut self, commands: Vec<Self::Command>, feed: &mut Self::Feed) -> bool;

    /// The view is ending: stop its feed.
    fn stop(feed: &mut Self::Feed);

    /// The longest the loop may wait for the next event from `now` (a replay's next snapshot
    /// may be due before the next tick); `None` waits the runtime's tick.
    fn wait(&self, _now: UnixMs) -> Option<Duration> {
        None
    }
}
