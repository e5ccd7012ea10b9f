//! Build facts for `restop --version` and `restop_build_info`: the source
//! revision (`git rev-parse`, or `RESTOP_REVISION` for builds from a tarball),
//! the compiler and the target. No build time: two builds of one revision with
//! one toolchain give the same binary.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=RESTOP_REVISION");
    println!("cargo:rustc-env=RESTOP_REVISION={}", revision());
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = output(Command::new(rustc).arg("--version"))
        .and_then(|v| v.split_whitespace().nth(1).map(String::from))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=RESTOP_RUSTC_VERSION={rustc_version}");
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=RESTOP_TARGET={target}");
}

/// The commit restop is built from: short hash, "-dirty" never (that would need
/// a full status at every build); "unknown" outside a git checkout.
fn revision() -> String {
    if let Ok(given) = std::env::var("RESTOP_REVISION")
        && !given.trim().is_empty()
    {
        return given.trim().to_string();
    }
    // Rebuild when HEAD moves: HEAD itself, and the branch it points at.
    for path in ["HEAD", "packed-refs"] {
        if let Some(p) = output(Command::new("git").args(["rev-parse", "--git-path", path])) {
            rerun_if_exists(&p);
        }
    }
    if let Some(branch) = output(Command::new("git").args(["symbolic-ref", "-q", "HEAD"]))
        && let Some(p) = output(Command::new("git").args(["rev-parse", "--git-path", &branch]))
    {
        rerun_if_exists(&p);
    }
    output(Command::new("git").args(["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".into())
}

fn rerun_if_exists(path: &str) {
    if Path::new(path).exists() {
        println!("cargo:rerun-if-changed={path}");
    }
}

fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}
