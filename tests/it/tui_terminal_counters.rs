//! The NIC counters in a real terminal (tmux) on the demo: the devices
//! pane's traffic columns, `c` opening the counters view of the selected
//! device's port, sorting it, and `c` again closing it; `q` then ends
//! restop. Skipped where tmux is not installed.

use crate::tui_terminal::{assert_gone_without_spinning, restop_under};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const TMUX: &str = "/usr/bin/tmux";
/// Generous: a debug build on a busy machine.
const WAIT: Duration = Duration::from_secs(30);

struct Session {
    name: String,
}

impl Session {
    /// A 120x40 tmux session running `shell`, at its prompt, with `command`
    /// typed and entered.
    fn start(name: String, shell: &str, command: &str) -> Session {
        let s = Session { name };
        let started = s.tmux(&[
            "new-session",
            "-d",
            "-s",
            &s.name,
            "-x",
            "120",
            "-y",
            "40",
            shell,
        ]);
        assert!(started.status.success(), "tmux new-session failed");
        s.wait_for("the shell prompt", |t| t.contains("rc-prompt>"));
        assert!(
            s.tmux(&["send-keys", "-t", &s.name, "-l", command])
                .status
                .success()
        );
        s.keys(&["Enter"]);
        s
    }

    /// Waits until the shell's prompt is the last line again.
    fn wait_for_the_shell(&self) {
        self.wait_for("the shell back", |t| {
            t.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| l.contains("rc-prompt>"))
        });
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new(TMUX)
            .arg("-L")
            .arg(&self.name)
            .args(args)
            .output()
            .expect("running tmux")
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.name];
        args.extend_from_slice(keys);
        assert!(self.tmux(&args).status.success(), "send-keys {keys:?}");
    }

    fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", &self.name]);
        String::from_utf8_lossy(&out.stdout).into_owned()
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
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

#[test]
fn c_opens_the_counters_view_of_the_selected_port_on_the_demo() {
    if !Path::new(TMUX).exists() {
        eprintln!("tmux not installed: real-terminal test skipped");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_restop");
    let s = Session::start(
        format!("restop-counters-{}", std::process::id()),
        "env PS1='rc-prompt> ' NO_COLOR= bash --norc --noprofile",
        &format!("{bin} --demo -d 500ms"),
    );
    // Rates from the second read on: the pane shows bytes per second.
    let screen = s.wait_for("throughput in the devices pane", |t| {
        t.lines()
            .any(|l| l.starts_with("mlx5_0 ") && l.contains("GB/s"))
    });
    assert!(
        screen.contains(" TX ") || screen.contains(" TX"),
        "{screen}"
    );
    let shell_pid: i32 = String::from_utf8_lossy(
        &s.tmux(&["display-message", "-p", "-t", &s.name, "#{pane_pid}"])
            .stdout,
    )
    .trim()
    .parse()
    .expect("pane pid");
    let pid = restop_under(shell_pid).expect("restop under the shell");

    // The devices pane, its first device, `c`.
    s.keys(&["Tab"]);
    s.keys(&["c"]);
    let view = s.wait_for("the counters view", |t| {
        t.contains("Counters of mlx5_0 port 1") && t.contains("port_xmit_data")
    });
    assert!(
        view.contains("COUNTER▲") && view.contains("MEANING"),
        "{view}"
    );
    assert!(view.contains("port_xmit_data"), "{view}");
    // Sorted by rate, the busiest counter first.
    s.keys(&["s"]);
    s.keys(&["s"]);
    s.keys(&["g"]);
    // `g` may land a frame after the sort: wait for the top row, not for
    // the sort mark alone (the value sort had scrolled the table).
    let first_row = |t: &str| {
        t.lines()
            .skip_while(|l| !l.starts_with("COUNTER"))
            .nth(1)
            .unwrap_or_default()
            .to_string()
    };
    let by_rate = s.wait_for("sorted by rate, from the top", |t| {
        t.contains("RATE▼") && first_row(t).contains("port_")
    });
    let first = first_row(&by_rate);
    assert!(first.contains("port_") && first.contains("/s"), "{by_rate}");
    // `c` again closes it; `q` ends restop.
    s.keys(&["c"]);
    s.wait_for("the main screen", |t| t.contains("Top consumers"));
    s.keys(&["q"]);
    s.wait_for_the_shell();
    assert_gone_without_spinning(pid);
    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
}

/// Under `LANG=C` (no UTF-8 locale) the view draws with ASCII only, as htop
/// does: a terminal there may show none of the Unicode symbols.
#[test]
fn under_lang_c_the_view_is_ascii_only() {
    if !Path::new(TMUX).exists() {
        eprintln!("tmux not installed: real-terminal test skipped");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_restop");
    let s = Session::start(
        format!("restop-ascii-{}", std::process::id()),
        "env PS1='rc-prompt> ' LANG=C LC_ALL=C bash --norc --noprofile",
        &format!("{bin} --demo"),
    );
    let screen = s.wait_for("the main screen with its bars", |t| {
        t.contains("Top consumers") && t.contains('#')
    });
    assert!(screen.is_ascii(), "{screen}");
    s.keys(&["q"]);
    s.wait_for_the_shell();
}
