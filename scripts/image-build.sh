#!/usr/bin/env bash
# restop's OCI image for amd64 and arm64, built without pulling anything from a
# container registry: buildah from scratch, with files from Debian packages of each
# architecture (the C library, libgcc, libibverbs + its providers and libnl, so device
# limits can be read through verbs) and the release binary of that architecture
# (scripts/release-build.sh). Runs as user 65534.
#   scripts/image-build.sh                 amd64 and arm64
#   scripts/image-build.sh amd64           one
# Output, in root's container storage: localhost/restop:<version>-<arch> per
# architecture, localhost/restop:<version> for this machine's, and the manifest list
# localhost/restop:<version>-index naming both; in target/dist: restop-image.oci.tar
# (this machine's image, for `podman load`) and restop-image-multiarch.oci.tar (the
# list and both images as one OCI archive, what a release pushes with
# `podman manifest push --all`). Times are SOURCE_DATE_EPOCH (the last commit's).
set -euo pipefail
cd "$(dirname "$0")/.."
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(amd64 arm64)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
host=$(dpkg --print-architecture)
image=localhost/restop:$version
cache=${RESTOP_DEB_CACHE:-/var/cache/restop-deploy/debs}
packages=(libc6 libgcc-s1 libibverbs1 ibverbs-providers libnl-3-200 libnl-route-3-200)
say() { echo "image-build: $*" >&2; }

# build ARCH: one architecture's image, tagged $image-ARCH
build() {
	local arch=$1 triple root ctr deb
	case $arch in
	amd64) triple=x86_64 ;;
	arm64) triple=aarch64 ;;
	*) say "unknown architecture $arch (amd64, arm64)"; exit 2 ;;
	esac
	local bin=target/dist/restop-$triple
	[ -x "$bin" ] || { say "no $bin (run scripts/release-build.sh $triple)"; exit 2; }
	root=target/image-root-$arch
	rm -rf "$root"
	mkdir -p "$root"
	for deb in $(ARCH=$arch scripts/fetch-debs.sh "$cache/$arch" "${packages[@]}"); do
		dpkg-deb -x "$deb" "$root"
	done
	# The foreign C library's own ldconfig (static) under qemu-user writes the cache of
	# an arm64 root: this machine's ldconfig skips libraries of another machine type.
	local ldconfig=(ldconfig)
	if [ "$arch" != "$host" ]; then
		deb=$(ARCH=$arch scripts/fetch-debs.sh "$cache/$arch" libc-bin)
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" ./sbin/ldconfig
		ldconfig=("qemu-$triple-static" "$root/sbin/ldconfig")
	fi
	# What a process that never execs, localises or converts charsets does not need.
	rm -rf "$root"/usr/share/{doc,man,info,locale,lintian,bug} \
		"$root"/usr/lib/*/gconv "$root"/usr/lib/*/audit "$root"/usr/bin \
		"$root"/usr/libexec "$root"/var
	install -D -m 0755 "$bin" "$root/usr/bin/restop"
	printf 'root:x:0:0:root:/:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	echo 'include /etc/ld.so.conf.d/*.conf' >"$root/etc/ld.so.conf"
	"${ldconfig[@]}" -r "$root"
	rm -rf "$root"/sbin "$root"/usr/sbin

	ctr=$(buildah from --arch "$arch" scratch)
	trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
	buildah copy --quiet "$ctr" "$root" / >/dev/null
	buildah config \
		--arch "$arch" --os linux \
		--user 65534:65534 \
		--entrypoint '["/usr/bin/restop"]' \
		--env RESTOP_LISTEN=0.0.0.0:9879 \
		--cmd '["export"]' \
		--port 9879/tcp \
		--label org.opencontainers.image.title=restop \
		--label org.opencontainers.image.description="top for RDMA resources, with a Prometheus exporter" \
		--label org.opencontainers.image.version="$version" \
		--label org.opencontainers.image.licenses="MIT OR Apache-2.0" \
		--label org.opencontainers.image.source=https://github.com/restop/restop \
		"$ctr"
	buildah commit --quiet --rm --timestamp "$epoch" --identity-label=false "$ctr" "$image-$arch" >/dev/null
	trap - EXIT
	say "$image-$arch"
}

for arch in "${arches[@]}"; do
	build "$arch"
done
mkdir -p target/dist
if printf '%s\n' "${arches[@]}" | grep -qx "$host"; then
	buildah tag "$image-$host" "$image"
	rm -f target/dist/restop-image.oci.tar
	podman save --quiet --format oci-archive -o target/dist/restop-image.oci.tar "$image"
fi
buildah manifest rm "$image-index" >/dev/null 2>&1 || true
buildah manifest create "$image-index" >/dev/null
for arch in "${arches[@]}"; do
	buildah manifest add --arch "$arch" --os linux "$image-index" "containers-storage:$image-$arch" >/dev/null
done
rm -f target/dist/restop-image-multiarch.oci.tar
buildah manifest push --quiet --all --format oci "$image-index" \
	"oci-archive:target/dist/restop-image-multiarch.oci.tar:restop:$version"
echo "$image-index"
