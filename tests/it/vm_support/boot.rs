//! The one way every real-kernel test boots the VM: `tests/vm/run-vm.sh` with restop's binary and
//! one scenario, under sudo when not root, its results in a fresh folder; or, instead of booting,
//! the folder of an earlier run named by the scenario's `*_RESULTS` variable.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One scenario of `tests/vm/scenarios/` and where its results go.
pub struct Scenario {
    /// The script in `tests/vm/scenarios/`.
    pub script: &'static str,
    /// Folder under `CARGO_TARGET_TMPDIR` for a fresh boot's results.
    pub out_dir: &'static str,
    /// Variable naming another folder for a fresh boot's results.
    pub out_var: &'static str,
    /// Variable naming an earlier run's results: checked instead of booting.
    pub results_var: &'static str,
    /// run-vm.sh's hard timeout (`-t`), seconds.
    pub timeout_s: u32,
}

/// Whether real-kernel tests were asked for (`RESTOP_VM_TESTS=1`); says so when they were not.
pub fn enabled() -> bool {
    if std::env::var("RESTOP_VM_TESTS").as_deref() == Ok("1") {
        return true;
    }
    eprintln!(
        "skipped: real-kernel test (QEMU + Soft-RoCE, needs root); \
         set RESTOP_VM_TESTS=1 to run it, see docs/testing.md"
    );
    false
}

/// The results folder of `scenario`: an earlier run's, or a fresh boot's.
pub fn results_dir(scenario: &Scenario) -> Result<PathBuf, String> {
    results_dir_with(scenario, &[], &[])
}

/// [`results_dir`] with more `run-vm.sh` options (e.g. `-m 5G`, another `-b`) and arguments
/// for the scenario.
pub fn results_dir_with(
    scenario: &Scenario,
    vm_args: &[OsString],
    scenario_args: &[String],
) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(scenario.results_var) {
        return Ok(PathBuf::from(dir));
    }
    let out = std::env::var_os(scenario.out_var)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join(scenario.out_dir));
    match fs::remove_dir_all(&out) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("cannot clear {}: {e}", out.display()));
        }
        _ => {}
    }
    let vm = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vm");
    let script = vm.join("run-vm.sh");
    // run-vm.sh needs root: use sudo when it works without a password
    let mut cmd = if nix::unistd::geteuid().is_root() {
        Command::new(&script)
    } else {
        let mut sudo = Command::new("sudo");
        sudo.arg("-n").arg(&script);
        sudo
    };
    cmd.arg("-t")
        .arg(scenario.timeout_s.to_string())
        .arg("-b")
        .arg(env!("CARGO_BIN_EXE_restop"));
    // The old-glibc release build (scripts/release-build.sh), when it was made: the
    // scenario runs it too (`restop-x86_64` in the guest).
    let release = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/dist/restop-x86_64");
    if release.is_file() {
        cmd.arg("-b").arg(&release);
    }
    cmd.args(vm_args)
        .arg("-o")
        .arg(&out)
        .arg(vm.join("scenarios").join(scenario.script))
        .args(scenario_args);
    eprintln!("booting the test VM: {cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if let Ok(timings) = fs::read_to_string(out.join("timings.txt")) {
        eprintln!("{timings}");
    }
    if !status.success() {
        return Err(format!(
            "{} failed ({status}; 124 = timeout, 2 = setup error); see {}/scenario.log and console.log",
            script.display(),
            out.display()
        ));
    }
    Ok(out)
}
