#!/usr/bin/env bash
# Downloads Debian packages (this machine's release and architecture, or
# ARCH=arm64 ...) into a cache, once: scripts/fetch-debs.sh DIR PACKAGE...
# Prints the .deb paths. Used for the image and the clean-root install test.
# A foreign ARCH gets apt lists of its own (under /var/cache/restop-deploy/apt-ARCH,
# or RESTOP_APT_STATE), so the machine's dpkg needs no foreign architecture added.
set -euo pipefail
dir=$1
shift
arch=${ARCH:-$(dpkg --print-architecture)}
apt_opts=()
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
	state=${RESTOP_APT_STATE:-/var/cache/restop-deploy/apt-$arch}
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	[ -f "$state/status" ] || : >"$state/status"
	apt_opts=(-o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
		-o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
		-o "Dir::State::status=$state/status")
	compgen -G "$state/lists/*_Packages*" >/dev/null || apt-get "${apt_opts[@]}" update -qq
fi
mkdir -p "$dir"
cd "$dir"
missing=()
for p in "$@"; do
	compgen -G "${p}_*_${arch}.deb" >/dev/null || compgen -G "${p}_*_all.deb" >/dev/null || missing+=("$p:$arch")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get "${apt_opts[@]}" download -qq "${missing[@]}" 2>/dev/null || {
		apt-get "${apt_opts[@]}" update -qq
		apt-get "${apt_opts[@]}" download -qq "${missing[@]}"
	}
fi
for p in "$@"; do
	compgen -G "$PWD/${p}_*_${arch}.deb" || compgen -G "$PWD/${p}_*_all.deb"
done
