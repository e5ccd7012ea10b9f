//! One validated set of settings for a run of restop: what the command line
//! asked for, over the defaults of the config file, over restop's own
//! defaults. Every mode (interactive, `--once`, `--batch`, `export`) reads its
//! options from here and nowhere else, so a value is validated once.
//!
//! The settings are plain groups, one per concern, each with its defaults
//! written once in its `Default`: `source` (where snapshots come from, how
//! often), `filter` (the model's `Filter`), `report` (`report.rs`),
//! `interactive` (`interactive.rs`), `trends` (the model's `HistoryConfig`)
//! and `export` (`export.rs`). Each reader takes the groups it needs; a new
//! mode or front end adds a group (a file here, a field of [`Settings`]).
//! Nothing here knows its readers: `settings` imports only the model and the
//! live source's own defaults.
//!
//! `duration` is the one duration parser (command line and config file);
//! `values` the other shared value parsers; `file` parses the config file;
//! `locate` finds and reads it.

pub(crate) mod duration;
pub(crate) mod export;
pub(crate) mod file;
pub(crate) mod interactive;
pub(crate) mod listen;
pub mod locate;
pub(crate) mod report;
pub(crate) mod source;
pub(crate) mod values;

use crate::model::filter::Filter;
use crate::model::history::HistoryConfig;
use std::path::PathBuf;

pub use duration::{format_duration, parse_duration, parse_offset};
pub use export::{ExportSettings, ExportTarget};
pub use file::{ConfigError, Defaults, parse_config};
pub use interactive::{InteractiveSettings, ThemeKind, locale_env_is_not_utf8, no_color_env};
pub use report::ReportSettings;
pub use source::{DEFAULT_INTERVAL, DemoDevices, Origin, SourceSettings, parse_demo_devices};

/// What restop does once the options are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Interactive,
    Once,
    Json,
    /// `--batch`: text reports every interval.
    Batch,
    /// `--batch --json`: JSON Lines.
    BatchJson,
    Export,
}

impl Mode {}

/// Everything a run of restop was asked to do, validated.
#[derive(Clone, Debug, Default, PartialEq)]
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
    pub report: ReportSettings,
    pub interactive: InteractiveSettings,
    /// The trends group: `--retention`, `--trend-window`, `--err-linger`.
    pub trends: HistoryConfig,
    /// `restop export`'s own options (read only in [`Mode::Export`]).
    pub export: ExportSettings,
    /// The config file the defaults came from, if one was read.
    pub config_file: Option<PathBuf>,
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::Path;

    /// Every `crate::<module>` that the `.rs` files under `dir` name.
    pub(crate) fn crate_modules_named(dir: &Path) -> Vec<(String, String)> {
        let mut found = Vec::new();
        let mut dirs = vec![dir.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (at, _) in text.match_indices("crate::") {
                    let name: String = text[at + "crate::".len()..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    // This test's own text names the prefix alone.
                    if !name.is_empty() {
                        found.push((path.display().to_string(), name));
                    }
                }
            }
        }
        found
    }

    /// Settings sit below their readers: they name the model (and the live
    /// source's defaults), never a front end. An allow list, so a new front
    /// end is kept out without being named here.
    #[test]
    fn settings_import_no_reader() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/settings");
        for (file, module) in crate_modules_named(&dir) {
            assert!(
                ["model", "collect", "settings", "file_kind"].contains(&module.as_str()),
                "{file} imports crate::{module}"
            );
        }
    }
}
