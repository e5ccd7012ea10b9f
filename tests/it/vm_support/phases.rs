//! What the later phases of scenarios/main.sh recorded: the interactive view
//! in tmux (`tui/`), restop runs under churn (`churn/`) and a device deleted
//! while restop runs (`vanish/`).

use super::Run;
use super::rdma::Snapshot;
use super::screen::Screen;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The interactive view in a tmux pane: screens, exit status, terminal after.
#[derive(Clone, Debug, Default)]
pub struct TuiRun {
    /// `restop`'s exit status, written by the pane once it ended.
    pub rc: Option<i32>,
    /// What restop wrote to stderr.
    pub stderr: String,
    /// The pane's `stty -a` after restop ended.
    pub stty_after: String,
    /// The screen after `q`.
    pub quit: Screen,
}

impl TuiRun {
    fn load(dir: &Path) -> TuiRun {
        let read = |name: &str| fs::read_to_string(dir.join(name)).unwrap_or_default();
        TuiRun {
            rc: read("rc").trim().parse().ok(),
            stderr: read("stderr.txt"),
            stty_after: read("stty-after.txt"),
            quit: Screen::load(&dir.join("quit.txt")).unwrap_or_default(),
        }
    }

    /// Whether `stty -a` shows the terminal in cooked mode (`icanon`, `echo`).
    pub fn cooked(&self) -> bool {
        let words: Vec<&str> = self.stty_after.split_whitespace().collect();
        words.contains(&"icanon") && words.contains(&"echo")
    }
}

/// `tui/`: the main screen, then the ERROR-QP pane between two `rdma` dumps (of
/// QPs, PDs and contexts), then the first device's view and a third dump, then `q`.
#[derive(Clone, Debug)]
pub struct Tui {
    pub run: TuiRun,
    pub main: Screen,
    pub errors: Screen,
    pub before: Snapshot,
    pub after: Snapshot,
    /// The device view of the first device, and `rdma` right after it.
    pub device: Result<(Screen, Snapshot), String>,
}

impl Tui {
    pub fn load(dir: &Path) -> Result<Tui, String> {
        let types = &["qp", "pd", "ctx"];
        Ok(Tui {
            run: TuiRun::load(dir),
            main: Screen::load(&dir.join("main.txt"))?,
            errors: Screen::load(&dir.join("errors.txt"))?,
            before: Snapshot::load_types(
                &dir.join("rdma-before"),
                &dir.join("tasks-before.tsv"),
                types,
            )?,
            after: Snapshot::load_types(
                &dir.join("rdma-after"),
                &dir.join("tasks-after.tsv"),
                types,
            )?,
            device: Screen::load(&dir.join("device.txt")).and_then(|screen| {
                let rdma = Snapshot::load_types(
                    &dir.join("rdma-device"),
                    &dir.join("tasks-device.tsv"),
                    types,
                )?;
                Ok((screen, rdma))
            }),
        })
    }
}

/// `churn/`: restop runs while objects and processes come and go.
#[derive(Clone, Debug)]
pub struct Churn {
    pub json: Vec<(String, Run)>,
    pub once: Vec<(String, Run)>,
    /// The churn workload's closing line: rounds, qps_created, qps_to_err, ...
    pub stats: BTreeMap<String, u64>,
    /// The churn workload's pid.
    pub churn_pid: Option<u32>,
    /// Pids of the short-lived processes that got as far as printing theirs.
    pub flash_pids: Vec<u32>,
    /// How many short-lived processes were started.
    pub flash_started: u64,
}

impl Churn {
    pub fn load(dir: &Path, procs: &Path) -> Result<Churn, String> {
        if !dir.is_dir() {
            return Err(format!("{}: no such folder", dir.display()));
        }
        let read = |path: &Path| fs::read_to_string(path).unwrap_or_default();
        let stats = read(&dir.join("churn.log"))
            .split_whitespace()
            .filter_map(|w| {
                let (k, v) = w.split_once('=')?;
                Some((k.to_string(), v.parse().ok()?))
            })
            .collect();
        let churn_pid = read(&procs.join("pids.tsv")).lines().find_map(|l| {
            let mut f = l.split('\t');
            let pid = f.next()?.parse().ok()?;
            (f.next()? == "churn").then_some(pid)
        });
        let flash_pids = read(&dir.join("flash.log"))
            .lines()
            .filter_map(|l| {
                l.strip_prefix("process pid=")?
                    .split(' ')
                    .next()?
                    .parse()
                    .ok()
            })
            .collect();
        Ok(Churn {
            json: Run::series(dir, "json"),
            once: Run::series(dir, "once"),
            stats,
            churn_pid,
            flash_pids,
            flash_started: read(&dir.join("flash.count")).trim().parse().unwrap_or(0),
        })
    }
}

/// `vanish/`: `rdma link delete rxe1` while restop runs.
#[derive(Clone, Debug)]
pub struct Vanish {
    /// Before the delete (its users already stopped) and after it.
    pub before: Snapshot,
    pub after: Snapshot,
    /// `restop --json` back to back across the delete.
    pub json: Vec<(String, Run)>,
    pub delete_rc: Option<i32>,
    pub delete_stderr: String,
    /// Guest uptime (s) when the delete started and ended.
    pub delete_window: Option<(f64, f64)>,
    /// The interactive view (`-d 500ms`) across the delete.
    pub tui: TuiRun,
    pub tui_before: Screen,
    pub tui_after: Screen,
}

impl Vanish {
    pub fn load(dir: &Path) -> Result<Vanish, String> {
        let read = |name: &str| fs::read_to_string(dir.join(name)).unwrap_or_default();
        let tui = dir.join("tui");
        Ok(Vanish {
            before: Snapshot::load(&dir.join("rdma-before"), &dir.join("tasks-before.tsv"))?,
            after: Snapshot::load(&dir.join("rdma-after"), &dir.join("tasks-after.tsv"))?,
            json: Run::series(dir, "json"),
            delete_rc: read("delete.rc").trim().parse().ok(),
            delete_stderr: read("delete.stderr"),
            delete_window: read("delete.uptime")
                .trim()
                .split_once(' ')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?))),
            tui: TuiRun::load(&tui),
            tui_before: Screen::load(&tui.join("before.txt"))?,
            tui_after: Screen::load(&tui.join("after.txt"))?,
        })
    }
}
