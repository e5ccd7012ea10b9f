#!/usr/bin/env bash
# SHA256SUMS of a release's artefacts in target/dist (the binaries, the Debian package,
# the RPMs, the image archives), one `sha256sum` line each, sorted by name, so that
#   cd target/dist && sha256sum --check SHA256SUMS
# verifies a download. Artefacts that were not built are left out, and said.
set -euo pipefail
cd "$(dirname "$0")/../target/dist"
shopt -s nullglob
files=(restop-x86_64 restop-aarch64 restop_*.deb restop-*.rpm restop-image*.oci.tar)
present=()
for f in "${files[@]}"; do
	if [ -f "$f" ]; then present+=("$f"); else echo "release-checksums: no $f" >&2; fi
done
[ ${#present[@]} -gt 0 ] || { echo "release-checksums: nothing to sum in target/dist" >&2; exit 2; }
printf '%s\n' "${present[@]}" | LC_ALL=C sort | xargs sha256sum >SHA256SUMS
cat SHA256SUMS
