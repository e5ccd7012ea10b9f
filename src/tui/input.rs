//! The input thread: terminal events to `Event`s.

use crate::app::Event;
use crossterm::event::{self, Event as TermEvent};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// How often the thread looks at `stop` while no input arrives.
const POLL: Duration = Duration::from_millis(100);

pub fn spawn(tx: Sender<Event>, stop: Arc<AtomicBool>) -> std::io::Result<JoinHandle<()>> {
    thread::Builder::new()
        .name("restop-input".into())
        .spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let event = match event::poll(POLL) {
                    Ok(false) => continue,
                    Ok(true) => event::read(),
                    Err(e) => Err(e),
                };
                let event = match event {
                    Ok(TermEvent::Key(k)) => Event::Key(k),
                    Ok(TermEvent::Mouse(m)) => Event::Mouse(m),
                    Ok(TermEvent::Resize(w, h)) => Event::Resize(w, h),
                    Ok(_) => continue,
                    // The terminal is gone (hangup): nothing more to read.
                    Err(_) => Event::Quit,
                };
                let quit = matches!(event, Event::Quit);
                if tx.send(event).is_err() || quit {
                    return;
                }
            }
        })
}
