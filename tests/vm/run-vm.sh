#!/bin/bash
# Boot Debian's stock kernel under QEMU, bring up Soft-RoCE (rdma_rxe) and run one
# guest scenario against that real kernel RDMA stack. Results come back through a
# 9p share into the output folder.
#
#   tests/vm/run-vm.sh [options] SCENARIO [ARGS...]
#
# SCENARIO is a bash script (e.g. tests/vm/scenarios/main.sh) run in the guest as
# /scenario/run.sh ARGS; it can `. /scenario/lib.sh`. What it writes under /out
# lands in the output folder.
#
# Options:
#   -b FILE   host binary to copy to the guest's /usr/local/bin, with the libraries
#             ldd lists (repeatable), e.g. target/debug/restop
#   -o DIR    output folder (default: a new mktemp folder, printed at the end)
#   -t SECS   hard timeout of the whole VM run (default 600)
#   -c N      guest vCPUs (default: host cores)
#   -m MEM    guest memory (default 2G)
#   -a ACCEL  auto | kvm | tcg (default auto: KVM only if /proc/cpuinfo shows vmx
#             or svm, with a boot watchdog that falls back to TCG)
#   -i        interactive: the console is this terminal; after the scenario the
#             guest gives a bash shell, `exit` powers it off
#   -n        never run apt-get (fail if something is missing)
#   -s        systemd guest: the host's root, shared read-only over 9p below a
#             tmpfs overlay, with systemd as PID 1 booting restop-vm.target (the
#             basic system and the scenario, tests/vm/guest/systemd/); the
#             scenario runs from restop-vm.service with the host's programs
#             (dpkg, systemctl, curl, rdma) and may change anything: the
#             changes stay in the guest's memory (with -i: the console, no shell)
#   -k PKG    boot this kernel package instead of the one linux-image-amd64 depends
#             on (e.g. linux-image-7.3.4+deb13-amd64); a package the host's apt
#             sources do not have is looked up in Debian's bookworm-backports,
#             trixie, trixie-backports and sid through a sources list of its own
#             under the cache ($RESTOP_VM_CACHE/apt), never the host's
#   -h        this help
#
# Environment:
#   RESTOP_VM_CACHE     kernel cache (default /var/cache/restop-vm)
#   RESTOP_VM_DEB_DIRS  extra folders (':'-separated) searched for an already
#                       downloaded kernel .deb (/var/cache/apt/archives always is)
#   RESTOP_VM_KERNEL    the kernel package, as -k (which wins)
#
# Needs root. Exit status: the scenario's; 124 on timeout; 2 on setup errors.
set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${RESTOP_VM_CACHE:-/var/cache/restop-vm}
OUT=
TIMEOUT=600
CPUS=$(nproc)
MEM=2G
ACCEL=auto
INTERACTIVE=0
APT=1
KPKG=${RESTOP_VM_KERNEL:-}
SYSTEMD=0
BINS=()

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
log() { echo "[run-vm $(date +%T)] $*" >&2; }
die() { log "error: $*"; exit 2; }

while getopts "b:o:t:c:m:a:k:insh" opt; do
	case $opt in
	b) BINS+=("$OPTARG") ;;
	o) OUT=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	c) CPUS=$OPTARG ;;
	m) MEM=$OPTARG ;;
	a) ACCEL=$OPTARG ;;
	i) INTERACTIVE=1 ;;
	n) APT=0 ;;
	s) SYSTEMD=1 ;;
	k) KPKG=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { usage >&2; exit 2; }
SCENARIO=$1
shift
[ -f "$SCENARIO" ] || die "scenario $SCENARIO not found"
[ "$(id -u)" = 0 ] || die "needs root (apt-get, and qemu writing the results as root)"
T0=$(date +%s.%N)
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# --- host packages -----------------------------------------------------------
PACKAGES=(qemu-system-x86 busybox-static bash coreutils util-linux iproute2 kmod cpio gcc libc6-dev
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils libibverbs-dev librdmacm-dev
	tmux ncurses-base ethtool)
# the systemd guest runs the host's own systemd, dpkg (with deb-systemd-helper) and curl
[ $SYSTEMD = 1 ] && PACKAGES+=(systemd dpkg perl init-system-helpers curl)
apt_updated=0
apt_update() {
	[ $apt_updated = 1 ] && return 0
	apt_updated=1
	log "apt-get update"
	apt-get update -qq >&2 || log "apt-get update failed, trying anyway"
}
missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ $APT = 1 ] || die "missing packages: ${missing[*]}"
	apt_update
	log "apt-get install ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
fi

# --- kernel: the package linux-image-amd64 depends on (or -k), unpacked in the cache ---
kernel_package() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}
# apt over Debian's newer suites, with lists and downloads of its own under the cache:
# the host's sources and lists are never touched
EXTRA_APT=$CACHE/apt
extra_apt_opts() {
	echo -o "Dir::Etc::SourceList=$EXTRA_APT/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o "Dir::State::Lists=$EXTRA_APT/lists" -o "Dir::Cache=$EXTRA_APT/cache" \
		-o APT::Architectures=amd64 -o APT::Sandbox::User=root
}
extra_apt_update() {
	[ -f "$EXTRA_APT/updated" ] && return 0
	[ $APT = 1 ] || return 1
	mkdir -p "$EXTRA_APT/lists/partial" "$EXTRA_APT/cache/archives/partial"
	local suite
	for suite in bookworm-backports trixie trixie-backports sid; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
	done >"$EXTRA_APT/sources.list"
	log "apt-get update (Debian's newer suites, for $KPKG)"
	# shellcheck disable=SC2046 # the options are words
	apt-get $(extra_apt_opts) update -qq >&2 && touch "$EXTRA_APT/updated"
}
# download PKG into the cache's debs folder: the host's sources, then the newer suites
download_deb() {
	log "downloading $1"
	(cd "$CACHE/debs" && apt-get download "$1" >&2 2>/dev/null) && return 0
	{ apt_update; (cd "$CACHE/debs" && apt-get download "$1" >&2 2>/dev/null); } && return 0
	extra_apt_update || return 1
	# shellcheck disable=SC2046
	(cd "$CACHE/debs" && apt-get $(extra_apt_opts) download "$1" >&2)
}
# the newest .deb of PKG already on this machine (cache, apt's archives, RESTOP_VM_DEB_DIRS)
find_deb() {
	local d deb
	IFS=: read -r -a deb_dirs <<<"$CACHE/debs:/var/cache/apt/archives:${RESTOP_VM_DEB_DIRS:-}"
	for d in "${deb_dirs[@]}"; do
		[ -n "$d" ] || continue
		deb=$(ls -1 "$d/${1}"_*_amd64.deb 2>/dev/null | sort -V | tail -n 1 || true)
		[ -n "$deb" ] && { echo "$deb"; return 0; }
	done
	return 1
}
# unpack PKG into DIR, fetching it first when needed
unpack_deb() {
	local deb
	deb=$(find_deb "$1") || { download_deb "$1" || die "apt-get download $1 failed"; deb=$(find_deb "$1"); } ||
		die "no .deb of $1 after downloading it"
	log "unpacking $deb"
	dpkg-deb -x "$deb" "$2" || die "dpkg-deb -x $deb failed"
}
if [ -z "$KPKG" ]; then
	KPKG=$(kernel_package)
	if [ -z "$KPKG" ] && [ $APT = 1 ]; then
		apt_update
		KPKG=$(kernel_package)
	fi
	if [ -z "$KPKG" ]; then # offline: the newest kernel already unpacked
		KPKG=$(ls -1 "$CACHE/kernel" 2>/dev/null | sort -V | tail -n 1)
		[ -n "$KPKG" ] || die "cannot tell which kernel package to use (no apt lists, empty cache)"
	fi
fi
KROOT=$CACHE/kernel/$KPKG
if ! ls "$KROOT"/boot/vmlinuz-* >/dev/null 2>&1; then
	mkdir -p "$CACHE/debs"
	rm -rf "$KROOT.partial"
	mkdir -p "$KROOT.partial"
	unpack_deb "$KPKG" "$KROOT.partial"
	# Debian's kernels from 7.x on split the image package: linux-image-V is empty and
	# depends on linux-binary-V (vmlinuz) and linux-modules-V
	if ! ls "$KROOT.partial"/boot/vmlinuz-* >/dev/null 2>&1; then
		for part in binary modules; do
			unpack_deb "linux-$part-${KPKG#linux-image-}" "$KROOT.partial"
		done
	fi
	# ... and ship the image as /usr/lib/modules/V/vmlinuz, the modules under /usr/lib:
	# put them where older packages have them
	[ -e "$KROOT.partial/lib" ] || ln -s usr/lib "$KROOT.partial/lib"
	for img in "$KROOT.partial"/usr/lib/modules/*/vmlinuz; do
		[ -f "$img" ] || continue
		v=$(basename "$(dirname "$img")")
		mkdir -p "$KROOT.partial/boot"
		[ -e "$KROOT.partial/boot/vmlinuz-$v" ] || ln "$img" "$KROOT.partial/boot/vmlinuz-$v"
	done
	ls "$KROOT.partial"/boot/vmlinuz-* >/dev/null 2>&1 || die "$KPKG has no kernel image"
	mv "$KROOT.partial" "$KROOT"
fi
VMLINUZ=$(ls -1 "$KROOT"/boot/vmlinuz-* | sort -V | tail -n 1)
KVER=${VMLINUZ##*/vmlinuz-}
KMODS=$KROOT/lib/modules/$KVER
[ -d "$KMODS" ] || die "no modules for $KVER in $KROOT"
[ -f "$KMODS/modules.dep" ] || depmod -b "$KROOT" "$KVER"

# --- output folder and scratch space -------------------------------------------
if [ -z "$OUT" ]; then
	OUT=$(mktemp -d /tmp/restop-vm.XXXXXX)
else
	mkdir -p "$OUT"
fi
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT/scenario.rc"
BUILD=$(mktemp -d /tmp/restop-vm-build.XXXXXX)
QEMU_PID=
cleanup() {
	[ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null
	rm -rf "$BUILD"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- workloads -----------------------------------------------------------------
WORKLOADS=()
for src in "$VM_DIR"/workloads/*.c; do
	[ -e "$src" ] || continue
	bin=$BUILD/$(basename "$src" .c)
	gcc -O2 -Wall -Wextra -o "$bin" "$src" -libverbs -lrdmacm -lpthread || die "building $src failed"
	WORKLOADS+=("$bin")
done

# --- initramfs -------------------------------------------------------------------
R=$BUILD/root
mkdir -p "$R"/{usr/bin,usr/sbin,usr/lib,usr/lib64,usr/local/bin,etc,proc,sys,dev,tmp,run,root,out,scenario}
ln -s usr/bin "$R/bin"
ln -s usr/sbin "$R/sbin"
ln -s usr/lib "$R/lib"
ln -s usr/lib64 "$R/lib64"

# put FILE at DEST (default: same path, with its folder resolved, so that the
# usr-merged /lib -> /usr/lib paths ldd prints land in one place)
put() {
	local src=$1 dst=${2:-$(realpath "$(dirname "$1")")/$(basename "$1")}
	[ -e "$R$dst" ] && return 0
	mkdir -p "$R$(dirname "$dst")"
	cp -L "$src" "$R$dst"
}
put_libs() {
	local lib
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$lib" ] && put "$lib"
	done
	return 0
}
put_prog() { # PATH-or-NAME DEST
	local src
	src=$(command -v "$1") || die "$1 not found on the host"
	put "$src" "$2"
	put_libs "$src"
}

put /bin/busybox /usr/bin/busybox
for b in bash rdma ip timeout date ibv_devices ibv_devinfo ibv_rc_pingpong ibv_ud_pingpong rping \
	tmux setpriv ethtool; do
	put_prog "$b" "/usr/bin/$b"
done
put_prog kmod /usr/bin/kmod
for l in modprobe insmod lsmod depmod; do ln -s ../bin/kmod "$R/usr/sbin/$l"; done
# the rxe userspace provider (dlopen()ed by libibverbs, so ldd does not list it)
for so in /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so; do
	put "$so"
	put_libs "$so"
done
put /etc/libibverbs.d/rxe.driver
# glibc dlopen()s libgcc_s for thread cancellation; rping dies without it
put /usr/lib/x86_64-linux-gnu/libgcc_s.so.1
for b in "${WORKLOADS[@]}" "${BINS[@]}"; do
	[ -f "$b" ] || die "$b: no such file"
	put "$b" "/usr/local/bin/$(basename "$b")"
	put_libs "$b"
done
# busybox applets for everything no real program provides
for a in $(/bin/busybox --list); do
	[ -e "$R/usr/bin/$a" ] || [ -e "$R/usr/sbin/$a" ] || ln -s busybox "$R/usr/bin/$a"
done
# the interactive view runs in tmux: tmux insists on a UTF-8 locale, and wants
# the terminfo entries of its own and the outer terminal
mkdir -p "$R/usr/lib/locale"
cp -r /usr/lib/locale/C.utf8 "$R/usr/lib/locale/"
for t in l/linux s/screen s/screen-256color x/xterm x/xterm-256color; do
	put "/lib/terminfo/$t" "/usr/share/terminfo/$t"
done
# an unprivileged user for the tests of what restop shows without CAP_NET_ADMIN
printf '%s\n' 'root:x:0:0:root:/root:/bin/bash' 'rdmauser:x:1000:1000:restop test user:/tmp:/bin/bash' \
	>"$R/etc/passwd"
printf '%s\n' 'root:x:0:' 'rdmauser:x:1000:' >"$R/etc/group"
echo '127.0.0.1 localhost' >"$R/etc/hosts"
echo /usr/lib/x86_64-linux-gnu >"$R/etc/ld.so.conf"
ldconfig -r "$R"

# kernel modules and what they depend on; crc32_generic: rxe computes its ICRC
# with the crc32 shash, without it `rdma link add` fails with ENOENT
# rdma_rxe must be a module; the others may be built in (newer kernels have crc32 and
# virtio_pci in the image, and no crc32_generic), veth is for the netns scenario
# overlay: the systemd guest's root; autofs4: systemd asks for it
MODULES=(rdma_rxe ib_uverbs rdma_ucm crc32_generic dummy veth 9p 9pnet_virtio virtio_pci)
[ $SYSTEMD = 1 ] && MODULES+=(overlay autofs4)
for m in "${MODULES[@]}"; do
	if ! deps=$(modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" 2>/dev/null); then
		[ "$m" = rdma_rxe ] && die "kernel module $m not found"
		log "kernel $KVER has no module $m (built in or absent)"
		continue
	fi
	for ko in $(awk '$1 == "insmod" { print $2 }' <<<"$deps"); do
		put "$ko" "/lib/modules/$KVER/${ko#"$KMODS"/}"
	done
done
cp "$KMODS"/modules.{order,builtin,builtin.modinfo} "$R/lib/modules/$KVER/" 2>/dev/null || true
depmod -b "$R" "$KVER"

install -m 0755 "$VM_DIR/guest/init" "$R/init"
install -m 0644 "$VM_DIR/guest/lib.sh" "$R/scenario/lib.sh"
install -m 0755 "$SCENARIO" "$R/scenario/run.sh"
if [ $SYSTEMD = 1 ]; then
	mkdir -p "$R/scenario/systemd"
	install -m 0755 "$VM_DIR"/guest/systemd/*.sh "$R/scenario/systemd/"
	install -m 0644 "$VM_DIR"/guest/systemd/restop-vm.{target,service} "$R/scenario/systemd/"
fi
[ $# -gt 0 ] && printf '%q ' "$@" >"$R/scenario/args"
(cd "$R" && find . -print0 | cpio --null -o -H newc --quiet) >"$BUILD/initramfs.cpio"
log "kernel $KVER, initramfs $(du -h "$BUILD/initramfs.cpio" | cut -f1) ready after $(elapsed "$T0")s"

# --- boot ------------------------------------------------------------------------
if [ "$ACCEL" = auto ]; then
	if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then ACCELS=(kvm tcg); else ACCELS=(tcg); fi
else
	ACCELS=("$ACCEL")
fi
# the guest stops the scenario a little before the host kills QEMU, so that the
# results written so far still reach the output folder
GUEST_TIMEOUT=$((TIMEOUT > 60 ? TIMEOUT - 20 : TIMEOUT * 2 / 3))
CONSOLE=$OUT/console.log

# boot ACCEL WATCHDOG_SECS -> 0 ran, 124 timeout, 125 no /init within the watchdog
boot() {
	local accel=$1 watchdog=$2 args=()
	# shellcheck disable=SC2054 # QEMU's own comma syntax
	if [ "$accel" = kvm ]; then args+=(-accel kvm -cpu host); else args+=(-accel tcg,thread=multi -cpu max); fi
	local append="console=ttyS0 panic=-1 loglevel=4 mitigations=off restop_vm.timeout=$GUEST_TIMEOUT"
	[ $INTERACTIVE = 1 ] && append+=" restop_vm.shell=1"
	[ $SYSTEMD = 1 ] && append+=" restop_vm.systemd=1 systemd.unit=restop-vm.target systemd.firstboot=0"
	args+=(-m "$MEM" -smp "$CPUS" -nodefaults -no-user-config -display none -no-reboot
		-kernel "$VMLINUZ" -initrd "$BUILD/initramfs.cpio" -append "$append"
		-virtfs "local,path=$OUT,mount_tag=restop_out,security_model=none,id=restop_out")
	# shellcheck disable=SC2054
	[ $SYSTEMD = 1 ] && args+=(-virtfs "local,path=/,mount_tag=restop_root,security_model=none,readonly=on,multidevs=remap,id=restop_root")
	if [ $INTERACTIVE = 1 ]; then
		log "booting ($accel); the guest console is this terminal"
		qemu-system-x86_64 "${args[@]}" -serial mon:stdio
		return 0
	fi
	log "booting ($accel, $CPUS vCPU, $MEM, timeout ${TIMEOUT}s), results in $OUT"
	: >"$CONSOLE"
	local start now
	start=$(date +%s)
	timeout -s KILL "$TIMEOUT" qemu-system-x86_64 "${args[@]}" -serial "file:$CONSOLE" \
		>"$OUT/qemu.log" 2>&1 &
	QEMU_PID=$!
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		sleep 1
		now=$(date +%s)
		if ! grep -aq '^@@ init-start' "$CONSOLE" && [ $((now - start)) -ge "$watchdog" ]; then
			log "no /init after ${watchdog}s with $accel"
			kill "$QEMU_PID" 2>/dev/null
			wait "$QEMU_PID" 2>/dev/null || true
			QEMU_PID=
			return 125
		fi
	done
	local rc=0
	wait "$QEMU_PID" || rc=$?
	QEMU_PID=
	[ $rc = 137 ] && { log "timeout after ${TIMEOUT}s"; return 124; }
	return 0
}

rc=125
for accel in "${ACCELS[@]}"; do
	tb=$(date +%s.%N)
	if [ "$accel" = kvm ]; then wd=30; else wd=180; fi
	boot "$accel" "$wd" && rc=0 || rc=$?
	[ $rc = 125 ] && continue
	break
done
[ $rc = 125 ] && die "the guest did not boot ($(tail -n 5 "$CONSOLE" 2>/dev/null | tr '\n' ' '))"
if [ $rc = 0 ]; then
	if [ -f "$OUT/scenario.rc" ]; then
		rc=$(cat "$OUT/scenario.rc")
	else
		log "the guest wrote no scenario.rc; console tail:"
		tail -n 20 "$CONSOLE" >&2 || true
		rc=2
	fi
fi
{
	echo "accel=$accel cpus=$CPUS mem=$MEM kernel=$KVER"
	grep -a '^@@ ' "$CONSOLE" 2>/dev/null | tr -d '\r' | sed 's/^@@ /guest: /' || true
	echo "vm_seconds=$(elapsed "$tb")"
	echo "total_seconds=$(elapsed "$T0")"
} >"$OUT/timings.txt"
log "rc=$rc after $(elapsed "$T0")s; results in $OUT"
exit "$rc"
