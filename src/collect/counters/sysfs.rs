//! Counter files under `/sys/class/infiniband/<dev>/ports/<p>/`:
//! `counters/` (the standard PMA counters), `hw_counters/` (the driver
//! counters, for kernels without `STAT_GET`) and `rate` (link speed).
//!
//! A missing directory means the port has no such counters; a file that
//! exists but cannot be read or parsed is named in the result's problems,
//! and its counter is left out, never read as zero.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What one counter directory gave.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct CounterDir {
    /// Whether the directory exists at all.
    pub present: bool,
    pub values: BTreeMap<String, u64>,
    /// Files that could not be read, with why.
    pub problems: Vec<String>,
}

pub(crate) fn port_dir(sys_root: &Path, device: &str, port: u32) -> PathBuf {
    sys_root
        .join("class/infiniband")
        .join(device)
        .join("ports")
        .join(port.to_string())
}

/// Files that sit among the counters but are not counters.
const NOT_COUNTERS: &[&str] = &["lifespan"];

/// Reads every file of `dir` as one decimal counter.
pub(crate) fn read_counter_dir(dir: &Path) -> CounterDir {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return CounterDir::default(),
        Err(e) => {
            return CounterDir {
                present: true,
                problems: vec![format!("{}: {e}", dir.display())],
                ..CounterDir::default()
            };
        }
    };
    let mut out = CounterDir {
        present: true,
        ..CounterDir::default()
    };
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if NOT_COUNTERS.contains(&name.as_str()) || entry.path().is_dir() {
            continue;
        }
        match fs::read_to_string(entry.path()) {
            Ok(text) => match text.trim().parse::<u64>() {
                Ok(v) => {
                    out.values.insert(name, v);
                }
                Err(_) => out.problems.push(format!(
                    "{}: not a counter value: {:?}",
                    entry.path().display(),
                    text.trim()
                )),
            },
            Err(e) => out
                .problems
                .push(format!("{}: {e}", entry.path().display())),
        }
    }
    out
}

/// The port's `rate` file, trimmed; `None` when absent or unreadable.
pub(crate) fn read_rate(port_dir: &Path) -> Option<String> {
    let text = fs::read_to_string(port_dir.join("rate")).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_read_and_bad_files_are_named_not_zeroed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("counters");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("port_xmit_data"), "123456\n").unwrap();
        fs::write(dir.join("symbol_error"), "0\n").unwrap();
        fs::write(dir.join("garbage"), "N/A\n").unwrap();
        fs::write(dir.join("lifespan"), "10\n").unwrap();
        let got = read_counter_dir(&dir);
        assert!(got.present);
        assert_eq!(got.values.get("port_xmit_data"), Some(&123_456));
        assert_eq!(got.values.get("symbol_error"), Some(&0));
        assert!(!got.values.contains_key("garbage"));
        assert!(!got.values.contains_key("lifespan"));
        assert_eq!(got.problems.len(), 1);
        assert!(got.problems[0].contains("garbage"));
    }

    #[test]
    fn a_missing_directory_is_no_counters() {
        let tmp = tempfile::tempdir().unwrap();
        let got = read_counter_dir(&tmp.path().join("nope"));
        assert_eq!(got, CounterDir::default());
    }

    #[test]
    fn the_rate_file_is_trimmed() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("rate"), "100 Gb/sec (4X EDR)\n").unwrap();
        assert_eq!(
            read_rate(tmp.path()).as_deref(),
            Some("100 Gb/sec (4X EDR)")
        );
        assert_eq!(read_rate(&tmp.path().join("x")), None);
    }
}
