//! Writing the exposition for node_exporter's textfile collector: readers see
//! the old file or the new one, never a half-written one.
//!
//! The textfile directory is often writable by others (a shared
//! `/var/lib/node_exporter`), and restop often runs as root, so the
//! temporary file is never one someone else could have prepared: it gets an
//! unpredictable name, is created exclusively (`O_EXCL`: an existing file or
//! a planted symlink makes the open fail, and another name is tried), is
//! never reached through a symlink (`O_NOFOLLOW`), and gets its mode set
//! explicitly. The rename replaces whatever is at the final name (a symlink
//! there is replaced, never followed), so the metrics file is always
//! restop's own, mode 0644.
//!
//! What remains: in a directory where others may rename files (writable by
//! them and without the sticky bit), another user can still swap the
//! finished temporary file before the rename. docs/exporter.md says to use a
//! directory only restop (or root) can write to, or one with the sticky bit.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The final file's mode: readable by the textfile collector, whoever runs it.
pub const TEXTFILE_MODE: u32 = 0o644;

/// Names tried before giving up: each one collides only if someone created
/// exactly that name, so more than one failure means an attack or a bug.
const NAME_ATTEMPTS: usize = 8;

/// Writes `bytes` to `path` atomically: into a new temporary file in the same
/// directory (a rename is atomic only within one filesystem), flushed to disk,
/// then renamed over `path`.
///
/// The temporary name starts with a dot and does not end in `.prom`, so the
/// textfile collector never reads it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (temp, file) = create_temp(path)?;
    let result = write_and_rename(file, &temp, path, bytes);
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Creates a fresh temporary file next to `path`, never opening one that
/// already exists and never following a symlink.
fn create_temp(path: &Path) -> io::Result<(PathBuf, File)> {
    let mut last = None;
    for _ in 0..NAME_ATTEMPTS {
        let temp = temp_path(path, &random_suffix()?)?;
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(TEXTFILE_MODE)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC)
            .open(&temp)
        {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary name left")))
}

fn write_and_rename(mut file: File, temp: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    // The umask must not decide who may read the metrics.
    file.set_permissions(fs::Permissions::from_mode(TEXTFILE_MODE))?;
    file.write_all(bytes)?;
    // Data on disk before the rename, so a crash never leaves an empty file
    // under the final name.
    file.sync_all()?;
    drop(file);
    fs::rename(temp, path)?;
    // Persist the rename itself; not all filesystems allow syncing a
    // directory, and the file is already complete either way.
    if let Ok(dir) = File::open(directory_of(path)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// 64 random bits from the kernel, as hex: a name nobody can guess ahead.
fn random_suffix() -> io::Result<String> {
    let mut bytes = [0u8; 8];
    File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `dir/.name.<suffix>.tmp` next to `dir/name`.
pub fn temp_path(path: &Path, suffix: &str) -> io::Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} does not name a file", path.display()),
        )
    })?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".{suffix}.tmp"));
    Ok(directory_of(path).join(temp_name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("restop.prom");
        write_atomically(&path, b"a 1\n").unwrap();
        write_atomically(&path, b"a 2\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"a 2\n");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["restop.prom"]);
    }

    #[test]
    fn temporary_name_is_hidden_and_not_prom() {
        let temp = temp_path(Path::new("/var/lib/node/restop.prom"), "ab12").unwrap();
        let name = temp.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".restop.prom."), "{name}");
        assert!(name.ends_with(".tmp"));
        assert_eq!(temp.parent(), Some(Path::new("/var/lib/node")));
        assert_eq!(
            temp_path(Path::new("x.prom"), "1").unwrap().parent(),
            Some(Path::new("."))
        );
        assert!(temp_path(Path::new("/"), "1").is_err());
        let (a, b) = (random_suffix().unwrap(), random_suffix().unwrap());
        assert_eq!(a.len(), 16);
        assert_ne!(a, b);
    }

    #[test]
    fn a_missing_directory_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_atomically(&dir.path().join("nope/restop.prom"), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
