//! The fleet view on the terminal runtime (`terminal::run`, the single-host view's too: raw
//! mode and its restore, the input thread, termination signals, job control, hang-up): the
//! view is [`FleetView`], its feed the fleet's feed thread (`fleet::feed`), whose outcomes
//! arrive as `Event::Fleet` and which takes the view's requests over a channel. The
//! counterpart of `local/` for the fleet: above the screens and the runtime, which name
//! neither.

use crate::fleet::feed::FeedRequest;
use crate::interactive::event::Event;
use crate::interactive::screens::fleet::{FleetCommand, FleetView};
use crate::interactive::terminal::{self, View};
use std::sync::mpsc::{self, Receiver, Sender};

/// The controls of the fleet's feed thread: its requests channel.
pub struct FleetFeed {
    requests: Sender<FeedRequest>,
}

impl View for FleetView {
    type Command = FleetCommand;
    type Feed = FleetFeed;

    fn mouse(&self) -> bool {
        self.config.mouse
    }

    fn update(&mut self, event: Event) -> Vec<FleetCommand> {
        FleetView::update(self, event)
    }

    fn draw(&mut self, frame: &mut ratatui::Frame) {
        crate::interactive::screens::fleet::draw::draw(frame, self);
    }

    fn carry_out(&mut self, commands: Vec<FleetCommand>, feed: &mut FleetFeed) -> bool {
        for command in commands {
            match command {
                FleetCommand::Quit => return true,
                // A feed thread that ended (it never panics on bad data) just misses it.
                FleetCommand::Feed(request) => {
                    let _ = feed.requests.send(request);
                }
            }
        }
        false
    }

    fn stop(feed: &mut FleetFeed) {
        let _ = feed.requests.send(FeedRequest::Stop);
    }
}

/// Runs the fleet view until the user quits, a termination signal arrives or the terminal goes
/// away; `feed` starts the thread that reads the fleet. The terminal is restored on every path.
pub fn run(
    view: FleetView,
    feed: impl FnOnce(Sender<Event>, Receiver<FeedRequest>) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    terminal::run(view, move |events| {
        let (requests, requests_rx) = mpsc::channel();
        feed(events, requests_rx)?;
        Ok(Box::new(FleetFeed { requests }))
    })
}
