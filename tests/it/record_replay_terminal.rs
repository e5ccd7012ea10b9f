//! `--replay` in a real terminal (tmux): the recording plays, the replay
//! keys act, and `q` gives the shell back and ends restop (checked: no
//! process left behind). Skipped where tmux is missing.

use crate::tui_terminal::{assert_gone_without_spinning, restop_under};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use restop::demo::DemoSource;
use restop::model::{DetailScope, SourceKind};
use restop::record::RecordWriter;
use restop::source::{CollectRequest, Source};
use std::cell::Cell;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const TMUX: &str = "/usr/bin/tmux";
const PROMPT: &str = "rp-prompt>";
/// Generous: a debug build on a busy machine.
const WAIT: Duration = Duration::from_secs(30);

fn tmux(args: &[&str]) -> Output {
    Command::new(TMUX).args(args).output().expect("run tmux")
}

struct Session {
    name: String,
    /// The restop started here, killed by `Drop` if the test failed early.
    restop: Cell<Option<i32>>,
}

impl Session {
    fn screen(&self) -> String {
        String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", &self.name]).stdout)
            .into_owned()
    }

    fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < WAIT,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.name];
        args.extend_from_slice(keys);
        assert!(tmux(&args).status.success());
    }

    fn header(&self) -> String {
        self.screen().lines().next().unwrap_or_default().to_string()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(pid) = self.restop.take() {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        let _ = tmux(&["kill-session", "-t", &self.name]);
    }
}

/// Forty demo snapshots, 500 ms apart: twenty seconds to play.
fn recording(path: &Path) {
    let step = Duration::from_millis(500);
    let mut writer = RecordWriter::open(path, SourceKind::Demo, step).unwrap();
    let mut source = DemoSource::new(1, step);
    for _ in 0..40 {
        let snapshot = source.collect(&CollectRequest::default()).unwrap();
        writer.append(&snapshot, &DetailScope::ErrorsOnly).unwrap();
    }
}

#[test]
fn a_recording_plays_pauses_and_seeks_in_a_real_terminal() {
    if !Path::new(TMUX).exists() {
        eprintln!("tmux not installed: real-terminal test skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.rec");
    recording(&file);

    let name = format!("restop-replay-{}", std::process::id());
    let shell = format!("env PS1='{PROMPT} ' NO_COLOR= bash --norc --noprofile");
    assert!(
        tmux(&[
            "new-session",
            "-d",
            "-s",
            &name,
            "-x",
            "100",
            "-y",
            "30",
            &shell
        ])
        .status
        .success()
    );
    let s = Session {
        name,
        restop: Cell::new(None),
    };
    s.wait_for("the prompt", |screen| screen.contains(PROMPT));
    let command = format!(
        "{} --replay {}",
        env!("CARGO_BIN_EXE_restop"),
        file.display()
    );
    assert!(
        tmux(&["send-keys", "-t", &s.name, "-l", &command])
            .status
            .success()
    );
    s.keys(&["Enter"]);

    s.wait_for("the replay", |screen| {
        screen.contains("REPLAY: recorded data") && screen.contains(" PLAY 1× ")
    });
    let shell: i32 = String::from_utf8_lossy(
        &tmux(&["display-message", "-p", "-t", &s.name, "#{pane_pid}"]).stdout,
    )
    .trim()
    .parse()
    .unwrap();
    let pid = restop_under(shell).expect("restop running under the shell");
    s.restop.set(Some(pid));
    s.wait_for("playback to move on", |screen| !screen.contains("(1/40)"));
    s.keys(&["Space"]);
    s.wait_for("the pause", |screen| screen.contains(" PAUSED 1× "));
    s.keys(&["$"]);
    let header = s.wait_for("the end", |screen| screen.contains("(40/40)"));
    assert!(header.contains(" END "), "{header}");
    s.keys(&["^"]);
    s.wait_for("the start", |screen| screen.contains("(1/40)"));
    s.keys(&["."]);
    s.wait_for("one step", |screen| screen.contains("(2/40)"));
    assert!(
        s.header().contains("2026-01-01 00:00:00 UTC (2/40)"),
        "{}",
        s.header()
    );
    s.keys(&["q"]);
    s.wait_for("the shell back", |screen| {
        !screen.contains("REPLAY") && screen.contains(PROMPT)
    });
    assert_gone_without_spinning(pid);
    s.restop.set(None);
}
