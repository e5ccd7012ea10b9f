//! The real thing: the built binary in a real terminal (tmux), driven by
//! keys, read back from the screen. Checks that the screens and keys work and
//! that the terminal is back in cooked mode on the primary screen afterwards,
//! after `q` and after SIGTERM, and that restop ends by itself when its
//! terminal goes away (the tmux server killed right after `q`, or under a
//! running view). Every test checks that the restop it started is gone.
//!
//! Each session has its own tmux server (`-L`), so killing it touches no
//! other test. Skipped (with a message) where tmux is not installed.

use nix::sys::signal::Signal;
use std::cell::Cell;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const TMUX: &str = "/usr/bin/tmux";
/// The shell prompt (`capture-pane` drops the trailing space of `PS1`).
const PROMPT: &str = "rt-prompt>";
/// Generous: a debug build on a busy machine.
const WAIT: Duration = Duration::from_secs(30);

pub(crate) struct Session {
    name: String,
    /// The restop this session started, killed by `Drop` if a test failed early.
    restop: Cell<Option<i32>>,
}

impl Session {
    pub(crate) fn start(width: u16, height: u16) -> Option<Session> {
        if !Path::new(TMUX).exists() {
            eprintln!("tmux not installed: real-terminal test skipped");
            return None;
        }
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let name = format!("restop-test-{}-{n}", std::process::id());
        let shell = format!("env PS1='{PROMPT} ' NO_COLOR= bash --norc --noprofile");
        let ok = tmux(
            &name,
            &[
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                &width.to_string(),
                "-y",
                &height.to_string(),
                &shell,
            ],
        )
        .status
        .success();
        assert!(ok, "tmux new-session failed");
        let s = Session {
            name,
            restop: Cell::new(None),
        };
        s.wait_for("the shell prompt", |screen| screen.contains(PROMPT));
        Some(s)
    }

    fn tmux(&self, args: &[&str]) -> Output {
        tmux(&self.name, args)
    }

    pub(crate) fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.name];
        args.extend_from_slice(keys);
        assert!(self.tmux(&args).status.success(), "send-keys {keys:?}");
    }

    /// Types text literally (no key-name lookup).
    pub(crate) fn type_text(&self, text: &str) {
        assert!(
            self.tmux(&["send-keys", "-t", &self.name, "-l", text])
                .status
                .success()
        );
    }

    fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", &self.name]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn query(&self, format: &str) -> String {
        let out = self.tmux(&["display-message", "-p", "-t", &self.name, format]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Polls the screen until `done` holds; the terminal is a separate process,
    /// so there is no event to wait on.
    pub(crate) fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            if start.elapsed() > WAIT {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts restop in the shell and returns its pid.
    pub(crate) fn start_restop(&self, extra: &str) -> i32 {
        self.start_restop_under("", extra)
    }

    /// Starts restop under a wrapper command (`prefix`) and returns its pid.
    fn start_restop_under(&self, prefix: &str, extra: &str) -> i32 {
        let bin = env!("CARGO_BIN_EXE_restop");
        self.type_text(&format!("{prefix} {bin} --demo -d 500ms {extra}"));
        self.send(&["Enter"]);
        self.wait_for("the TUI", |s| {
            s.contains("DEMO: simulated data") && s.contains("train.py")
        });
        assert_eq!(
            self.query("#{alternate_on}"),
            "1",
            "TUI on the alternate screen"
        );
        let shell: i32 = self.query("#{pane_pid}").parse().expect("pane pid");
        let pid = restop_under(shell).expect("restop running under the shell");
        self.restop.set(Some(pid));
        pid
    }

    /// The shell's terminal is in cooked mode (`stty -a` shows echo and icanon).
    fn assert_cooked(&self) {
        self.send(&["clear", "Enter"]);
        self.type_text("stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e echo -e -icanon -e -echo | sort | tr '\\n' ,");
        self.send(&["Enter"]);
        let screen = self.wait_for("stty output", |s| {
            s.contains("echo,") || s.contains("icanon,")
        });
        assert!(
            screen.contains("echo,icanon,"),
            "terminal not in cooked mode:\n{screen}"
        );
    }

    /// After restop ended: the process gone, primary screen, prompt back, cooked mode.
    pub(crate) fn assert_restored(&self) {
        if let Some(pid) = self.restop.take() {
            assert_gone_without_spinning(pid);
        }
        self.wait_for("the prompt after restop", |s| {
            s.lines()
                .last_nonempty()
                .is_some_and(|l| l.starts_with(PROMPT))
        });
        assert_eq!(
            self.query("#{alternate_on}"),
            "0",
            "back on the primary screen"
        );
        assert_eq!(self.query("#{mouse_any_flag}"), "0", "mouse capture off");
        assert_eq!(self.query("#{cursor_flag}"), "1", "cursor visible");
        self.assert_cooked();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(pid) = self.restop.take() {
            kill(pid, Signal::SIGKILL);
        }
        let _ = self.tmux(&["kill-server"]);
    }
}

trait LastNonEmpty<'a> {
    fn last_nonempty(self) -> Option<&'a str>;
}

impl<'a, I: DoubleEndedIterator<Item = &'a str>> LastNonEmpty<'a> for I {
    fn last_nonempty(mut self) -> Option<&'a str> {
        self.rfind(|l| !l.trim().is_empty())
    }
}

/// tmux on the session's own server (socket named after the session).
fn tmux(server: &str, args: &[&str]) -> Output {
    Command::new(TMUX)
        .arg("-L")
        .arg(server)
        .args(args)
        .output()
        .expect("running tmux")
}

/// The consumers table's lines (after its title line).
fn consumer_lines(screen: &str) -> Vec<&str> {
    screen
        .lines()
        .skip_while(|l| !l.contains("Top consumers"))
        .skip(2)
        .collect()
}

#[test]
fn keys_work_and_q_restores_the_terminal() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    let _ = s.start_restop("");

    let screen = s.screen();
    assert!(
        screen.contains("mlx5_0") && screen.contains("└ mlx5_3"),
        "devices:\n{screen}"
    );
    assert!(screen.contains("train.py"), "consumers:\n{screen}");
    assert!(screen.contains("QP▼"));

    // Sort: next column, then reversed.
    s.send(&["s"]);
    s.wait_for("sort by CQ", |s| s.contains("CQ▼"));
    s.send(&["r"]);
    s.wait_for("reversed", |s| s.contains("CQ▲"));
    s.send(&["<"]);
    s.wait_for("back to QP, natural direction", |s| s.contains("QP▼"));

    // Filter.
    s.send(&["/"]);
    s.type_text("nvmf");
    s.wait_for("the filter line", |s| s.contains("filter: nvmf"));
    s.send(&["Enter"]);
    let screen = s.wait_for("filtered consumers", |s| {
        let rows = consumer_lines(s);
        rows.iter().any(|l| l.contains("nvmf_tgt")) && !rows.iter().any(|l| l.contains("train.py"))
    });
    assert!(screen.contains("Top consumers (1)"), "{screen}");
    s.send(&["Escape"]);
    s.wait_for("the filter cleared", |s| s.contains("train.py"));

    // Freeze and resume.
    s.send(&["Space"]);
    s.wait_for("frozen", |s| s.contains("FROZEN"));
    s.wait_for("newer snapshots counted", |s| s.contains("newer)"));
    s.send(&["f"]);
    s.wait_for("resumed", |s| !s.contains("FROZEN"));

    // Drill-down into the top process, then back.
    s.send(&["Home", "Enter"]);
    s.wait_for("the drill-down", |s| {
        s.contains("LQPN") && s.contains("total QP")
    });
    s.wait_for("objects loaded", |s| {
        !s.contains("loading objects") && s.contains("RTS")
    });
    s.send(&["Tab"]);
    s.wait_for("the CQ tab", |s| s.contains("CQE"));
    s.send(&["Escape"]);
    s.wait_for("the main screen", |s| s.contains("Top consumers"));

    // ERROR-QP pane and back.
    s.send(&["e"]);
    s.wait_for("the ERROR pane", |s| s.contains("QPs in ERR/SQE"));
    s.send(&["Escape"]);
    s.wait_for("the main screen", |s| s.contains("Top consumers"));

    // Help overlay.
    s.send(&["?"]);
    s.wait_for("help", |s| {
        s.contains("Keys: Esc or ? closes") && s.contains("freeze")
    });
    s.send(&["Escape"]);
    s.wait_for("help closed", |s| !s.contains("Keys: Esc"));

    // Interval.
    s.send(&["+"]);
    s.wait_for("a longer interval", |s| s.contains("every 1 s"));

    // Resizes, down to too small and back.
    let _ = s.tmux(&["resize-window", "-t", &s.name, "-x", "30", "-y", "8"]);
    s.wait_for("too small", |s| s.contains("too small"));
    let _ = s.tmux(&["resize-window", "-t", &s.name, "-x", "80", "-y", "24"]);
    s.wait_for("redrawn at 80x24", |s| s.contains("Top consumers"));

    s.send(&["q"]);
    s.assert_restored();
}

#[test]
fn mouse_clicks_sort_and_select() {
    let Some(s) = Session::start(120, 30) else {
        return;
    };
    let _ = s.start_restop("");
    let screen = s.screen();
    let (row, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("QP▼") && l.contains("MR-BYTES"))
        .expect("consumers header");
    let col = line
        .find("MR-BYTES")
        .map(|b| line[..b].chars().count())
        .unwrap();
    // SGR mouse report of a left press and release (1-based coordinates).
    let press = format!("\x1b[<0;{};{}M", col + 2, row + 1);
    let release = format!("\x1b[<0;{};{}m", col + 2, row + 1);
    s.type_text(&press);
    s.type_text(&release);
    s.wait_for("sorted by MR bytes", |s| s.contains("MR-BYTES▼"));
    s.send(&["q"]);
    s.assert_restored();
}

#[test]
fn sigterm_restores_the_terminal() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    let pid = s.start_restop("");
    kill(pid, Signal::SIGTERM);
    s.assert_restored();
}

#[test]
fn ctrl_z_gives_the_shell_back_and_fg_the_view() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    let pid = s.start_restop("");
    s.send(&["C-z"]);
    s.assert_stopped_then_back(pid);
}

#[test]
fn sigtstp_gives_the_shell_back_and_fg_the_view() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    let pid = s.start_restop("");
    kill(pid, Signal::SIGTSTP);
    s.assert_stopped_then_back(pid);
}

impl Session {
    /// restop stopped with the terminal given back, then `fg` brings the view
    /// back in raw mode; `q` ends it.
    fn assert_stopped_then_back(&self, pid: i32) {
        let s = self;
        s.wait_for("the shell after Ctrl-Z", |s| {
            s.contains("Stopped")
                && s.lines()
                    .last_nonempty()
                    .is_some_and(|l| l.starts_with(PROMPT))
        });
        assert_eq!(s.query("#{alternate_on}"), "0", "primary screen");
        let flags = s.query("#{mouse_any_flag}#{cursor_flag}");
        assert_eq!(flags, "01", "mouse capture off, cursor visible");
        s.assert_cooked();
        s.send(&["fg", "Enter"]);
        s.wait_for("the view back", |s| {
            s.contains("DEMO: simulated data") && s.contains("train.py")
        });
        assert_eq!(s.query("#{alternate_on}"), "1", "alternate screen again");
        // Raw mode again: a key acts at once instead of echoing.
        s.send(&["?"]);
        s.wait_for("help", |s| s.contains("Keys: Esc or ? closes"));
        assert!(stat_fields(pid).is_some(), "restop still running");
        s.send(&["?", "q"]); // help closed, then quit
        s.assert_restored();
    }
}

#[test]
fn closing_the_terminal_right_after_q_ends_restop() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    let pid = s.start_restop("");
    s.send(&["q"]);
    // The server (and every pty of it) gone within the quit's first moments.
    let _ = s.tmux(&["kill-server"]);
    assert_gone_without_spinning(pid);
    s.restop.set(None);
}

#[test]
fn closing_the_terminal_under_a_running_view_ends_restop() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    let pid = s.start_restop("");
    let _ = s.tmux(&["kill-server"]);
    assert_gone_without_spinning(pid);
    s.restop.set(None);
}

#[test]
fn a_lost_terminal_ends_restop_when_no_sighup_reaches_it() {
    let Some(s) = Session::start(100, 30) else {
        return;
    };
    // Own session: the tty is not restop's controlling one, no hangup SIGHUP.
    let pid = s.start_restop_under("setsid -w", "");
    let _ = s.tmux(&["kill-server"]);
    assert_gone_without_spinning(pid);
    s.restop.set(None);
}

/// The first process named restop below `parent` (it may run under a wrapper).
pub(crate) fn restop_under(parent: i32) -> Option<i32> {
    let mut queue = vec![parent];
    while let Some(pid) = queue.pop() {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if pid != parent && comm.trim() == "restop" {
            return Some(pid);
        }
        queue.extend(children_of(pid));
    }
    None
}

fn kill(pid: i32, signal: Signal) {
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal);
}

/// Fields after the parenthesised comm of `/proc/PID/stat` (state first),
/// or None once the process is gone or a zombie (it runs no more).
fn stat_fields(pid: i32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(") ")?.1;
    let fields: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
    (fields.first().map(String::as_str) != Some("Z")).then_some(fields)
}

fn cpu_ticks(fields: &[String]) -> u64 {
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|t| t.parse::<u64>().ok())
            .unwrap_or(0)
    };
    tick(11) + tick(12)
}

/// The restop `pid` ends within 2 s and burns no more than a fraction of a
/// core's second on the way (a spinning input reader burns one whole).
pub(crate) fn assert_gone_without_spinning(pid: i32) {
    let start = Instant::now();
    let Some(fields) = stat_fields(pid) else {
        return;
    };
    let first = cpu_ticks(&fields);
    let mut last = first;
    while let Some(fields) = stat_fields(pid) {
        last = cpu_ticks(&fields);
        if start.elapsed() > Duration::from_secs(2) {
            kill(pid, Signal::SIGKILL);
            panic!(
                "restop {pid} still running 2 s later ({} ticks of CPU meanwhile)",
                last - first
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        last - first < 30,
        "restop {pid} burnt {} ticks of CPU while ending",
        last - first
    );
}

pub(crate) fn children_of(parent: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // Fields after the parenthesised comm: state, ppid, ...
        let Some(rest) = stat.rsplit_once(") ").map(|(_, r)| r) else {
            continue;
        };
        let ppid = rest
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<i32>().ok());
        if ppid == Some(parent) {
            out.push(pid);
        }
    }
    out
}
