#!/bin/bash
# ExecStart of restop-vm.service in the systemd guest (run-vm.sh -s): the scenario
# under the run's timeout, as guest/init runs it in the busybox guest. The
# console lines starting with "@@ " are the host's milestones (timings.txt).
export PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin HOME=/root LANG=C LC_ALL=C
say() { echo "@@ $*" >/dev/console; }
timeout=600
for arg in $(cat /proc/cmdline); do
	case $arg in restop_vm.timeout=*) timeout=${arg#*=} ;; esac
done
# MRs pin memory (as guest/init sets it for the busybox guest)
ulimit -l unlimited
args=$(cat /scenario/args 2>/dev/null)
say "scenario-start uptime=$(cut -d' ' -f1 /proc/uptime)"
cd /scenario || exit 1
eval "timeout -k 5 $timeout /scenario/run.sh $args" </dev/null >/out/scenario.log 2>&1
rc=$?
echo "$rc" >/out/scenario.rc
say "scenario-end rc=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
dmesg >/out/dmesg.txt
journalctl -b --no-pager -o short-monotonic >/out/journal.txt 2>&1
systemd-analyze >/out/systemd-analyze.txt 2>&1
sync
exit 0
