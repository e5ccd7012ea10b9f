//! More of the real terminal (tmux, as in `tui_terminal`): restop continued
//! in the background after a stop, which must neither take the terminal nor
//! hang when told to end, and a panic in the collector thread, which must end
//! restop with the terminal restored and the message on the normal screen.

use crate::tui_terminal::{LastNonEmpty, PROMPT, Session, kill, stat_fields};
use nix::sys::signal::Signal;
use std::time::Duration;

impl Session {
    /// restop stopped by SIGTSTP, then SIGCONT from outside: the shell keeps
    /// the terminal and restop runs on in the background.
    fn stop_then_continue_in_the_background(&self, pid: i32) {
        kill(pid, Signal::SIGTSTP);
        self.wait_for("the shell after the stop", |s| {
            s.contains("Stopped")
                && s.lines()
                    .last_nonempty()
                    .is_some_and(|l| l.starts_with(PROMPT))
        });
        kill(pid, Signal::SIGCONT);
        // Time for a restop that takes the terminal back to do so (and be
        // stopped again by SIGTTOU): four ticks of its event loop.
        std::thread::sleep(Duration::from_millis(1000));
        assert_eq!(
            self.query("#{alternate_on}"),
            "0",
            "the shell keeps the screen"
        );
    }
}

/// restop runs on (not stopped again by SIGTTOU for touching the terminal).
fn assert_running(pid: i32) {
    let state = stat_fields(pid).map(|f| f[0].clone());
    assert_ne!(
        state.as_deref(),
        Some("T"),
        "stopped again in the background"
    );
}

#[test]
fn sigterm_after_a_background_sigcont_ends_restop() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    let pid = s.start_restop("");
    s.stop_then_continue_in_the_background(pid);
    // At once: a restop stopped again would keep SIGTERM pending for good.
    kill(pid, Signal::SIGTERM);
    s.assert_restored();
}

#[test]
fn fg_after_a_background_sigcont_brings_the_view_back() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    let pid = s.start_restop("");
    s.stop_then_continue_in_the_background(pid);
    assert_running(pid);
    s.assert_stopped_then_back(pid);
}

#[test]
fn a_collector_panic_ends_restop_with_the_message_on_the_normal_screen() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    // The third collection panics (1 s after the view is up, at -d 500ms).
    let _ = s.start_restop_under("env RESTOP_TEST_PANIC_COLLECTOR=2 RUST_BACKTRACE=0", "");
    let screen = s.wait_for("the panic message and the prompt", |s| {
        s.contains("RESTOP_TEST_PANIC_COLLECTOR: the collector thread panics")
            && s.lines()
                .last_nonempty()
                .is_some_and(|l| l.starts_with(PROMPT))
    });
    assert!(screen.contains("restop-collector"), "{screen}");
    assert_eq!(s.query("#{alternate_on}"), "0", "primary screen:\n{screen}");
    s.type_text("echo status=$?");
    s.send(&["Enter"]);
    let screen = s.wait_for("the exit status", |s| {
        s.lines().any(|l| l.starts_with("status="))
    });
    let status = screen
        .lines()
        .find_map(|l| l.strip_prefix("status="))
        .unwrap();
    assert_ne!(status.trim(), "0", "non-zero exit:\n{screen}");
    // Gone, primary screen, cursor, no mouse, cooked mode.
    s.assert_restored();
}

#[test]
fn sigstop_from_outside_then_fg_brings_the_view_back_in_raw_mode() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    let pid = s.start_restop("");
    // Uncatchable: restop gets no chance to give the terminal back, and the
    // shell puts its own (cooked) mode back while restop is stopped.
    kill(pid, Signal::SIGSTOP);
    s.wait_for("the shell after the stop", |s| s.contains("Stopped"));
    s.send(&["fg", "Enter"]);
    s.wait_for("the view back", |s| {
        s.contains("DEMO: simulated data") && s.contains("train.py")
    });
    // Raw mode again: a key acts at once instead of waiting for Enter.
    s.send(&["?"]);
    s.wait_for("help", |s| s.contains("Keys: Esc or ? closes"));
    assert_running(pid);
    s.send(&["?", "q"]);
    s.assert_restored();
}
