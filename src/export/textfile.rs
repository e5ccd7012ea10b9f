//! Writing the exposition for node_exporter's textfile collector: readers see
//! the old file or the new one, never a half-written one.
//!
//! The textfile directory is often shared (`/var/lib/prometheus/node-exporter`),
//! and restop often runs as root, so before every write it checks what it is
//! about to replace, and after the rename what it published:
//!
//! - The name must end in `.prom` (what the collector reads), and the
//!   directory must be one nobody else can swap files in (`shared_dir`):
//!   not writable by group or others, unless sticky and owned by root or by
//!   restop's user.
//! - What is at the name now must be absent, empty, or a regular file restop
//!   wrote (it starts with restop's first metric family). A symlink, a
//!   device (`--textfile /dev/full` as root), a FIFO, a directory or someone
//!   else's file is refused and left alone. `--force` (`Replace::AnyFile`)
//!   lets restop take over a regular file it did not write (an older
//!   exporter's, say); never anything but a regular file.
//! - The temporary file gets an unpredictable name, is created exclusively
//!   (`O_EXCL`: an existing file or a planted symlink makes the open fail,
//!   and another name is tried), is never reached through a symlink
//!   (`O_NOFOLLOW`), and gets mode 0644 explicitly.
//! - After the rename, the file at the name must be the very inode restop
//!   wrote (`lstat` of the name against `fstat` of the open temporary file):
//!   a file swapped in by whoever can still rename in the directory (its
//!   owner) is reported, never passed off as restop's.

use crate::shared_dir::{self, directory_of};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// How every file restop writes begins (its first metric family): how
/// restop recognises a file it may replace.
pub(crate) const RESTOP_TEXTFILE_START: &[u8] = b"# HELP restop_";

/// The final file's mode: readable by the textfile collector, whoever runs it.
pub(crate) const TEXTFILE_MODE: u32 = 0o644;

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
    write_replacing(path, bytes, Replace::OwnFile)
}

/// What a write may replace at its name, besides nothing or an empty file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Replace {
    /// Only a file restop wrote.
    #[default]
    OwnFile,
    /// Any regular file (`--force`).
    AnyFile,
}

/// `write_atomically`, with `replace` saying which regular files it may replace.
pub(crate) fn write_replacing(path: &Path, bytes: &[u8], replace: Replace) -> io::Result<()> {
    check_target_for(path, replace)?;
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
    fs::rename(temp, path)?;
    check_published(path, &file)?;
    // Persist the rename itself; not all filesystems allow syncing a
    // directory, and the file is already complete either way.
    if let Ok(dir) = File::open(directory_of(path)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

fn refused(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, message)
}

/// `check_target`, with `replace` saying which regular files may be replaced.
pub(crate) fn check_target_for(path: &Path, replace: Replace) -> io::Result<()> {
    let shown = path.display();
    if path.extension().is_none_or(|ext| ext != "prom") {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{shown} does not end in .prom: node_exporter reads only *.prom files"),
        ));
    }
    shared_dir::check(&directory_of(path), "the textfile")?;
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let kind = meta.file_type();
    let what = if let Some(what) = crate::file_kind::not_regular(kind) {
        what
    } else if meta.len() == 0 || replace == Replace::AnyFile || written_by_restop(path)? {
        return Ok(());
    } else {
        return Err(refused(format!(
            "{shown} is a file restop did not write (it does not start with restop's metrics); \
             restop replaces only its own textfile: remove it, choose another name, or \
             replace it with --force"
        )));
    };
    Err(refused(format!(
        "{shown} is {what}; restop replaces only a regular file it wrote"
    )))
}

/// Whether the regular file at `path` starts as every textfile restop writes.
fn written_by_restop(path: &Path) -> io::Result<bool> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
        .open(path)?;
    let mut start = Vec::with_capacity(RESTOP_TEXTFILE_START.len());
    file.take(RESTOP_TEXTFILE_START.len() as u64)
        .read_to_end(&mut start)?;
    Ok(start == RESTOP_TEXTFILE_START)
}

/// After the rename: the name must hold the inode restop wrote.
pub(crate) fn check_published(path: &Path, written: &File) -> io::Result<()> {
    let ours = written.metadata()?;
    let there = fs::symlink_metadata(path)?;
    if (there.dev(), there.ino()) == (ours.dev(), ours.ino()) {
        return Ok(());
    }
    Err(refused(format!(
        "{} is not the file restop wrote: another file was renamed over it (uid {} can rename \
         files in {}); use a directory only restop's user or root can write to",
        path.display(),
        there.uid(),
        directory_of(path).display()
    )))
}

/// 64 random bits from the kernel, as hex: a name nobody can guess ahead.
fn random_suffix() -> io::Result<String> {
    let mut bytes = [0u8; 8];
    File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `dir/.name.<suffix>.tmp` next to `dir/name`.
pub(crate) fn temp_path(path: &Path, suffix: &str) -> io::Result<PathBuf> {
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
    fn force_replaces_a_foreign_regular_file_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let foreign = dir.path().join("old.prom");
        fs::write(&foreign, b"node_old_metric 1\n").unwrap();
        let err = write_atomically(&foreign, b"# HELP restop_a 1\n").unwrap_err();
        assert!(err.to_string().contains("replace it with --force"), "{err}");
        assert_eq!(fs::read(&foreign).unwrap(), b"node_old_metric 1\n");
        write_replacing(&foreign, b"# HELP restop_a 1\n", Replace::AnyFile).unwrap();
        assert_eq!(fs::read(&foreign).unwrap(), b"# HELP restop_a 1\n");

        let link = dir.path().join("link.prom");
        std::os::unix::fs::symlink(&foreign, &link).unwrap();
        let fifo = dir.path().join("fifo.prom");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let sub = dir.path().join("sub.prom");
        fs::create_dir(&sub).unwrap();
        for (path, what) in [
            (&link, "a symbolic link"),
            (&fifo, "a FIFO"),
            (&sub, "a directory"),
        ] {
            let err = write_replacing(path, b"# HELP restop_a 2\n", Replace::AnyFile).unwrap_err();
            assert!(err.to_string().contains(what), "{err}");
        }
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let err = write_replacing(&dir.path().join("x.txt"), b"x", Replace::AnyFile).unwrap_err();
        assert!(err.to_string().contains("does not end in .prom"), "{err}");
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("restop.prom");
        write_atomically(&path, b"# HELP restop_a 1\n").unwrap();
        write_atomically(&path, b"# HELP restop_a 2\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"# HELP restop_a 2\n");
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

    /// Defect: `--textfile /dev/full --once` as root replaced the host's
    /// `/dev/full`; a symlink and a text file were replaced as well.
    #[test]
    fn only_an_absent_empty_or_own_prom_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let err = |path: &Path| {
            write_atomically(path, b"# HELP restop_x\n")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(Path::new("/dev/full")),
            "/dev/full does not end in .prom: node_exporter reads only *.prom files"
        );
        let text = dir.path().join("notes.txt");
        assert!(
            err(&text).ends_with(
                "notes.txt does not end in .prom: node_exporter reads only *.prom files"
            )
        );
        let link = dir.path().join("link.prom");
        std::os::unix::fs::symlink("/dev/full", &link).unwrap();
        assert!(err(&link).ends_with(
            "link.prom is a symbolic link; restop replaces only a regular file it wrote"
        ));
        let fifo = dir.path().join("fifo.prom");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert!(err(&fifo).contains("is a FIFO"));
        let foreign = dir.path().join("other.prom");
        fs::write(&foreign, b"node_thing 1\n").unwrap();
        assert!(err(&foreign).contains("is a file restop did not write"));
        assert_eq!(fs::read(&foreign).unwrap(), b"node_thing 1\n");
        let empty = dir.path().join("empty.prom");
        fs::write(&empty, b"").unwrap();
        write_atomically(&empty, b"# HELP restop_x\n").unwrap();
        assert_eq!(fs::read(&empty).unwrap(), b"# HELP restop_x\n");
    }

    /// Defect: a file renamed over the temporary one before the rename was
    /// published silently as restop's.
    #[test]
    fn a_file_swapped_in_before_the_rename_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("restop.prom");
        let (temp, file) = create_temp(&path).unwrap();
        let theirs = dir.path().join("theirs");
        fs::write(&theirs, b"# HELP restop_fake 1\n").unwrap();
        fs::rename(&theirs, &temp).unwrap();
        fs::rename(&temp, &path).unwrap();
        let err = check_published(&path, &file).unwrap_err().to_string();
        assert!(
            err.contains(
                "restop.prom is not the file restop wrote: another file was renamed over it"
            ),
            "{err}"
        );
        fs::write(&path, b"x").unwrap();
        let (temp, file) = create_temp(&path).unwrap();
        fs::rename(&temp, &path).unwrap();
        check_published(&path, &file).unwrap();
    }
}
