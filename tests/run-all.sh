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

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets --locked -- -D warnings
echo "== cargo test"
cargo test --locked
echo "== real-kernel tests (QEMU + Soft-RoCE)"
# one boot per scenario, serving every test of its module
RESTOP_VM_TESTS=1 cargo test --locked --test it -- --nocapture --test-threads=1 vm_e2e::
RESTOP_VM_TESTS=1 cargo test --locked --test it -- --nocapture --test-threads=1 vm_leak::
