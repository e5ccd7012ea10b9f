#!/usr/bin/env bash
# Release binaries of restop for the distributions GPU/HPC fleets run:
# x86_64 and aarch64 Linux, linked against glibc 2.17 (RHEL 7+, Ubuntu 16.04+)
# by cargo-zigbuild with zig from PyPI. Output: target/dist/restop-<arch>.
#
#   scripts/release-build.sh                 both architectures
#   scripts/release-build.sh x86_64          one
#   RESTOP_GLIBC=2.28 scripts/release-build.sh
#
# Needs: pip install ziglang cargo-zigbuild (done here when missing), and the
# Rust standard library of each target (rustup target add; an architecture
# whose std cannot be installed is reported and skipped, exit status 3).
set -euo pipefail
cd "$(dirname "$0")/.."

glibc=${RESTOP_GLIBC:-2.17}
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 aarch64)
dist=target/dist
mkdir -p "$dist"

say() { echo "release-build: $*" >&2; }

if ! command -v cargo-zigbuild >/dev/null || ! python3 -c 'import ziglang' 2>/dev/null; then
	say "installing ziglang and cargo-zigbuild from PyPI"
	python3 -m pip install --quiet ziglang cargo-zigbuild
fi

skipped=0
for arch in "${arches[@]}"; do
	triple=$arch-unknown-linux-gnu
	if ! rustup target list --installed 2>/dev/null | grep -qx "$triple"; then
		if ! rustup target add "$triple" >&2; then
			say "$triple: the Rust standard library for it cannot be installed here; skipped"
			skipped=1
			continue
		fi
	fi
	say "$triple against glibc $glibc"
	cargo zigbuild --release --locked --bin restop --target "$triple.$glibc" >&2
	cp "${CARGO_TARGET_DIR:-target}/$triple/release/restop" "$dist/restop-$arch"
	highest=$(scripts/glibc-version.sh "$dist/restop-$arch")
	say "$dist/restop-$arch: needs GLIBC_$highest at most"
done
[ $skipped = 0 ] || exit 3
