//! The fleet view on the terminal: the single-host view's runtime parts (`terminal/`: raw mode
//! and its restore, the input thread, termination signals, job control, hang-up) around
//! [`FleetView`], fed by the fleet's feed thread (`fleet::feed`) through `Event::Fleet`.
//!
//! The loop is the single-host event loop's (`terminal::event_loop`) with the fleet's state and
//! commands in place of `App`'s; it stays a loop of its own until the runtime takes any view.

use super::{FleetCommand, FleetView};
use crate::fleet::feed::FeedRequest;
use crate::interactive::event::Event;
use crate::interactive::terminal::tty::{self, TerminalGuard, Tty};
use crate::interactive::terminal::{hangup, input, job, signals, test_hooks};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

/// How often the clock ticks (the header's refresh age) when nothing else happens.
const TICK: Duration = Duration::from_millis(250);

/// Runs the fleet view until the user quits, a termination signal arrives or the terminal goes
/// away; `feed` starts the thread that reads the fleet. The terminal is restored on every path.
pub(crate) fn run(
    mut view: FleetView,
    feed: impl FnOnce(Sender<Event>, Receiver<FeedRequest>) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let _signals = signals::install()?;
    let _job_control = crate::signals::install_job_control()?;
    let mut guard = TerminalGuard::enter(view.config.mouse)?;

    let (events_tx, events_rx) = mpsc::channel();
    let (requests_tx, requests_rx) = mpsc::channel();
    let stop_input = Arc::new(AtomicBool::new(false));
    let input = if test_hooks::no_input_thread() {
        None
    } else {
        Some(input::spawn(events_tx.clone(), Arc::clone(&stop_input))?)
    };
    feed(events_tx.clone(), requests_rx)?;
    drop(events_tx);

    let hangup = hangup::HangupWatch::new();
    let result = event_loop(
        &mut view,
        guard.terminal(),
        &events_rx,
        &requests_tx,
        &hangup,
    );
    let lost = hangup.terminal_lost();
    let result = match result {
        Err(_) if lost && !tty::panicked() => Ok(()),
        other => other,
    };
    let _ = requests_tx.send(FeedRequest::Stop);
    stop_input.store(true, Ordering::SeqCst);
    if lost {
        guard.release_lost();
    } else {
        drop(guard);
    }
    // Never joined, as in the single-host view (crossterm's reader may spin on a lost tty).
    drop(input);
    result
}

fn event_loop(
    view: &mut FleetView,
    terminal: &mut Tty,
    events: &Receiver<Event>,
    requests: &Sender<FeedRequest>,
    hangup: &hangup::HangupWatch,
) -> anyhow::Result<()> {
    let size = terminal.size()?;
    view.update(Event::Resize(size.width, size.height));
    view.update(Event::Tick(crate::model::time::now()));
    draw(terminal, view)?;
    let mut screen = job::Presence::Shown;
    loop {
        if tty::panicked() {
            return Err(panic_ended());
        }
        let event = if signals::termination_requested() || hangup.terminal_lost() {
            Event::Quit
        } else {
            match events.recv_timeout(TICK) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => Event::Tick(crate::model::time::now()),
                Err(RecvTimeoutError::Disconnected) => Event::Quit,
            }
        };
        let mouse = view.config.mouse;
        let event = if job::is_suspend_key(&event) || crate::signals::take_suspend_request() {
            screen = job::suspend(terminal, mouse)?;
            Event::Tick(crate::model::time::now())
        } else {
            let back = screen == job::Presence::Away && job::in_foreground();
            if crate::signals::take_continued() || back {
                screen = job::continued(terminal, mouse)?;
            }
            event
        };
        let ticked = matches!(event, Event::Tick(_));
        let mut commands = view.update(event);
        if !ticked {
            commands.extend(view.update(Event::Tick(crate::model::time::now())));
        }
        for command in commands {
            match command {
                FleetCommand::Quit => return Ok(()),
                FleetCommand::Feed(request) => {
                    let _ = requests.send(request);
                }
            }
        }
        if screen == job::Presence::Shown {
            draw(terminal, view)?;
        }
    }
}

fn draw(terminal: &mut Tty, view: &FleetView) -> anyhow::Result<()> {
    match tty::draw_frame(|| terminal.draw(|f| super::draw::draw(f, view))) {
        Some(drawn) => drawn.map(drop).map_err(Into::into),
        None => Err(panic_ended()),
    }
}

fn panic_ended() -> anyhow::Error {
    anyhow::anyhow!("a restop thread panicked (message above): the view was ended")
}
