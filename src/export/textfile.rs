//! Writing the exposition for node_exporter's textfile collector: readers see
//! the old file or the new one, never a half-written one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: into a temporary file in the same
/// directory (a rename is atomic only within one filesystem), flushed to disk,
/// then renamed over `path`.
///
/// The temporary name starts with a dot and does not end in `.prom`, so the
/// textfile collector never reads it, and carries the pid, so two writers
/// never share one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = temp_path(path)?;
    let result = write_and_rename(&temp, path, bytes);
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

fn write_and_rename(temp: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(temp)?;
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

/// `dir/.name.<pid>.tmp` next to `dir/name`.
pub fn temp_path(path: &Path) -> io::Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} does not name a file", path.display()),
        )
    })?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".{}.tmp", std::process::id()));
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
        let temp = temp_path(Path::new("/var/lib/node/restop.prom")).unwrap();
        let name = temp.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".restop.prom."), "{name}");
        assert!(name.ends_with(".tmp"));
        assert_eq!(temp.parent(), Some(Path::new("/var/lib/node")));
        assert_eq!(
            temp_path(Path::new("x.prom")).unwrap().parent(),
            Some(Path::new("."))
        );
        assert!(temp_path(Path::new("/")).is_err());
    }

    #[test]
    fn a_missing_directory_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_atomically(&dir.path().join("nope/restop.prom"), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
