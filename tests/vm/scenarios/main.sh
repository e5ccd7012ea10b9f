#!/bin/bash
# The end-to-end scenario (tests/vm_e2e.rs): rxe0 and rxe1 with every workload
# holding its objects; `rdma` dumps and a thread->process map right before and
# right after `restop --json`; then `restop --once` and two filtered `--json` runs.
#
# Output:
#   ready/<workload>.txt             what each workload created (see vm_workload.c)
#   rdma-before/, rdma-after/        summary.json and <type>.json from `rdma -j [-d] res show`
#   tasks-before.tsv, tasks-after.tsv   tid, tgid, comm of every thread
#   restop-json.*, restop-once.*     stdout, stderr, rc, seconds
#   restop-json-dev-rxe1.*, restop-json-pid-thread.*   --json with --dev rxe1 / --pid <a worker tid>
#   env/                             devices, links, ibv_devinfo -v, modules
# Without a restop binary in the guest (run-vm.sh without -b) the restop steps
# are skipped and restop.missing is written.
. /scenario/lib.sh
rxe_up || exit 2
mkdir -p "$OUT/env"
rdma -j -d dev show >"$OUT"/env/rdma-dev.json
rdma -j -d link show >"$OUT"/env/rdma-link.json
ibv_devinfo -v >"$OUT"/env/ibv_devinfo.txt
lsmod >"$OUT"/env/lsmod.txt
uname -r >"$OUT"/env/kernel.txt
uname -n >"$OUT"/env/hostname.txt
workloads_up || exit 2

rdma_dump rdma-before
task_map tasks-before.tsv
if command -v restop >/dev/null; then
	capture restop-json restop --json
	rdma_dump rdma-after
	task_map tasks-after.tsv
	# --once is not on a terminal here: give it a fixed width
	capture restop-once env COLUMNS=160 restop --once
	# filters: one device; a creating thread's id selects its process
	capture restop-json-dev-rxe1 restop --json --dev rxe1
	live_tid=$(sed -n 's/^thread tid=\([0-9]*\) name=wl_live .*/\1/p' "$OUT/ready/threads.txt")
	capture restop-json-pid-thread restop --json --pid "$live_tid"
	mark "restop-done"
else
	echo "no restop binary in the guest (run-vm.sh -b PATH)" >"$OUT"/restop.missing
	rdma_dump rdma-after
	task_map tasks-after.tsv
fi
exit 0
