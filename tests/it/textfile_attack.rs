//! `--textfile` and `--record` in a directory another user can write to,
//! with restop running as root: a symlink or a file planted where restop
//! writes never redirects its writes, and the files restop leaves have the
//! owner and mode it chose. The directory is sticky (as `/tmp`): one without
//! the sticky bit, or sticky but another user's, is refused outright
//! (`harden_textfile`).

use restop::export::textfile::write_atomically;
use restop::model::SourceKind;
use restop::record::RecordWriter;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::Path;
use std::time::Duration;

/// A world-writable sticky directory of restop's user, like `/tmp`.
fn shared_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o1777)).unwrap();
    dir
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Defect: the temporary file was `.NAME.<pid>.tmp`, opened with create and
/// truncate, so a symlink planted there made root overwrite its target.
#[test]
fn a_symlink_planted_at_the_old_temporary_name_is_never_followed() {
    let dir = shared_dir();
    let victim = dir.path().join("victim");
    fs::write(&victim, b"precious\n").unwrap();
    let path = dir.path().join("restop.prom");
    let planted = dir
        .path()
        .join(format!(".restop.prom.{}.tmp", std::process::id()));
    symlink(&victim, &planted).unwrap();
    write_atomically(&path, b"restop_up 1\n").unwrap();
    assert_eq!(fs::read(&victim).unwrap(), b"precious\n");
    assert_eq!(fs::read(&path).unwrap(), b"restop_up 1\n");
    assert!(fs::symlink_metadata(&path).unwrap().file_type().is_file());
}

/// Defect: a temporary file another user created in advance was reused, so
/// the metrics file ended up owned (and writable) by that user.
#[test]
fn a_pre_created_temporary_file_does_not_give_its_owner_the_metrics_file() {
    let dir = shared_dir();
    let path = dir.path().join("restop.prom");
    let planted = dir
        .path()
        .join(format!(".restop.prom.{}.tmp", std::process::id()));
    fs::write(&planted, b"").unwrap();
    fs::set_permissions(&planted, fs::Permissions::from_mode(0o666)).unwrap();
    let me = nix::unistd::geteuid().as_raw();
    let other = if me == 0 {
        nix::unistd::chown(&planted, Some(65534.into()), Some(65534.into())).unwrap();
        65534
    } else {
        me
    };
    assert_eq!(fs::metadata(&planted).unwrap().uid(), other);
    write_atomically(&path, b"restop_up 1\n").unwrap();
    let meta = fs::metadata(&path).unwrap();
    assert_eq!(meta.uid(), me, "the metrics file is restop's own");
    assert_eq!(meta.mode() & 0o7777, 0o644);
    // The planted file is left alone (it is not restop's to remove).
    assert_eq!(fs::read(&planted).unwrap(), b"");
}

/// A symlink at the final name is neither followed nor replaced: refused.
#[test]
fn a_symlink_at_the_final_name_is_refused_not_followed() {
    let dir = shared_dir();
    let victim = dir.path().join("victim");
    fs::write(&victim, b"precious\n").unwrap();
    let path = dir.path().join("restop.prom");
    symlink(&victim, &path).unwrap();
    let err = write_atomically(&path, b"restop_up 1\n").unwrap_err();
    assert!(err.to_string().contains("is a symbolic link"), "{err}");
    assert_eq!(fs::read(&victim).unwrap(), b"precious\n");
    assert!(
        fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        names(dir.path()),
        ["restop.prom", "victim"],
        "no temporary left"
    );
}

#[test]
fn the_mode_is_0644_whatever_the_umask_and_no_temporary_is_left() {
    let dir = shared_dir();
    let path = dir.path().join("restop.prom");
    let old = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o077));
    let written = write_atomically(&path, b"a 1\n");
    nix::sys::stat::umask(old);
    written.unwrap();
    assert_eq!(fs::metadata(&path).unwrap().mode() & 0o7777, 0o644);
    assert_eq!(names(dir.path()), ["restop.prom"]);
}

fn record(path: &Path) -> Result<RecordWriter, String> {
    RecordWriter::open(path, SourceKind::Demo, Duration::from_secs(1)).map_err(|e| e.to_string())
}

/// Defect: `--record` followed a symlink at its path and appended a
/// recording header to the target.
#[test]
fn record_refuses_a_symlink_a_hard_link_and_another_users_file() {
    let dir = shared_dir();
    let victim = dir.path().join("victim");
    fs::write(&victim, b"precious\n").unwrap();

    let link = dir.path().join("link.rec");
    symlink(&victim, &link).unwrap();
    let err = record(&link).unwrap_err();
    assert!(err.contains("is a symbolic link"), "{err}");

    let hard = dir.path().join("hard.rec");
    fs::hard_link(&victim, &hard).unwrap();
    let err = record(&hard).unwrap_err();
    assert!(err.contains("hard links"), "{err}");
    assert_eq!(fs::read(&victim).unwrap(), b"precious\n");

    if nix::unistd::geteuid().is_root() {
        let theirs = dir.path().join("theirs.rec");
        fs::write(&theirs, b"").unwrap();
        nix::unistd::chown(&theirs, Some(65534.into()), Some(65534.into())).unwrap();
        let err = record(&theirs).unwrap_err();
        assert!(err.contains("belongs to uid 65534"), "{err}");
        assert_eq!(fs::read(&theirs).unwrap(), b"");
    }
}

#[test]
fn a_new_recording_is_private_whatever_the_umask() {
    let dir = shared_dir();
    let path = dir.path().join("new.rec");
    let old = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o000));
    let writer = record(&path);
    nix::sys::stat::umask(old);
    drop(writer.unwrap());
    assert_eq!(fs::metadata(&path).unwrap().mode() & 0o7777, 0o600);
}
