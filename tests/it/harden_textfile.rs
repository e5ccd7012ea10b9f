//! `export --textfile` replaces only its own file, and publishes only in a
//! directory nobody else can swap files in; `--record` records only there.
//! Through the binary, as root where the machine allows (a device node,
//! another user's sticky directory).
//!
//! Defects: a character device, a symlink and a regular text file were each
//! replaced (rc 0) — as root `--textfile /dev/full --once` replaced the
//! host's `/dev/full`; in another user's 1777 directory that user could swap
//! their own file in before the rename, silently.

use std::fs;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output};

fn export_once(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(["export", "--demo", "--textfile"])
        .arg(path)
        .arg("--once")
        .output()
        .unwrap()
}

fn refused(path: &Path, says: &str) {
    let out = export_once(path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}: {stderr}", path.display());
    assert!(stderr.contains(says), "{}: {stderr}", path.display());
}

#[test]
fn a_device_a_symlink_a_foreign_file_and_a_wrong_name_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    fs::write(&victim, b"precious\n").unwrap();

    let link = dir.path().join("link.prom");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    refused(
        &link,
        "link.prom is a symbolic link; restop replaces only a regular file it wrote",
    );
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );

    let foreign = dir.path().join("node.prom");
    fs::write(&foreign, b"node_thing 1\n").unwrap();
    refused(&foreign, "node.prom is a file restop did not write");
    assert_eq!(fs::read(&foreign).unwrap(), b"node_thing 1\n");

    refused(&victim, "victim.txt does not end in .prom");
    assert_eq!(fs::read(&victim).unwrap(), b"precious\n");

    if nix::unistd::geteuid().is_root() {
        // A copy of /dev/full's node, named as a textfile.
        let device = dir.path().join("full.prom");
        let dev = nix::sys::stat::makedev(1, 7);
        nix::sys::stat::mknod(
            &device,
            nix::sys::stat::SFlag::S_IFCHR,
            nix::sys::stat::Mode::from_bits_truncate(0o666),
            dev,
        )
        .unwrap();
        refused(&device, "full.prom is a character device");
        assert!(fs::metadata(&device).unwrap().file_type().is_char_device());
    }

    // Its own file is replaced, again and again.
    let own = dir.path().join("restop.prom");
    for _ in 0..2 {
        let out = export_once(&own);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(fs::read(&own).unwrap().starts_with(b"# HELP restop_"));
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    names.sort();
    assert_eq!(names, Vec::<String>::new(), "no temporary left");
}

#[test]
fn directories_others_can_swap_files_in_are_refused_for_textfile_and_record() {
    let dir = tempfile::tempdir().unwrap();
    let open = dir.path().join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    refused(
        &open.join("restop.prom"),
        "(mode 0777) is not safe for the textfile: other users can write to it without the sticky bit",
    );
    let rec = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(["--demo", "--once", "--record"])
        .arg(open.join("r.rec"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&rec.stderr);
    assert_eq!(rec.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is not safe for a recording"), "{stderr}");
    assert_eq!(fs::read_dir(&open).unwrap().count(), 0, "nothing written");

    let sticky = dir.path().join("sticky");
    fs::create_dir(&sticky).unwrap();
    fs::set_permissions(&sticky, fs::Permissions::from_mode(0o1777)).unwrap();
    assert!(
        export_once(&sticky.join("restop.prom")).status.success(),
        "sticky and restop's own"
    );

    if nix::unistd::geteuid().is_root() {
        nix::unistd::chown(&sticky, Some(65534.into()), Some(65534.into())).unwrap();
        refused(
            &sticky.join("restop.prom"),
            "(mode 1777) is not safe for the textfile: it is sticky but owned by uid 65534",
        );
    }
}

/// `--force` takes over a regular file restop did not write (an older
/// exporter's), and still refuses everything that is not a regular file.
#[test]
fn force_replaces_a_foreign_regular_file_and_still_refuses_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let forced = |path: &Path| {
        Command::new(env!("CARGO_BIN_EXE_restop"))
            .args(["export", "--demo", "--once", "--force", "--textfile"])
            .arg(path)
            .output()
            .unwrap()
    };
    let foreign = dir.path().join("node.prom");
    fs::write(&foreign, b"node_thing 1\n").unwrap();
    refused(&foreign, "replace it with --force");
    let out = forced(&foreign);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(fs::read(&foreign).unwrap().starts_with(b"# HELP restop_"));

    let victim = dir.path().join("victim.txt");
    fs::write(&victim, b"precious\n").unwrap();
    let link = dir.path().join("link.prom");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let out = forced(&link);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is a symbolic link"), "{stderr}");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read(&victim).unwrap(), b"precious\n");
    let out = forced(&victim);
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not end in .prom"));
    assert_eq!(fs::read(&victim).unwrap(), b"precious\n");
}
