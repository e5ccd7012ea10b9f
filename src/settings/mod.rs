//! One validated set of settings for a run of restop: what the command line
//! asked for, over the defaults of the config file, over restop's own
//! defaults. Every mode (interactive, `--once`, `--batch`, `export`) reads its
//! options from here and nowhere else, so a value is validated once.
//!
//! `duration` is the one duration parser (command line and config file);
//! `file` parses the config file; `locate` finds and reads it.

pub mod duration;
pub mod file;
pub mod locate;
pub mod values;

use crate::app::AppConfig;
use crate::collect::LiveOptions;
use crate::export::ExportArgs;
use crate::model::Thresholds;
use crate::model::filter::Filter;
use crate::model::history::HistoryConfig;
use crate::output::OnceOptions;
use crate::ui::theme::ThemeKind;
use std::path::PathBuf;
use std::time::Duration;

pub use duration::{format_duration, parse_duration, parse_offset};
pub use file::{ConfigError, Defaults, parse_config};

/// What restop does once the options are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Interactive,
    Once,
    Json,
    /// `--batch`: text reports every interval.
    Batch,
    /// `--batch --json`: JSON Lines.
    BatchJson,
    Export,
}

impl Mode {
    /// One collection, one rendering: `--once` or `--json`.
    pub fn is_once(self) -> bool {
        matches!(self, Mode::Once | Mode::Json)
    }
}

/// Where snapshots come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// This host's kernel and procfs.
    Live,
    /// The simulated host of this seed (`--demo --seed N`).
    Demo { seed: u64 },
    /// A recording made with `--record` (`--replay FILE`).
    Replay(PathBuf),
}

/// The source group: where snapshots come from and how often.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceSettings {
    pub origin: Origin,
    /// Time between collections (`-d`; the exporter's own default when it runs).
    pub interval: Duration,
    /// Longest wait for one netlink reply (`--timeout`).
    pub timeout: Duration,
    /// Minimum time between object dumps (`--objects-every`); zero: every collection.
    pub objects_every: Duration,
    /// Read limits through libibverbs (`--no-verbs` turns it off).
    pub verbs: bool,
    /// How far into its timeline the simulated host starts (`--demo-at`).
    pub demo_at: Duration,
}

impl Default for SourceSettings {
    fn default() -> Self {
        SourceSettings {
            origin: Origin::Live,
            interval: DEFAULT_INTERVAL,
            timeout: Duration::from_secs(5),
            objects_every: Duration::ZERO,
            verbs: true,
            demo_at: Duration::ZERO,
        }
    }
}

/// `-d` when nothing sets it (the exporter has its own, `export::DEFAULT_INTERVAL`).
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(2);

/// The interactive group: how the full-screen view draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InteractiveSettings {
    /// Capture the mouse (`--no-mouse`, `mouse = false`).
    pub mouse: bool,
    /// Use colours (`--no-color`, `color = false`, a non-empty `NO_COLOR`).
    pub color: bool,
    /// The palette (`--theme`, `theme = "light"`).
    pub theme: ThemeKind,
    /// Never send a signal (`--read-only`, `read_only = true`).
    pub read_only: bool,
}

impl Default for InteractiveSettings {
    fn default() -> Self {
        InteractiveSettings {
            mouse: true,
            color: true,
            theme: ThemeKind::Default,
            read_only: false,
        }
    }
}

/// Everything a run of restop was asked to do, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub mode: Mode,
    pub source: SourceSettings,
    /// `--record FILE`.
    pub record: Option<PathBuf>,
    /// `--batch -n N`: stop after N reports; `None`: until stopped.
    pub iterations: Option<u64>,
    /// `--rates`: with --once/--json, a second collection this long after the first.
    pub rates: Option<std::time::Duration>,
    /// `--dev`, `--pid`, `--type`, `--state`.
    pub filter: Filter,
    /// `--sort` (and its natural direction), `--top`, `--warn`, `--crit`, `--group`.
    pub report: OnceOptions,
    pub interactive: InteractiveSettings,
    /// `--retention`, `--trend-window`, `--err-linger`.
    pub history: HistoryConfig,
    /// `restop export`'s own options.
    pub export: Option<ExportArgs>,
    /// The config file the defaults came from, if one was read.
    pub config_file: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mode: Mode::Interactive,
            source: SourceSettings::default(),
            record: None,
            iterations: None,
            rates: None,
            filter: Filter::default(),
            report: OnceOptions::default(),
            interactive: InteractiveSettings::default(),
            history: HistoryConfig::default(),
            export: None,
            config_file: None,
        }
    }
}

impl Settings {
    pub fn thresholds(&self) -> Thresholds {
        self.report.thresholds
    }

    /// A replay is printed as fast as it is read; everything else waits
    /// for the interval between collections.
    pub fn paced(&self) -> bool {
        !matches!(self.source.origin, Origin::Replay(_))
    }

    /// What the interactive view starts with, with `NO_COLOR` applied.
    pub fn app_config(&self) -> AppConfig {
        AppConfig {
            interval: self.source.interval,
            filter: self.filter.clone(),
            sort: self.report.sort,
            direction: self.report.direction,
            group: self.report.group,
            thresholds: self.report.thresholds,
            color: self.interactive.color && !no_color_env(),
            mouse: self.interactive.mouse,
            theme: self.interactive.theme,
            read_only: self.interactive.read_only,
            history: self.history.clone(),
        }
    }

    /// How the live host is read.
    pub fn live_options(&self) -> LiveOptions {
        // In a container the node's /proc, /sys and /var/log are mounted under one
        // directory (docs/kubernetes.md): `RESTOP_HOST_ROOT=/host`.
        let host = std::env::var_os("RESTOP_HOST_ROOT")
            .filter(|root| !root.is_empty())
            .map(std::path::PathBuf::from);
        let defaults = LiveOptions::default();
        let under_host = |path: &std::path::Path| match &host {
            Some(root) => root.join(path.strip_prefix("/").unwrap_or(path)),
            None => path.to_path_buf(),
        };
        LiveOptions {
            proc_root: under_host(&defaults.proc_root),
            sys_root: under_host(&defaults.sys_root),
            kubelet_logs: under_host(&defaults.kubelet_logs),
            timeout: self.source.timeout,
            object_interval: self.source.objects_every,
            verbs: self.source.verbs,
            // Diagnostics on stderr only where stderr is not the drawn screen.
            print_notes: self.mode != Mode::Interactive
                && std::env::var_os("RESTOP_DEBUG").is_some(),
            ..defaults
        }
    }
}

/// True when the environment asks for no colour (<https://no-color.org>).
pub fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}
