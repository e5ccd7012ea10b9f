#!/bin/busybox sh
# The systemd guest (run-vm.sh -s): run by tests/vm/guest/init, as PID 1, once the
# results share is on /out. The host's root (shared read-only over 9p as
# restop_root) goes below a tmpfs overlay, so dpkg and systemd can write to it
# and the host is never touched; the scenario, this kernel's modules and the
# units of restop-vm.target are copied in, the units a test boot does not need
# are masked, and systemd becomes PID 1 (switch_root). restop-vm.service runs the
# scenario and powers the guest off (guest/systemd/run-scenario.sh).
say() { echo "@@ $*" >/dev/console; }
fail() {
	say "systemd guest: $*"
	echo 2 >/out/scenario.rc
	sync
	poweroff -f
}
N=/newroot
KVER=$(uname -r)
modprobe overlay || fail "no overlay module"
mkdir -p /lower /rw "$N"
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=262144,cache=loose restop_root /lower ||
	fail "cannot mount the host's root (restop_root)"
mount -t tmpfs -o mode=0755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work,index=off,metacopy=off,redirect_dir=off \
	overlay "$N" || fail "cannot mount the overlay over the host's root"
[ -x "$N/lib/systemd/systemd" ] || fail "the host has no /lib/systemd/systemd"

# what the guest needs from the initramfs: the scenario, the modules, the -b binaries
mkdir -p "$N/scenario" "$N/lib/modules" "$N/usr/local/bin" "$N/out"
cp -a /scenario/. "$N/scenario/"
rm -rf "$N/lib/modules/$KVER"
cp -a "/lib/modules/$KVER" "$N/lib/modules/"
for b in /usr/local/bin/*; do [ -f "$b" ] && cp -a "$b" "$N/usr/local/bin/"; done

# this guest's identity, not the host's
cat /proc/sys/kernel/random/uuid | tr -d - >"$N/etc/machine-id"
echo restop-vm >"$N/etc/hostname"
# a host that is a container says so in its root; systemd would believe the
# guest is one too (and ignore the kernel's command line)
rm -f "$N/.dockerenv" "$N/run/.containerenv"

# restop-vm.target: basic.target and the scenario. Masked: the host's own
# services, gettys and timers, udev (devtmpfs makes the device nodes), and the
# early units and generators a throwaway root does without: under TCG each of
# them costs seconds at boot and generators again at every daemon-reload.
# systemd-tmpfiles-setup would also empty the host's /tmp in the guest's view.
S=$N/etc/systemd/system
mkdir -p "$S" "$N/etc/systemd/system-generators"
cp /scenario/systemd/restop-vm.target /scenario/systemd/restop-vm.service "$S/"
for g in "$N"/lib/systemd/system-generators/*; do
	ln -sfn /dev/null "$N/etc/systemd/system-generators/${g##*/}"
done
for u in systemd-udevd.service systemd-udevd-control.socket systemd-udevd-kernel.socket \
	systemd-udev-trigger.service systemd-udev-settle.service systemd-hwdb-update.service \
	systemd-tmpfiles-setup.service systemd-tmpfiles-setup-dev.service systemd-tmpfiles-clean.timer \
	systemd-journal-flush.service systemd-journald-audit.socket systemd-update-utmp.service \
	systemd-sysusers.service systemd-sysctl.service systemd-modules-load.service modprobe@.service \
	kmod-static-nodes.service systemd-random-seed.service systemd-machine-id-commit.service \
	dev-hugepages.mount dev-mqueue.mount sys-kernel-debug.mount sys-kernel-tracing.mount \
	sys-kernel-config.mount sys-fs-fuse-connections.mount \
	systemd-timesyncd.service systemd-pstore.service systemd-networkd.service systemd-networkd.socket \
	systemd-resolved.service systemd-firstboot.service systemd-fsck-root.service \
	systemd-remount-fs.service systemd-logind.service ldconfig.service getty@.service \
	serial-getty@.service console-getty.service dbus.service dbus.socket cron.service ssh.service \
	apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer e2scrub_reap.service \
	fstrim.timer man-db.timer podman.socket podman.service podman-auto-update.timer \
	podman-auto-update.service podman-restart.service \
	proc-sys-fs-binfmt_misc.automount systemd-binfmt.service; do
	ln -sfn /dev/null "$S/$u"
done

say "systemd-guest-root uptime=$(cut -d' ' -f1 /proc/uptime)"
mount --move /out "$N/out"
umount /dev/shm /dev/pts /tmp /run 2>/dev/null
mount --move /dev "$N/dev"
mount --move /sys "$N/sys"
mount --move /proc "$N/proc"
exec switch_root "$N" /lib/systemd/systemd --unit=restop-vm.target
