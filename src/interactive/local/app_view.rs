//! The single-host application as a view of the terminal runtime: `App`'s
//! update and frame, its commands carried out on its [`Feed`] (this host's
//! collector or a recording's replayer). Here, beside the feeds, because it
//! names both the application and the frame drawn around its screens, which
//! the runtime below must not.

use crate::interactive::app::{App, Command};
use crate::interactive::event::Event;
use crate::interactive::frame;
use crate::interactive::terminal::{Feed, View};
use std::time::Duration;

impl View for App {
    type Command = Command;
    type Feed = dyn Feed;

    fn mouse(&self) -> bool {
        self.config.mouse
    }

    fn update(&mut self, event: Event) -> Vec<Command> {
        App::update(self, event)
    }

    fn draw(&mut self, f: &mut ratatui::Frame) {
        frame::draw(f, self);
    }

    /// Passes the application's commands on to the feed, and the result of
    /// any signal sent back to the application as an event.
    fn carry_out(&mut self, commands: Vec<Command>, feed: &mut Self::Feed) -> bool {
        let mut queue = std::collections::VecDeque::from(commands);
        while let Some(command) = queue.pop_front() {
            match command {
                Command::Quit => return true,
                Command::SetInterval(d) => feed.set_interval(d),
                Command::SetDetails(scope) => feed.set_details(scope),
                Command::ShowRecord(index) => feed.show_record(index),
                Command::Signal(request) => {
                    let outcome = feed.send_signal(&request);
                    queue.extend(App::update(self, Event::SignalResult { request, outcome }));
                }
            }
        }
        false
    }

    fn stop(feed: &mut Self::Feed) {
        feed.stop();
    }

    /// A replay's next snapshot may be due before the next tick.
    fn wait(&self, now: crate::model::UnixMs) -> Option<Duration> {
        self.replay
            .as_ref()
            .and_then(|r| r.wait_ms(now))
            .map(|ms| ms.as_duration())
    }
}
