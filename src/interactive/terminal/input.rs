//! The input thread: terminal events to `Event`s.
//!
//! While restop is stopped or in the background the thread is parked
//! ([`park`]): reading the terminal from the background would stop restop
//! with SIGTTIN.

use crate::interactive::event::Event;
use crossterm::event::{self, Event as TermEvent};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How often the thread looks at `stop` while no input arrives.
const POLL: Duration = Duration::from_millis(100);

/// The thread is asked to leave the terminal alone.
static PARK: AtomicBool = AtomicBool::new(false);
/// The thread has seen [`PARK`] and is out of the terminal library.
static PARKED: AtomicBool = AtomicBool::new(false);
/// Set while an input thread runs, so [`park`] knows whether to wait.
static RUNNING: AtomicBool = AtomicBool::new(false);

/// Asks the input thread to stop reading the terminal and waits (a little
/// longer than one poll) until it has.
pub(crate) fn park() {
    PARK.store(true, Ordering::SeqCst);
    let started = Instant::now();
    while RUNNING.load(Ordering::SeqCst)
        && !PARKED.load(Ordering::SeqCst)
        && started.elapsed() < POLL * 2
    {
        thread::sleep(Duration::from_millis(5));
    }
}

/// Lets the input thread read the terminal again.
pub(crate) fn unpark() {
    PARK.store(false, Ordering::SeqCst);
}

pub(crate) fn spawn(tx: Sender<Event>, stop: Arc<AtomicBool>) -> std::io::Result<JoinHandle<()>> {
    RUNNING.store(true, Ordering::SeqCst);
    thread::Builder::new()
        .name("restop-input".into())
        .spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                if PARK.load(Ordering::SeqCst) {
                    PARKED.store(true, Ordering::SeqCst);
                    thread::sleep(POLL);
                    continue;
                }
                PARKED.store(false, Ordering::SeqCst);
                // `park` may have read the old PARKED just before: look again.
                if PARK.load(Ordering::SeqCst) {
                    continue;
                }
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
