//! Where the config file is, and reading it. A file named on purpose
//! (`--config FILE`, `RESTOP_CONFIG`) must exist; the default one
//! (`$XDG_CONFIG_HOME/restop/config.toml`, else `~/.config/restop/config.toml`)
//! may be absent.

use super::file::{Defaults, parse_config};
use std::path::{Path, PathBuf};

/// A config file read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    pub path: PathBuf,
    pub defaults: Defaults,
}

/// The default place of the config file, from the environment.
pub fn default_path() -> Option<PathBuf> {
    default_path_from(
        std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
}

/// The XDG rule: `$XDG_CONFIG_HOME` when it is an absolute path, else `$HOME/.config`.
pub fn default_path_from(xdg: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
    let base = match xdg {
        Some(dir) if dir.is_absolute() => dir,
        _ => home.filter(|h| h.is_absolute())?.join(".config"),
    };
    Some(base.join("restop").join("config.toml"))
}

/// Reads the file named on purpose, or else the default one when it exists.
/// `Ok(None)`: no file to read. Every error names the file (and the line).
pub fn load(explicit: Option<&Path>) -> Result<Option<Loaded>, String> {
    let (path, required) = match explicit {
        Some(path) => (path.to_path_buf(), true),
        None => match default_path() {
            Some(path) => (path, false),
            None => return Ok(None),
        },
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return Ok(None),
        Err(e) => return Err(format!("config file {}: {e}", path.display())),
    };
    let defaults =
        parse_config(&text).map_err(|e| format!("config file {}, {e}", path.display()))?;
    Ok(Some(Loaded { path, defaults }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xdg_config_home_wins_when_absolute() {
        let p = default_path_from(Some("/x".into()), Some("/home/a".into()));
        assert_eq!(p, Some(PathBuf::from("/x/restop/config.toml")));
        let p = default_path_from(Some("relative".into()), Some("/home/a".into()));
        assert_eq!(p, Some(PathBuf::from("/home/a/.config/restop/config.toml")));
        assert_eq!(default_path_from(None, None), None);
    }

    #[test]
    fn a_named_file_must_exist_and_errors_name_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.toml");
        let err = load(Some(&missing)).unwrap_err();
        assert!(err.contains("nope.toml"), "{err}");
        let bad = dir.path().join("bad.toml");
        std::fs::write(&bad, "[report]\nsort = \"colour\"\n").unwrap();
        let err = load(Some(&bad)).unwrap_err();
        assert!(err.contains("bad.toml, line 2"), "{err}");
        let good = dir.path().join("good.toml");
        std::fs::write(&good, "[source]\ninterval = \"1m30s\"\n").unwrap();
        let loaded = load(Some(&good)).unwrap().unwrap();
        assert_eq!(
            loaded.defaults.interval,
            Some(std::time::Duration::from_secs(90))
        );
    }
}
