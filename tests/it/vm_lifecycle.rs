//! The Debian package's lifecycle under a real systemd (tests/vm/scenarios/lifecycle.sh in the
//! systemd guest, `run-vm.sh -s`: the host's root below a tmpfs overlay, systemd as PID 1,
//! rxe0 and rxe1 on Debian's kernel). The package scripts/package-deb.sh built (revision 1)
//! and the same tree built again as revision 2 go through `dpkg -i`, `systemctl enable
//! --now`, an upgrade, `dpkg -r` and `dpkg -P`; at each step the scenario writes the unit's
//! and the package's state as one line of `lifecycle.jsonl`, read here. The exporter runs
//! under the unit's own sandboxing (DynamicUser, `DevicePolicy=closed`,
//! `DeviceAllow=char-infiniband_verbs rw`), so its `restop_resources_max` for rxe0 shows that
//! libibverbs opened `/dev/infiniband/uverbs0` through the device cgroup; a drop-in clearing
//! `DeviceAllow=` is the control. The host-side checks of the maintainer scripts' calls are
//! `deploy_lifecycle::*`.
//!
//! Skipped (with a notice) unless RESTOP_VM_TESTS=1; needs root, the deploy step's
//! `target/dist/restop-x86_64` and `restop_<version>-1_amd64.deb` (skipped without them
//! unless RESTOP_DEPLOY_TESTS=1). One boot serves every test here.
//! `RESTOP_VM_LIFECYCLE_RESULTS=DIR` checks an earlier run's output folder instead of
//! booting; `RESTOP_VM_LIFECYCLE_OUT=DIR` chooses where a boot writes.

use crate::deploy_artifacts::{artifact, dist, ok, root};
use crate::vm_support::boot;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const VERSION: &str = env!("CARGO_PKG_VERSION");
const UNIT_PATH: &str = "/usr/lib/systemd/system/restop-exporter.service";

/// `scenarios/lifecycle.sh` in the systemd guest: minutes under TCG on a loaded 2-core host
/// (docs/testing.md); the timeout leaves room for a slower one.
const LIFECYCLE: boot::Scenario = boot::Scenario {
    script: "lifecycle.sh",
    out_dir: "vm-lifecycle",
    out_var: "RESTOP_VM_LIFECYCLE_OUT",
    results_var: "RESTOP_VM_LIFECYCLE_RESULTS",
    timeout_s: 1500,
};

/// One line of `lifecycle.jsonl`: field → text (a field is absent when the scenario found
/// nothing to write, e.g. no conffile).
type Step = BTreeMap<String, String>;

struct Lifecycle {
    dir: PathBuf,
    steps: Vec<Step>,
}

impl Lifecycle {
    fn load(dir: &Path) -> Result<Lifecycle, String> {
        let path = dir.join("lifecycle.jsonl");
        let text = fs::read_to_string(&path).map_err(|e| {
            format!(
                "{}: {e} (see scenario.log and console.log there)",
                path.display()
            )
        })?;
        let mut steps = Vec::new();
        for line in text.lines() {
            let v: Value =
                serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {line}"))?;
            let obj = v
                .as_object()
                .ok_or_else(|| format!("not an object: {line}"))?;
            steps.push(
                obj.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect(),
            );
        }
        Ok(Lifecycle {
            dir: dir.to_path_buf(),
            steps,
        })
    }

    fn step(&self, name: &str) -> &Step {
        self.steps
            .iter()
            .find(|s| s.get("step").map(String::as_str) == Some(name))
            .unwrap_or_else(|| {
                panic!(
                    "no step {name} in {}/lifecycle.jsonl (the scenario stopped before it? see scenario.log)",
                    self.dir.display()
                )
            })
    }
}

/// Field `key` of a step ("" when absent).
fn field<'a>(step: &'a Step, key: &str) -> &'a str {
    step.get(key).map(|v| v.trim()).unwrap_or("")
}

/// The value of the first sample of `name` whose labels include every `labels` pair.
fn sample(metrics: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    metrics.lines().find_map(|line| {
        if line.starts_with('#') {
            return None;
        }
        let (series, value) = line.rsplit_once(' ')?;
        let (metric, rest) = match series.split_once('{') {
            Some((m, rest)) => (m, rest),
            None => (series, ""),
        };
        (metric == name
            && labels
                .iter()
                .all(|(k, v)| rest.contains(&format!("{k}=\"{v}\""))))
        .then(|| value.parse().ok())?
    })
}

/// Every series of `name` in the exposition (for messages and absence checks).
fn series<'a>(metrics: &'a str, name: &str) -> Vec<&'a str> {
    metrics
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.split(['{', ' ']).next() == Some(name))
        .collect()
}

/// The two packages, in a folder of this test's own (the guest reads them from the host's
/// root): the deploy step's revision 1 and revision 2 built now by scripts/package-deb.sh
/// from the same binary, moved out of target/dist at once so that the deploy checks only
/// ever see the deploy step's packages.
fn packages() -> Option<(PathBuf, PathBuf)> {
    let n = artifact(
        dist(&format!("restop_{VERSION}-1_amd64.deb")),
        "scripts/package-deb.sh",
    )?;
    let bin = artifact(dist("restop-x86_64"), "scripts/release-build.sh")?;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vm-lifecycle-debs");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let first = dir.join(n.file_name().unwrap());
    fs::copy(&n, &first).unwrap();
    let built = ok(Command::new(root().join("scripts/package-deb.sh"))
        .arg(&bin)
        .env("RESTOP_DEB_REVISION", "2")
        .current_dir(root()));
    let built = root().join(built.trim());
    let next = dir.join(built.file_name().unwrap());
    fs::rename(&built, &next).unwrap();
    Some((first, next))
}

/// The one boot (or an earlier run's folder), or `None` when skipped.
fn lifecycle() -> Option<&'static Lifecycle> {
    if !boot::enabled() {
        return None;
    }
    static RUN: OnceLock<Option<Result<Lifecycle, String>>> = OnceLock::new();
    let run = RUN.get_or_init(|| {
        let dir = if std::env::var_os(LIFECYCLE.results_var).is_some() {
            boot::results_dir(&LIFECYCLE)
        } else {
            let (first, next) = packages()?;
            let args = [first, next].map(|p| p.to_string_lossy().into_owned());
            boot::results_dir_with(&LIFECYCLE, &[OsString::from("-s")], &args)
        };
        Some(dir.and_then(|d| Lifecycle::load(&d)))
    });
    match run {
        Some(Ok(l)) => Some(l),
        Some(Err(e)) => panic!("{e}"),
        None => None,
    }
}

fn assert_ran(step: &Step) {
    assert_eq!(
        field(step, "rc"),
        "0",
        "step {} failed: {}",
        field(step, "step"),
        field(step, "output")
    );
}

/// Limits read: a maximum for every type libibverbs gives, no "limits unread" series.
fn assert_limits_read(step: &Step) {
    let m = field(step, "metrics");
    assert!(
        !m.is_empty(),
        "step {}: no /metrics with restop_up 1; last answer: {}\njournal: {}",
        field(step, "step"),
        field(step, "metrics_failed"),
        field(step, "journal")
    );
    for t in ["qp", "cq", "mr", "pd", "srq"] {
        let max = sample(
            m,
            "restop_resources_max",
            &[("device", "rxe0"), ("type", t)],
        );
        assert!(
            max.is_some_and(|v| v > 0.0),
            "step {}: restop_resources_max for rxe0 {t}: {max:?}; limits unread: {:?}",
            field(step, "step"),
            series(m, "restop_device_limits_unread")
        );
    }
    let unread = sample(m, "restop_device_limits_unread", &[("device", "rxe0")]);
    assert!(
        unread.is_none_or(|v| v == 0.0),
        "step {}: {:?}",
        field(step, "step"),
        series(m, "restop_device_limits_unread")
    );
}

#[test]
fn the_package_installs_the_unit_neither_enabled_nor_started() {
    let Some(l) = lifecycle() else { return };
    let before = l.step("before");
    assert_eq!(field(before, "is_active"), "inactive");
    assert_eq!(field(before, "unit_file"), "");
    let install = l.step("install");
    assert_ran(install);
    assert_eq!(field(install, "dpkg_status"), "ii");
    assert_eq!(field(install, "version"), format!("{VERSION}-1"));
    assert_eq!(field(install, "unit_file"), "yes", "{UNIT_PATH}");
    assert!(field(install, "conffile").contains("RESTOP_EXPORT_ARGS="));
    // postinst: --no-enable --no-start, as docs/packaging.md says
    assert_eq!(field(install, "is_enabled"), "disabled");
    assert_eq!(field(install, "is_active"), "inactive");
    assert_eq!(field(install, "main_pid"), "0");
    // systemd read the unit as shipped: the device cgroup opens the uverbs devices only
    assert_eq!(field(install, "device_policy"), "closed");
    assert!(
        field(install, "device_allow").contains("char-infiniband_verbs rw"),
        "{}",
        field(install, "device_allow")
    );
}

#[test]
fn enable_now_serves_limits_read_through_the_units_device_allow() {
    let Some(l) = lifecycle() else { return };
    let enable = l.step("enable");
    assert_ran(enable);
    assert_eq!(field(enable, "is_active"), "active");
    assert_eq!(field(enable, "is_enabled"), "enabled");
    assert_eq!(field(enable, "wants_link"), "yes");
    assert_eq!(field(enable, "dsh_state"), "yes");
    let uid: u32 = field(enable, "uid").parse().unwrap_or(0);
    assert!(
        uid != 0,
        "the exporter runs as a dynamic user, not root: uid {uid}"
    );
    let m = field(enable, "metrics");
    assert_eq!(sample(m, "restop_up", &[]), Some(1.0), "{m}");
    assert_eq!(sample(m, "restop_rdma_present", &[]), Some(1.0), "{m}");
    assert_limits_read(enable);
    // the same maxima ibv_devinfo reads as root outside any sandbox
    let devinfo = fs::read_to_string(l.dir.join("ibv_devinfo.txt")).unwrap_or_default();
    let max_qp = devinfo.lines().find_map(|line| {
        line.trim()
            .strip_prefix("max_qp:")?
            .trim()
            .parse::<f64>()
            .ok()
    });
    assert_eq!(
        sample(
            m,
            "restop_resources_max",
            &[("device", "rxe0"), ("type", "qp")]
        ),
        max_qp,
        "ibv_devinfo -v -d rxe0:\n{devinfo}"
    );
    assert!(
        field(enable, "journal").contains("Started restop-exporter.service"),
        "{}",
        field(enable, "journal")
    );
}

#[test]
fn without_device_allow_the_exporter_says_limits_could_not_be_read_and_why() {
    let Some(l) = lifecycle() else { return };
    let denied = l.step("no_device_allow");
    assert_ran(denied);
    assert_eq!(field(denied, "is_active"), "active");
    assert!(
        !field(denied, "device_allow").contains("infiniband"),
        "the drop-in cleared DeviceAllow=: {}",
        field(denied, "device_allow")
    );
    let m = field(denied, "metrics");
    assert_eq!(sample(m, "restop_up", &[]), Some(1.0), "{m}");
    // The device cgroup refuses the open with EPERM, but libibverbs (rdma-core 44) then
    // looks for the node elsewhere and waits for udev, and its errno no longer says
    // EPERM: the reason is open_failed there, permission where the errno survives.
    let reasons: Vec<&str> = series(m, "restop_device_limits_unread")
        .into_iter()
        .filter(|s| s.contains("device=\"rxe0\"") && s.ends_with(" 1"))
        .collect();
    assert!(
        reasons.len() == 1
            && ["permission", "open_failed"]
                .iter()
                .any(|r| reasons[0].contains(&format!("reason=\"{r}\""))),
        "{reasons:?}"
    );
    assert_eq!(
        sample(m, "restop_resources_max", &[("device", "rxe0")]),
        None,
        "{:?}",
        series(m, "restop_resources_max")
    );
    // the drop-in goes with the edit: the exporter the upgrade restarts reads the limits
    // again (an_upgrade_restarts_the_running_exporter_and_keeps_the_edited_conffile)
}

#[test]
fn an_upgrade_restarts_the_running_exporter_and_keeps_the_edited_conffile() {
    let Some(l) = lifecycle() else { return };
    let edit = l.step("edit");
    assert_ran(edit);
    let upgrade = l.step("upgrade");
    assert_ran(upgrade);
    assert_eq!(field(upgrade, "version"), format!("{VERSION}-2"));
    assert_eq!(field(upgrade, "is_active"), "active");
    assert_eq!(field(upgrade, "is_enabled"), "enabled");
    let (old, new) = (field(edit, "main_pid"), field(upgrade, "main_pid"));
    assert!(
        new != "0" && new != old,
        "MainPID {old} before the upgrade, {new} after: not restarted"
    );
    let conffile = field(upgrade, "conffile");
    assert!(
        conffile.contains("# edited by the administrator") && conffile.contains("9880"),
        "{conffile}"
    );
    // the restarted exporter read the kept conffile: it serves on its port
    assert_eq!(field(upgrade, "port"), "9880");
    let m = field(upgrade, "metrics");
    assert_eq!(
        sample(m, "restop_up", &[]),
        Some(1.0),
        "nothing on 127.0.0.1:9880: {}",
        field(upgrade, "metrics_failed")
    );
    assert_limits_read(upgrade);
    let journal = field(upgrade, "journal");
    assert!(
        journal.contains("Stopped restop-exporter.service")
            && journal.contains("Started restop-exporter.service"),
        "{journal}"
    );
}

#[test]
fn removal_stops_the_exporter_and_keeps_the_conffile_and_purge_removes_every_trace() {
    let Some(l) = lifecycle() else { return };
    let remove = l.step("remove");
    assert_ran(remove);
    assert_eq!(field(remove, "is_active"), "inactive");
    assert_eq!(field(remove, "main_pid"), "0");
    assert_eq!(field(remove, "unit_file"), "", "{UNIT_PATH} still there");
    assert_eq!(field(remove, "dpkg_status"), "rc");
    assert!(
        field(remove, "conffile").contains("# edited by the administrator"),
        "{}",
        field(remove, "conffile")
    );
    // postrm masks the removed unit, as debhelper's does
    assert_eq!(field(remove, "mask"), "/dev/null");
    assert!(
        field(remove, "journal").contains("Stopped restop-exporter.service"),
        "{}",
        field(remove, "journal")
    );
    assert!(field(remove, "metrics").is_empty());

    let purge = l.step("purge");
    assert_ran(purge);
    assert_eq!(field(purge, "is_active"), "inactive");
    assert_eq!(
        field(purge, "conffile"),
        "",
        "the conffile survived the purge"
    );
    assert_eq!(field(purge, "dpkg_status"), "", "dpkg still knows restop");
    assert_eq!(
        field(purge, "dsh_state"),
        "",
        "deb-systemd-helper state left"
    );
    assert_eq!(field(purge, "mask"), "", "the mask outlived the purge");
    assert_eq!(
        field(purge, "wants_link"),
        "",
        "the enablement link survived"
    );
    assert_ne!(field(purge, "is_enabled"), "enabled");
}
