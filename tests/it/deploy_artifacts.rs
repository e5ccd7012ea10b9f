//! What the release scripts make (tests/run-all.sh runs them first, then these with
//! `RESTOP_DEPLOY_TESTS=1`, where a missing artifact fails): the old-glibc binaries, the
//! aarch64 one under qemu-user, the Debian package (lintian, installed into a clean root,
//! its systemd units verified), and the OCI image under podman. Without the variable a
//! missing artifact is skipped with a notice (`cargo test` alone builds none of them).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn required() -> bool {
    std::env::var("RESTOP_DEPLOY_TESTS").is_ok_and(|v| v == "1")
}

/// The artifact, or `None` (skipped) when it was not built and is not required.
pub(crate) fn artifact(path: PathBuf, made_by: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    assert!(!required(), "{} is missing: run {made_by}", path.display());
    println!("skipped: {} not built (run {made_by})", path.display());
    None
}

pub(crate) fn output(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"))
}

pub(crate) fn ok(cmd: &mut Command) -> String {
    let out = output(cmd);
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn version_of(text: &str) -> (u32, u32) {
    let mut parts = text.trim().split('.').map(|p| p.parse::<u32>().unwrap());
    (parts.next().unwrap(), parts.next().unwrap_or(0))
}

pub(crate) fn dist(name: &str) -> PathBuf {
    root().join("target/dist").join(name)
}

#[test]
fn release_binaries_need_at_most_glibc_2_17() {
    for arch in ["x86_64", "aarch64"] {
        let Some(bin) = artifact(dist(&format!("restop-{arch}")), "scripts/release-build.sh")
        else {
            continue;
        };
        let highest = ok(Command::new(root().join("scripts/glibc-version.sh")).arg(&bin));
        println!(
            "{}: highest symbol version GLIBC_{}",
            bin.display(),
            highest.trim()
        );
        assert!(
            version_of(&highest) <= (2, 17),
            "{arch} needs GLIBC_{highest}"
        );
        let header = ok(Command::new("readelf").arg("-h").arg(&bin));
        let machine = if arch == "x86_64" {
            "X86-64"
        } else {
            "AArch64"
        };
        assert!(header.contains(machine), "{arch}: {header}");
    }
}

#[test]
fn the_aarch64_binary_runs_the_demo_under_qemu_user() {
    let Some(bin) = artifact(dist("restop-aarch64"), "scripts/release-build.sh aarch64") else {
        return;
    };
    // Debian's cross C library (packages of this architecture, `all`) as the sysroot.
    let debs = ok(Command::new(root().join("scripts/fetch-debs.sh"))
        .arg(root().join("target/debs"))
        .args(["libc6-arm64-cross", "libgcc-s1-arm64-cross"]));
    let sysroot = root().join("target/tmp/arm64-sysroot");
    for deb in debs.lines() {
        ok(Command::new("dpkg-deb").arg("-x").arg(deb).arg(&sysroot));
    }
    let lib = sysroot.join("usr/aarch64-linux-gnu");
    let run = |args: &[&str]| {
        ok(Command::new("qemu-aarch64-static")
            .arg("-L")
            .arg(&lib)
            .arg(&bin)
            .args(args))
    };
    assert!(run(&["--version"]).starts_with("restop "));
    let report = run(&["--demo", "--once"]);
    for expected in ["DEVICES", "mlx5_0", "TOP CONSUMERS", "train.py"] {
        assert!(report.contains(expected), "no {expected} in:\n{report}");
    }
}

pub(crate) fn deb() -> Option<PathBuf> {
    let dir = root().join("target/dist");
    let found = std::fs::read_dir(&dir).ok().and_then(|entries| {
        entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "deb"))
    });
    match found {
        Some(p) => Some(p),
        None => artifact(dir.join("restop_*.deb"), "scripts/package-deb.sh"),
    }
}

#[test]
fn the_debian_package_passes_lintian() {
    let Some(deb) = deb() else { return };
    // initial-upload-closes-no-bugs concerns uploads to Debian's archive, not this package.
    let out = ok(Command::new("lintian")
        .args(["--fail-on", "error,warning", "--suppress-tags"])
        .arg("initial-upload-closes-no-bugs")
        .arg(&deb));
    println!("lintian: {out}");
}

#[test]
fn the_package_installs_into_a_clean_root_runs_and_its_units_verify() {
    let Some(deb) = deb() else { return };
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    for d in [
        "var/lib/dpkg/info",
        "var/lib/dpkg/updates",
        "usr/lib/systemd/system",
    ] {
        std::fs::create_dir_all(r.join(d)).unwrap();
    }
    std::fs::write(r.join("var/lib/dpkg/status"), "").unwrap();
    std::fs::write(r.join("var/lib/dpkg/available"), "").unwrap();
    // The root holds only the files of the package's dependencies and a shell for
    // restop's maintainer scripts, which dpkg runs chrooted into it (unpacked: their
    // own maintainer scripts need more than the root has, hence --force-depends).
    let debs = ok(Command::new(root().join("scripts/fetch-debs.sh"))
        .arg(root().join("target/debs"))
        .args(["libc6", "libgcc-s1", "gcc-12-base", "dash"]));
    for d in debs.lines() {
        ok(Command::new("dpkg-deb").arg("-x").arg(d).arg(r));
    }
    // dash ships /bin/sh since bookworm; older packages left it to their postinst.
    if !r.join("bin/sh").exists() {
        std::os::unix::fs::symlink("dash", r.join("bin/sh")).unwrap();
    }
    ok(Command::new("dpkg")
        .arg(format!("--root={}", r.display()))
        .args(["--force-depends", "--install"])
        .arg(&deb));
    let status = ok(Command::new("dpkg")
        .arg(format!("--root={}", r.display()))
        .args(["--status", "restop"]));
    assert!(status.contains("Status: install ok installed"), "{status}");
    let version = ok(Command::new("chroot")
        .arg(r)
        .args(["/usr/bin/restop", "--version"]));
    assert!(
        version.starts_with(&format!("restop {}\nrevision: ", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    for file in [
        "usr/share/man/man1/restop.1.gz",
        "usr/share/man/man1/restop-export.1.gz",
        "usr/share/bash-completion/completions/restop",
        "usr/share/zsh/vendor-completions/_restop",
        "usr/share/fish/vendor_completions.d/restop.fish",
        "usr/share/restop/prometheus/restop-rules.yml",
        "usr/share/restop/grafana/restop-dashboard.json",
        "usr/lib/systemd/system/restop-exporter.service",
        "usr/lib/systemd/system/restop-textfile.service",
        "usr/lib/systemd/system/restop-textfile.timer",
        "etc/default/restop-exporter",
        "usr/share/doc/restop/copyright",
    ] {
        assert!(r.join(file).is_file(), "{file} is not installed");
    }
    // systemd-analyze resolves the units' default dependencies (sysinit.target, ...)
    // from the root: give it the host's target units.
    for entry in std::fs::read_dir("/usr/lib/systemd/system")
        .unwrap()
        .flatten()
    {
        let name = entry.file_name();
        if name.to_string_lossy().ends_with(".target") {
            let _ = std::fs::copy(entry.path(), r.join("usr/lib/systemd/system").join(&name));
        }
    }
    let out = output(
        Command::new("systemd-analyze")
            .env("MANPATH", r.join("usr/share/man"))
            .arg("verify")
            .arg(format!("--root={}", r.display()))
            .args([
                "restop-exporter.service",
                "restop-textfile.service",
                "restop-textfile.timer",
            ]),
    );
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.trim().is_empty(),
        "verify: {said}"
    );
    for unit in ["restop-exporter.service", "restop-textfile.service"] {
        let out = ok(Command::new("systemd-analyze")
            .args(["security", "--offline=yes", "--threshold=20"])
            .arg(format!("--root={}", r.display()))
            .arg(unit));
        let last = out.lines().last().unwrap_or_default().to_string();
        println!("{last}");
        assert!(last.contains("OK"), "{unit}: {last}");
    }
}

fn podman() -> Command {
    let mut cmd = Command::new("podman");
    // This sandbox lacks CAP_SYS_RESOURCE and runs cgroups in hybrid mode: crun refuses
    // both, runc with explicit ulimits works (docs/packaging.md).
    if Path::new("/usr/sbin/runc").exists() || Path::new("/usr/bin/runc").exists() {
        cmd.args(["--runtime", "runc"]);
    }
    cmd
}

#[test]
fn the_image_runs_under_podman_as_nobody_and_serves_metrics() {
    let image = format!("localhost/restop:{}", env!("CARGO_PKG_VERSION"));
    let present = Command::new("podman")
        .args(["image", "exists", &image])
        .status()
        .is_ok_and(|s| s.success());
    if artifact(
        if present {
            root().to_path_buf()
        } else {
            dist("image-not-built")
        },
        "scripts/image-build.sh",
    )
    .is_none()
    {
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let name = format!("restop-test-{port}");
    let limits = [
        "--ulimit",
        "nofile=1024:1024",
        "--ulimit",
        "nproc=1024:1024",
    ];
    ok(podman()
        .args(["run", "-d", "--rm", "--name", &name, "--network", "host"])
        .args(limits)
        .arg(&image)
        .args(["export", "--demo", "-d", "1s", "--listen"])
        .arg(format!("127.0.0.1:{port}")));
    let stop = || {
        let started = Instant::now();
        let _ = output(podman().args(["stop", "-t", "10", &name]));
        started.elapsed()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    let metrics = loop {
        let body = Command::new("curl")
            .args(["-sf", "--compressed"])
            .arg(format!("http://127.0.0.1:{port}/metrics"))
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        if let Some(body) = body {
            break body;
        }
        if Instant::now() > deadline {
            stop();
            panic!("the container served no /metrics within 30 s");
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    let user = ok(podman().args(["top", &name, "user"]));
    let took = stop();
    assert!(
        metrics.contains("restop_up{source=\"demo\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("namespace=\"ml-training\""));
    assert!(
        user.lines().nth(1).is_some_and(|u| u.trim() == "nobody"),
        "{user}"
    );
    assert!(took < Duration::from_secs(5), "SIGTERM took {took:?}");

    let files = ok(Command::new("sh").arg("-c").arg(format!(
        "c=$(podman create {image}) && podman export \"$c\" | tar -t; podman rm \"$c\" >/dev/null"
    )));
    for lib in [
        "libibverbs.so.1",
        "libmlx5.so.1",
        "libc.so.6",
        "usr/bin/restop",
    ] {
        assert!(files.contains(lib), "{lib} is not in the image");
    }
    let size =
        ok(Command::new("podman").args(["image", "inspect", "--format", "{{.Size}}", &image]));
    let bytes: u64 = size.trim().parse().unwrap();
    println!("image size: {bytes} bytes");
    assert!(bytes < 40 << 20, "the image is {bytes} bytes");
}
