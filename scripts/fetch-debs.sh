#!/usr/bin/env bash
# Downloads Debian packages (this machine's release and architecture, or
# ARCH=arm64 ...) into a cache, once: scripts/fetch-debs.sh DIR PACKAGE...
# Prints the .deb paths. Used for the image and the clean-root install test.
set -euo pipefail
dir=$1
shift
arch=${ARCH:-$(dpkg --print-architecture)}
mkdir -p "$dir"
cd "$dir"
missing=()
for p in "$@"; do
	compgen -G "${p}_*_${arch}.deb" >/dev/null || compgen -G "${p}_*_all.deb" >/dev/null || missing+=("$p:$arch")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get download -qq "${missing[@]}" 2>/dev/null || {
		apt-get update -qq
		apt-get download -qq "${missing[@]}"
	}
fi
for p in "$@"; do
	compgen -G "$PWD/${p}_*_${arch}.deb" || compgen -G "$PWD/${p}_*_all.deb"
done
