#!/usr/bin/env bash
# The Debian package, built with dpkg-deb from the tree scripts/stage-files.sh makes
# (packaging/files.txt), the control file, conffiles and maintainer scripts in
# packaging/debian/. Output: target/dist/restop_<version>-<revision>_amd64.deb
#   scripts/package-deb.sh            packages target/dist/restop-x86_64 (release-build.sh)
#   scripts/package-deb.sh BINARY     packages another x86_64 binary
#   RESTOP_DEB_REVISION=2 ...         another Debian revision (the upgrade tests)
# Needs only dpkg-dev (dpkg-deb, dpkg-shlibdeps): no cargo-deb, whose `cargo install`
# costs minutes on every new machine. Built twice from one checkout, the package is
# the same byte for byte (SOURCE_DATE_EPOCH, default the last commit's time).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/dist/restop-x86_64}
[ -x "$bin" ] || { echo "package-deb: no $bin (run scripts/release-build.sh x86_64)" >&2; exit 2; }
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)-${RESTOP_DEB_REVISION:-1}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH
work=target/packaging/deb
root=$work/debian/restop
rm -rf "$work"
scripts/stage-files.sh "$bin" "$root"
doc=$root/usr/share/doc/restop
install -m 0644 packaging/debian/copyright "$doc/copyright"
gzip -9nc CHANGELOG.md >"$doc/changelog.gz"
gzip -9nc packaging/debian/changelog >"$doc/changelog.Debian.gz"

# Depends as Debian computes it, from the libraries and symbol versions the binary
# uses (dpkg-shlibdeps reads debian/control: an empty one will do).
: >"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -e debian/restop/usr/bin/restop 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "package-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

mkdir -p "$root/DEBIAN"
size=$(du -sk --apparent-size --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/amd64/" -e "s/@SIZE@/$size/" \
	-e "s/@DEPENDS@/$depends/" packaging/debian/control >"$root/DEBIAN/control"
install -m 0644 packaging/debian/conffiles "$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
	install -m 0755 "packaging/debian/$script" "$root/DEBIAN/$script"
done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
	xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +
find "$root" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
mkdir -p target/dist
out=target/dist/restop_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "$out"
