//! The signal keys in a real terminal (tmux), on the built binary with demo
//! data: `F9` and `K` refuse there (demo pids are not this host's), and with
//! `--read-only` they say so; a throwaway `sleep` on the host gets nothing.
//! No source shows a local process as a consumer without RDMA hardware, so
//! the confirmed dialog is tested on the app state (`tui_signal`) and the
//! sending on real processes (`tui_signal_send`).

use crate::tui_terminal::Session;
use std::process::Command;

#[test]
fn demo_data_and_read_only_refuse_the_signal_keys() {
    let Some(s) = Session::start(120, 30) else {
        return;
    };
    let mut bystander = Command::new("sleep").arg("300").spawn().unwrap();

    s.start_restop("");
    s.send(&["F9"]);
    s.wait_for("the demo refusal", |s| {
        s.contains("pids of demo/replay data are not this host's")
    });
    s.send(&["j"]);
    s.wait_for("the footer back", |s| s.contains("q quit"));
    s.send(&["K"]);
    let screen = s.wait_for("the demo refusal again", |s| {
        s.contains("pids of demo/replay data are not this host's")
    });
    assert!(!screen.contains("Send a signal"), "{screen}");
    s.send(&["q"]);
    s.assert_restored();

    s.start_restop("--read-only");
    s.send(&["F9"]);
    s.wait_for("the read-only refusal", |s| {
        s.contains("read-only (--read-only): no signals are sent")
    });
    s.send(&["q"]);
    s.assert_restored();

    assert!(bystander.try_wait().unwrap().is_none(), "nothing was sent");
    bystander.kill().unwrap();
    bystander.wait().unwrap();
    assert!(!std::path::Path::new(&format!("/proc/{}", bystander.id())).exists());
}
