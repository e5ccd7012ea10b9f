//! The packages' lifecycle with the real package managers, on this machine: the Debian
//! package and the RPM installed, upgraded, removed (and the .deb purged) in throwaway
//! roots. In a root with a shell and logging stand-ins for `systemctl` and
//! `deb-systemd-invoke`, the maintainer scripts' calls are checked at each step (what
//! systemd would be told); with dpkg's `--force-script-chrootless` the real
//! `deb-systemd-helper` keeps an administrator's enablement through an upgrade and a
//! purge removes it. Systemd itself running the unit through these steps is
//! `vm_lifecycle` (a guest whose PID 1 is systemd). Skipped without the packages (scripts/package-deb.sh,
//! scripts/package-rpm.sh) unless `RESTOP_DEPLOY_TESTS=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::deploy_artifacts::{artifact, deb, dist, ok, root};

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// An empty root with the C library, a shell, coreutils (the maintainer scripts run chrooted into
/// it) and `/dev/null`, dpkg's database, and `systemctl` and `deb-systemd-invoke`
/// stand-ins that append their arguments to `/calls.log`. `/run/systemd/system`
/// exists, so the scripts believe systemd runs this system.
fn scripted_root(dir: &Path) {
    for d in [
        "var/lib/dpkg/info",
        "var/lib/dpkg/updates",
        "run/systemd/system",
        "usr/bin",
    ] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    std::fs::write(dir.join("var/lib/dpkg/status"), "").unwrap();
    std::fs::write(dir.join("var/lib/dpkg/available"), "").unwrap();
    // Maintainer scripts may count on Debian's essential packages: dash and coreutils
    // (`rm`) here, the rest of them the scripts do not use.
    let debs = ok(Command::new(root().join("scripts/fetch-debs.sh"))
        .arg(root().join("target/debs"))
        .args(["libc6", "libgcc-s1", "gcc-12-base", "dash", "coreutils"]));
    for d in debs.lines() {
        ok(Command::new("dpkg-deb").arg("-x").arg(d).arg(dir));
    }
    // dash ships /bin/sh since bookworm; older packages left it to their postinst.
    if !dir.join("bin/sh").exists() {
        std::os::unix::fs::symlink("dash", dir.join("bin/sh")).unwrap();
    }
    // The scripts send the tools' output to /dev/null: without it the shell runs nothing.
    std::fs::create_dir_all(dir.join("dev")).unwrap();
    ok(Command::new("mknod")
        .args(["-m", "666"])
        .arg(dir.join("dev/null"))
        .args(["c", "1", "3"]));
    for tool in ["systemctl", "deb-systemd-invoke"] {
        let path = dir.join("usr/bin").join(tool);
        std::fs::write(
            &path,
            format!("#!/bin/sh\necho \"{tool} $*\" >>/calls.log\n"),
        )
        .unwrap();
        ok(Command::new("chmod").arg("755").arg(&path));
    }
}

/// What the scripts called since the last look, and the log emptied.
fn calls(dir: &Path) -> Vec<String> {
    let log = dir.join("calls.log");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    text.lines().map(str::to_string).collect()
}

/// The same package as a later Debian revision: its control file's version changed.
fn next_revision(deb: &Path, work: &Path) -> PathBuf {
    let tree = work.join("next");
    ok(Command::new("dpkg-deb").arg("-R").arg(deb).arg(&tree));
    let control = tree.join("DEBIAN/control");
    let text = std::fs::read_to_string(&control).unwrap();
    let text = text.replace(&format!("{VERSION}-1\n"), &format!("{VERSION}-2\n"));
    std::fs::write(&control, text).unwrap();
    let out = work.join(format!("restop_{VERSION}-2_amd64.deb"));
    ok(Command::new("dpkg-deb")
        .args(["--root-owner-group", "-Zgzip", "-z1", "--build"])
        .arg(&tree)
        .arg(&out));
    out
}

fn dpkg(r: &Path, args: &[&str]) -> String {
    ok(Command::new("dpkg")
        .arg(format!("--root={}", r.display()))
        .arg("--force-depends")
        .args(args))
}

fn dpkg_status(r: &Path) -> String {
    let out = Command::new("dpkg")
        .arg(format!("--root={}", r.display()))
        .args(["--status", "restop"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const UNITS: &str = "restop-exporter.service restop-textfile.service restop-textfile.timer";

#[test]
fn the_debian_maintainer_scripts_tell_systemd_what_debhelper_would() {
    let Some(deb) = deb() else { return };
    let work = tempfile::tempdir().unwrap();
    let r = work.path().join("root");
    scripted_root(&r);
    let next = next_revision(&deb, work.path());

    dpkg(&r, &["--install", deb.to_str().unwrap()]);
    assert!(dpkg_status(&r).contains("Status: install ok installed"));
    // Installed, systemd reloads its units; nothing is enabled or started (docs/packaging.md).
    assert_eq!(calls(&r), ["systemctl --system daemon-reload"]);

    dpkg(&r, &["--install", next.to_str().unwrap()]);
    assert!(dpkg_status(&r).contains(&format!("Version: {VERSION}-2")));
    // Upgraded: nothing stopped before the unpack, what runs is restarted on the new binary.
    assert_eq!(
        calls(&r),
        [
            "systemctl --system daemon-reload".to_string(),
            format!("deb-systemd-invoke try-restart {UNITS}"),
        ]
    );

    dpkg(&r, &["--remove", "restop"]);
    assert!(dpkg_status(&r).contains("Status: deinstall ok config-files"));
    assert!(!r.join("usr/bin/restop").exists());
    assert!(r.join("etc/default/restop-exporter").is_file());
    assert_eq!(
        calls(&r),
        [
            "deb-systemd-invoke stop restop-textfile.timer restop-textfile.service restop-exporter.service",
            "systemctl --system daemon-reload",
        ]
    );

    std::fs::create_dir_all(r.join("var/lib/prometheus/node-exporter")).unwrap();
    std::fs::write(r.join("var/lib/prometheus/node-exporter/restop.prom"), "").unwrap();
    std::fs::write(r.join("var/lib/prometheus/node-exporter/other.prom"), "").unwrap();
    dpkg(&r, &["--purge", "restop"]);
    assert!(!dpkg_status(&r).contains("Status:"), "{}", dpkg_status(&r));
    assert!(!r.join("etc/default/restop-exporter").exists());
    assert!(
        !r.join("var/lib/prometheus/node-exporter/restop.prom")
            .exists()
    );
    assert!(
        r.join("var/lib/prometheus/node-exporter/other.prom")
            .exists()
    );
    assert_eq!(calls(&r), Vec::<String>::new());
}

/// Every link and state file under `etc/systemd` and `var/lib/systemd`, as `path -> target`.
fn systemd_state(r: &Path) -> Vec<String> {
    let out = ok(Command::new("find")
        .args([
            "etc/systemd",
            "var/lib/systemd",
            "-type",
            "l",
            "-printf",
            "%p -> %l\\n",
        ])
        .current_dir(r));
    let mut lines: Vec<String> = out.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

#[test]
fn an_enabled_exporter_stays_enabled_through_an_upgrade_and_a_purge_removes_every_trace() {
    let Some(deb) = deb() else { return };
    if !Path::new("/usr/bin/deb-systemd-helper").exists() {
        println!("skipped: no deb-systemd-helper (init-system-helpers) on this machine");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let r = work.path().join("root");
    for d in ["var/lib/dpkg/info", "var/lib/dpkg/updates"] {
        std::fs::create_dir_all(r.join(d)).unwrap();
    }
    std::fs::write(r.join("var/lib/dpkg/status"), "").unwrap();
    std::fs::write(r.join("var/lib/dpkg/available"), "").unwrap();
    let next = next_revision(&deb, work.path());
    // The scripts run here with DPKG_ROOT set: deb-systemd-helper works inside the root,
    // systemctl is never called.
    let chrootless = |args: &[&str]| {
        let mut all = vec!["--force-script-chrootless", "--force-confold"];
        all.extend_from_slice(args);
        dpkg(&r, &all)
    };
    let wants = "etc/systemd/system/multi-user.target.wants/restop-exporter.service";

    chrootless(&["--install", deb.to_str().unwrap()]);
    assert!(!r.join(wants).exists(), "enabled on install");
    ok(Command::new("systemctl")
        .arg(format!("--root={}", r.display()))
        .args(["enable", "restop-exporter.service"]));
    let edited = "RESTOP_EXPORT_ARGS=\"--listen 10.0.0.5:9879\"\n";
    std::fs::write(r.join("etc/default/restop-exporter"), edited).unwrap();

    chrootless(&["--install", next.to_str().unwrap()]);
    assert!(r.join(wants).is_symlink(), "{:?}", systemd_state(&r));
    assert_eq!(
        std::fs::read_to_string(r.join("etc/default/restop-exporter")).unwrap(),
        edited
    );

    chrootless(&["--remove", "restop"]);
    // Removed but not purged: masked, so the administrator's leftover link starts nothing.
    let state = systemd_state(&r);
    assert!(
        state.contains(&"etc/systemd/system/restop-exporter.service -> /dev/null".to_string()),
        "{state:?}"
    );

    chrootless(&["--purge", "restop"]);
    assert_eq!(systemd_state(&r), Vec::<String>::new());
    assert!(!r.join("etc/default/restop-exporter").exists());
}

fn rpm(r: &Path, args: &[&str]) -> String {
    ok(Command::new("rpm")
        .arg("--root")
        .arg(r)
        .args(["--nodeps", "--nosignature", "--nodigest"])
        .args(args))
}

#[test]
fn the_rpms_carry_the_same_files_and_units_and_need_at_most_glibc_2_17() {
    let files = |pkg: &Path| {
        let mut list: Vec<String> = ok(Command::new("rpm").arg("-qpl").arg(pkg))
            .lines()
            .map(str::to_string)
            .collect();
        list.sort();
        list
    };
    let Some(deb) = deb() else { return };
    let in_deb = ok(Command::new("sh").arg("-c").arg(format!(
        "dpkg-deb -c '{}' | awk '{{print $6}}' | sed 's|^\\./|/|; s|/$||'",
        deb.display()
    )));
    for arch in ["x86_64", "aarch64"] {
        let Some(pkg) = artifact(
            dist(&format!("restop-{VERSION}-1.{arch}.rpm")),
            "scripts/package-rpm.sh",
        ) else {
            continue;
        };
        let list = files(&pkg);
        for f in &list {
            assert!(
                in_deb.lines().any(|l| l == f),
                "{arch}: {f} is in the RPM, not in the .deb"
            );
        }
        for f in [
            "/usr/bin/restop",
            "/usr/lib/systemd/system/restop-exporter.service",
            "/usr/lib/systemd/system/restop-textfile.timer",
            "/usr/share/man/man1/restop-export.1.gz",
        ] {
            assert!(list.iter().any(|l| l == f), "{arch}: no {f} in {list:?}");
        }
        let config = ok(Command::new("rpm").arg("-qpc").arg(&pkg));
        assert_eq!(config.trim(), "/etc/default/restop-exporter");
        let requires = ok(Command::new("rpm").args(["-qp", "--requires"]).arg(&pkg));
        let highest = requires
            .lines()
            .filter_map(|l| l.split("(GLIBC_").nth(1)?.split(')').next())
            .map(|v| {
                let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap());
                (parts.next().unwrap(), parts.next().unwrap_or(0))
            })
            .max();
        assert_eq!(highest, Some((2, 17)), "{arch}: {requires}");
        let scripts = ok(Command::new("rpm").args(["-qp", "--scripts"]).arg(&pkg));
        for expected in [
            "systemctl --no-reload preset",
            "disable --now",
            "try-restart",
        ] {
            assert!(
                scripts.contains(expected),
                "{arch}: no {expected} in {scripts}"
            );
        }
    }
    // Same unit files, byte for byte, in both formats.
    let work = tempfile::tempdir().unwrap();
    let Some(pkg) = artifact(
        dist(&format!("restop-{VERSION}-1.x86_64.rpm")),
        "scripts/package-rpm.sh",
    ) else {
        return;
    };
    let (d, p) = (work.path().join("deb"), work.path().join("rpm"));
    std::fs::create_dir_all(&p).unwrap();
    ok(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&d));
    ok(Command::new("sh")
        .arg("-c")
        .arg(format!("rpm2cpio '{}' | cpio -idm --quiet", pkg.display()))
        .current_dir(&p));
    for unit in [
        "restop-exporter.service",
        "restop-textfile.service",
        "restop-textfile.timer",
    ] {
        let path = format!("usr/lib/systemd/system/{unit}");
        assert_eq!(
            std::fs::read(d.join(&path)).unwrap(),
            std::fs::read(p.join(&path)).unwrap(),
            "{unit}"
        );
    }
}

#[test]
fn the_rpm_installs_upgrades_and_erases_in_a_root_and_its_scriptlets_tell_systemd() {
    let Some(pkg) = artifact(
        dist(&format!("restop-{VERSION}-1.x86_64.rpm")),
        "scripts/package-rpm.sh",
    ) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let r = work.path().join("root");
    scripted_root(&r);
    ok(Command::new(root().join("scripts/package-rpm.sh"))
        .arg("x86_64")
        .env("RESTOP_RPM_RELEASE", "2")
        .env("RESTOP_RPM_OUT", work.path()));
    let next = work.path().join(format!("restop-{VERSION}-2.x86_64.rpm"));
    ok(Command::new("rpm").arg("--root").arg(&r).arg("--initdb"));

    rpm(&r, &["-i", pkg.to_str().unwrap()]);
    assert!(r.join("usr/bin/restop").is_file());
    let version = ok(Command::new("chroot")
        .arg(&r)
        .args(["/usr/bin/restop", "--version"]));
    assert!(
        version.starts_with(&format!("restop {VERSION}\n")),
        "{version}"
    );
    assert_eq!(calls(&r), [format!("systemctl --no-reload preset {UNITS}")]);
    let edited = "RESTOP_EXPORT_ARGS=\"--listen 10.0.0.5:9879\"\n";
    std::fs::write(r.join("etc/default/restop-exporter"), edited).unwrap();

    rpm(&r, &["-U", next.to_str().unwrap()]);
    let q = ok(Command::new("rpm")
        .arg("--root")
        .arg(&r)
        .args(["-q", "restop"]));
    assert_eq!(q.trim(), format!("restop-{VERSION}-2.x86_64"));
    assert_eq!(
        std::fs::read_to_string(r.join("etc/default/restop-exporter")).unwrap(),
        edited
    );
    assert_eq!(
        calls(&r),
        [
            "systemctl daemon-reload",
            "systemctl try-restart restop-exporter.service restop-textfile.timer",
        ]
    );

    rpm(&r, &["-e", "restop"]);
    assert!(!r.join("usr/bin/restop").exists());
    // The administrator's edit is kept aside, as RPM does for a changed configuration file.
    assert!(r.join("etc/default/restop-exporter.rpmsave").is_file());
    assert_eq!(
        calls(&r),
        [
            "systemctl --no-reload disable --now restop-textfile.timer restop-textfile.service restop-exporter.service",
            "systemctl daemon-reload",
        ]
    );
}
