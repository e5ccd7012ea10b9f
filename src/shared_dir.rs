//! Whether a directory is safe to publish a file in: the two files restop
//! writes (`export --textfile`, `--record`) often land in shared places, and
//! restop often runs as root.
//!
//! In a directory others may write to, they can rename their own file over
//! the name restop is about to use, or over the file it just published. The
//! sticky bit stops them from touching restop's files, but not the
//! directory's owner, who may still rename anything in it. So a directory
//! writable by group or others is accepted only when it is sticky and owned
//! by root or by restop's own user (as `/tmp` is); every other directory
//! writable by them is refused, with what to do instead.

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

const WRITABLE_BY_OTHERS: u32 = 0o022;
const STICKY: u32 = 0o1000;

/// The directory `path` is in (`.` for a bare name).
pub(crate) fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `Ok` when no other user can swap files in `dir` (see the module docs);
/// the error names the directory and says why. `what` names the file for
/// the message (`the textfile`, `the recording`).
pub(crate) fn check(dir: &Path, what: &str) -> io::Result<()> {
    let meta = std::fs::metadata(dir)?;
    refusal(
        dir,
        what,
        meta.permissions().mode(),
        meta.uid(),
        nix::unistd::geteuid().as_raw(),
    )
    .map_or(Ok(()), |message| {
        Err(io::Error::new(io::ErrorKind::PermissionDenied, message))
    })
}

/// Why `dir` (with `mode`, owned by `owner`) is refused for restop running as `me`.
fn refusal(dir: &Path, what: &str, mode: u32, owner: u32, me: u32) -> Option<String> {
    if mode & WRITABLE_BY_OTHERS == 0 {
        return None;
    }
    if mode & STICKY != 0 && (owner == 0 || owner == me) {
        return None;
    }
    let why = if mode & STICKY != 0 {
        format!("it is sticky but owned by uid {owner}, who may still rename any file in it")
    } else {
        "other users can write to it without the sticky bit and could swap their own file in"
            .to_string()
    };
    Some(format!(
        "{} (mode {:04o}) is not safe for {what}: {why}; use a directory only restop's user \
         or root can write to, or one that is sticky and owned by root",
        dir.display(),
        mode & 0o7777
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_directories_nobody_else_can_swap_files_in_are_accepted() {
        let dir = Path::new("/d");
        let refused = |mode, owner| refusal(dir, "the textfile", mode, owner, 1000);
        assert_eq!(refused(0o755, 1000), None);
        assert_eq!(refused(0o700, 0), None);
        assert_eq!(refused(0o1777, 0), None, "/tmp");
        assert_eq!(refused(0o1777, 1000), None, "sticky and ours");
        let other = refused(0o1777, 1001).unwrap();
        assert!(
            other.starts_with(
                "/d (mode 1777) is not safe for the textfile: it is sticky but owned by uid 1001"
            ),
            "{other}"
        );
        let open = refused(0o777, 0).unwrap();
        assert!(open.contains("without the sticky bit"), "{open}");
        assert!(refused(0o775, 1000).is_some(), "group-writable");
    }

    #[test]
    fn a_bare_name_is_in_the_current_directory() {
        assert_eq!(directory_of(Path::new("x.prom")), PathBuf::from("."));
        assert_eq!(directory_of(Path::new("/a/x.prom")), PathBuf::from("/a"));
    }
}
