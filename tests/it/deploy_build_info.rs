//! `restop --version` and `restop_build_info` tell the same build: version,
//! source revision (the checkout's HEAD, from build.rs), compiler and target.

use restop::export::build_info::{REVISION, RUSTC_VERSION, TARGET, VERSION};
use std::process::Command;

#[test]
fn version_names_the_revision_compiler_and_target() {
    let out = Command::new(env!("CARGO_BIN_EXE_restop"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        format!(
            "restop {VERSION}\nrevision: {REVISION}\nrustc: {RUSTC_VERSION}\ntarget: {TARGET}\n"
        )
    );
    assert!(TARGET.contains("linux"), "{TARGET}");
    assert!(RUSTC_VERSION.starts_with("1."), "{RUSTC_VERSION}");
    // -V stays the bare version, for scripts that parse it.
    let short = Command::new(env!("CARGO_BIN_EXE_restop"))
        .arg("-V")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&short.stdout),
        format!("restop {VERSION}\n")
    );
}

#[test]
fn the_revision_is_the_checkouts_head() {
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    match head {
        Ok(out) if out.status.success() && std::env::var_os("RESTOP_REVISION").is_none() => {
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), REVISION);
        }
        _ => println!("skipped: not a git checkout, or RESTOP_REVISION given"),
    }
}

#[test]
fn build_info_carries_the_same_labels() {
    let demo = restop::demo::DemoSource::new(1, std::time::Duration::from_secs(2));
    let mut session =
        restop::session::Session::new(Box::new(demo), restop::session::Pacer::unpaced());
    let mut collector = restop::export::Collector::new(session.kind(), 5);
    let text = String::from_utf8(collector.render(session.next_tick()).text).unwrap();
    let line = format!(
        "restop_build_info{{version=\"{VERSION}\",revision=\"{REVISION}\",rustc_version=\"{RUSTC_VERSION}\",target=\"{TARGET}\"}} 1\n"
    );
    assert!(text.contains(&line), "{text}");
}
