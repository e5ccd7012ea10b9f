//! Where the config file is, and reading it. A file named on purpose
//! (`--config FILE`, `RESTOP_CONFIG`) must exist; the default one
//! (`$XDG_CONFIG_HOME/restop/config.toml`, else `~/.config/restop/config.toml`)
//! may be absent.
//!
//! The file is read with bounds, as untrusted input: only a regular file
//! (a FIFO would block forever, a device never end), opened without
//! blocking, and at most [`MAX_CONFIG_BYTES`] of it (a real config is a few
//! KiB; `/dev/zero` would otherwise grow restop without limit).

use super::file::{Defaults, parse_config};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Far above any real config file (every option with a comment is ~2 KiB).
pub const MAX_CONFIG_BYTES: u64 = 64 << 10;

/// A config file read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    pub path: PathBuf,
    pub defaults: Defaults,
}

/// The default place of the config file, from the environment.
pub(crate) fn default_path() -> Option<PathBuf> {
    default_path_from(
        std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
}

/// The XDG rule: `$XDG_CONFIG_HOME` when it is an absolute path, else `$HOME/.config`.
pub(crate) fn default_path_from(xdg: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
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
    let text = match read_bounded(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return Ok(None),
        Err(e) => return Err(format!("config file {}: {e}", path.display())),
    };
    let defaults =
        parse_config(&text).map_err(|e| format!("config file {}, {e}", path.display()))?;
    Ok(Some(Loaded { path, defaults }))
}

/// The text of the regular file at `path`, refusing anything else and
/// anything longer than `MAX_CONFIG_BYTES`.
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind};
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if let Some(what) = crate::file_kind::not_regular(kind) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("it is {what}; a config file must be a regular file"),
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!(
                "larger than {} KiB: not a restop config file",
                MAX_CONFIG_BYTES >> 10
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "not UTF-8 text"))
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

    /// Defect: `--config /dev/zero` grew without bound, a FIFO blocked forever.
    #[test]
    fn only_a_bounded_regular_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let err = load(Some(Path::new("/dev/zero"))).unwrap_err();
        assert_eq!(
            err,
            "config file /dev/zero: it is a character device; a config file must be a regular file"
        );
        let fifo = dir.path().join("fifo.toml");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let err = load(Some(&fifo)).unwrap_err();
        assert!(
            err.ends_with("fifo.toml: it is a FIFO; a config file must be a regular file"),
            "{err}"
        );
        let err = load(Some(dir.path())).unwrap_err();
        assert!(err.contains("it is a directory"), "{err}");
        let big = dir.path().join("big.toml");
        let mut text = "# padding\n".repeat(7000);
        text.push_str("[source]\ninterval = \"1m\"\n");
        std::fs::write(&big, &text).unwrap();
        let err = load(Some(&big)).unwrap_err();
        assert!(
            err.ends_with("big.toml: larger than 64 KiB: not a restop config file"),
            "{err}"
        );
        let near = dir.path().join("near.toml");
        std::fs::write(&near, &text[10_000..]).unwrap();
        assert!(load(Some(&near)).is_ok());
    }
}
