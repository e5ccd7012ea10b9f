#!/usr/bin/env bash
# restop's OCI image, built without pulling anything from a container registry:
# buildah from scratch, with files from Debian packages (the C library, libgcc,
# libibverbs + its providers and libnl, so device limits can be read through
# verbs) and the release binary. Runs as user 65534.
#   scripts/image-build.sh [BINARY]      default target/dist/restop-x86_64
# Output: the image localhost/restop:<version> in root's container storage, and
# target/dist/restop-image.oci.tar (oci-archive) for `podman load` elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/dist/restop-x86_64}
[ -x "$bin" ] || { echo "image-build: no $bin (run scripts/release-build.sh x86_64)" >&2; exit 2; }
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
image=localhost/restop:$version
cache=${RESTOP_DEB_CACHE:-/var/cache/restop-deploy/debs}
root=target/image-root
rm -rf "$root"
mkdir -p "$root"

packages=(libc6 libgcc-s1 libibverbs1 ibverbs-providers libnl-3-200 libnl-route-3-200)
for deb in $(scripts/fetch-debs.sh "$cache" "${packages[@]}"); do
	dpkg-deb -x "$deb" "$root"
done
# What a process that never execs, localises or converts charsets does not need.
rm -rf "$root"/usr/share/{doc,man,info,locale,lintian,bug} \
	"$root"/usr/lib/*/gconv "$root"/usr/lib/*/audit "$root"/sbin "$root"/usr/sbin \
	"$root"/usr/bin "$root"/usr/libexec "$root"/var
install -D -m 0755 "$bin" "$root/usr/bin/restop"
printf 'root:x:0:0:root:/:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
echo 'include /etc/ld.so.conf.d/*.conf' >"$root/etc/ld.so.conf"
ldconfig -r "$root"

ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
buildah copy --quiet "$ctr" "$root" / >/dev/null
buildah config \
	--user 65534:65534 \
	--entrypoint '["/usr/bin/restop"]' \
	--env RESTOP_LISTEN=0.0.0.0:9879 \
	--cmd '["export"]' \
	--port 9879/tcp \
	--label org.opencontainers.image.title=restop \
	--label org.opencontainers.image.description="top for RDMA resources, with a Prometheus exporter" \
	--label org.opencontainers.image.version="$version" \
	--label org.opencontainers.image.licenses="MIT OR Apache-2.0" \
	"$ctr"
buildah commit --quiet --rm "$ctr" "$image" >/dev/null
trap - EXIT
mkdir -p target/dist
rm -f target/dist/restop-image.oci.tar
podman save --quiet --format oci-archive -o target/dist/restop-image.oci.tar "$image"
echo "$image"
