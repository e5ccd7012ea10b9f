//! The interactive terminal runtime: terminal setup and restore, the input
//! thread, signals and job control, and the event loop that feeds a
//! [`View`]'s update and draws it. It names no view: the single-host `App` is
//! one (`local/app_view.rs`; its snapshots come from a [`Feed`], this host's
//! collector or a recording's replayer), the fleet view another
//! (`fleet_view.rs`, with the fleet's feed). What feeds the view is started by
//! the caller (`run`'s `start_feed`).

pub(crate) mod feed;
pub(crate) mod hangup;
pub(crate) mod input;
pub(crate) mod job;
pub(crate) mod signals;
pub(crate) mod test_hooks;
pub(crate) mod tty;
pub mod view;

use crate::interactive::event::Event;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;
use tty::{TerminalGuard, Tty};

pub use feed::Feed;
pub use view::View;

/// How often the clock ticks (header ages, signal checks) when nothing else happens.
const TICK: Duration = Duration::from_millis(250);

/// True when stdin and stdout are a terminal, which the interactive view needs.
pub fn has_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

fn now_ms() -> crate::model::UnixMs {
    crate::model::time::now()
}

/// Sets up the terminal and threads around `view`; `start_feed` starts what
/// sends it its events and returns the controls of that feed. The terminal is
/// restored on every path.
pub fn run<V: View>(
    mut view: V,
    start_feed: impl FnOnce(Sender<Event>) -> std::io::Result<Box<V::Feed>>,
) -> anyhow::Result<()> {
    let _signals = signals::install()?;
    let _job_control = crate::signals::install_job_control()?;
    let mut guard = TerminalGuard::enter(view.mouse())?;

    let (events_tx, events_rx) = mpsc::channel();
    let stop_input = Arc::new(AtomicBool::new(false));
    let input = if test_hooks::no_input_thread() {
        None
    } else {
        Some(input::spawn(events_tx.clone(), Arc::clone(&stop_input))?)
    };
    let mut feed = start_feed(events_tx.clone())?;
    drop(events_tx);

    let hangup = hangup::HangupWatch::new();
    let result = event_loop(
        &mut view,
        guard.terminal(),
        &events_rx,
        feed.as_mut(),
        &hangup,
    );
    let lost = hangup.terminal_lost();
    let result = match result {
        // Whatever failed on a terminal that went away (EIO on a write, or
        // on setting raw mode after the SIGCONT of the hang-up) was the
        // hang-up, which ends the view like `q`.
        Err(_) if lost && !tty::panicked() => Ok(()),
        other => other,
    };

    V::stop(feed.as_mut());
    stop_input.store(true, Ordering::SeqCst);
    if lost {
        guard.release_lost();
    } else {
        drop(guard);
    }
    // Never joined: on a terminal that just went away crossterm's reader can
    // spin inside `event::poll` forever (crossterm issue #793). The process
    // exits as soon as this returns, which ends the thread wherever it is.
    drop(input);
    result
}

fn event_loop<V: View>(
    view: &mut V,
    terminal: &mut Tty,
    events: &Receiver<Event>,
    feed: &mut V::Feed,
    hangup: &hangup::HangupWatch,
) -> anyhow::Result<()> {
    let size = terminal.size()?;
    let mut first = view.update(Event::Resize(size.width, size.height));
    first.extend(view.update(Event::Tick(now_ms())));
    if view.carry_out(first, feed) {
        return Ok(());
    }
    draw(terminal, view)?;
    let mut presence = job::Presence::Shown;
    loop {
        let wait = view.wait(now_ms()).map_or(TICK, |due| TICK.min(due));
        if tty::panicked() {
            return Err(panic_ended());
        }
        let event = if signals::termination_requested() || hangup.terminal_lost() {
            Event::Quit
        } else {
            match events.recv_timeout(wait) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => Event::Tick(now_ms()),
                Err(RecvTimeoutError::Disconnected) => Event::Quit,
            }
        };
        let mouse = view.mouse();
        let event = if job::is_suspend_key(&event) || crate::signals::take_suspend_request() {
            presence = job::suspend(terminal, mouse)?;
            resized_while_away(view, terminal, presence)?;
            Event::Tick(now_ms())
        } else {
            // `fg` sends SIGCONT; the foreground check also covers a missed one.
            let back = presence == job::Presence::Away && job::in_foreground();
            if crate::signals::take_continued() || back {
                presence = job::continued(terminal, mouse)?;
                resized_while_away(view, terminal, presence)?;
            }
            event
        };
        let ticked = matches!(event, Event::Tick(_));
        let mut commands = view.update(event);
        if !ticked {
            commands.extend(view.update(Event::Tick(now_ms())));
        }
        if view.carry_out(commands, feed) {
            return Ok(());
        }
        if presence == job::Presence::Shown {
            draw(terminal, view)?;
        }
    }
}

/// Back in the terminal after a stop: the terminal may have been resized
/// while restop was stopped (no SIGWINCH reaches a stopped process), so every
/// pane is laid out again at the size found now, not only the header and footer.
fn resized_while_away<V: View>(
    view: &mut V,
    terminal: &mut Tty,
    presence: job::Presence,
) -> anyhow::Result<()> {
    if presence == job::Presence::Shown {
        let size = terminal.size()?;
        view.update(Event::Resize(size.width, size.height));
    }
    Ok(())
}

/// Draws the view; fails once a panic has taken the screen for its message.
fn draw<V: View>(terminal: &mut Tty, view: &mut V) -> anyhow::Result<()> {
    // ratatui diffs against the previous frame: only changed cells are written.
    match tty::draw_frame(|| terminal.draw(|f| view.draw(f))) {
        Some(drawn) => drawn.map(drop).map_err(Into::into),
        None => Err(panic_ended()),
    }
}

fn panic_ended() -> anyhow::Error {
    anyhow::anyhow!("a restop thread panicked (message above): the view was ended")
}
