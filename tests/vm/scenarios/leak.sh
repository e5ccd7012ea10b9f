#!/bin/bash
# The trend scenario (tests/it/vm_leak.rs): on rxe0, a process that keeps creating
# QPs and MRs, one that holds a steady pool with a small sawtooth, and one whose
# QP goes to ERR a few seconds after restop starts; `restop --batch --json`
# watches them for a little over a minute with the default trend settings.
#
# Output:
#   ready/{leaker,steady,broken}.txt   pid (and the QP number) of each workload
#   restop-batch.*                     stdout (JSON Lines), stderr, rc, seconds
#   rdma-after/                        `rdma -j [-d] res show` once restop is done
# Without a restop binary in the guest the batch step is skipped and
# restop.missing is written.
. /scenario/lib.sh
rxe_up || exit 2

# Ticks of 2 s, 32 of them: 62 s of history, past the one-minute verdict.
INTERVAL=2s
TICKS=32

r=/tmp/ready
mkdir -p $r "$OUT/ready"
spawn leaker leak_workload -r $r/leaker.txt -d rxe0 leak 1000
spawn steady leak_workload -r $r/steady.txt -d rxe0 steady 8 1000
# ERR some 6-10 s into the batch run: its age starts after restop did
spawn broken leak_workload -r $r/broken.txt -d rxe0 err 8000
for w in leaker steady broken; do
	wait_ready $r/$w.txt 30 || exit 2
	cp $r/$w.txt "$OUT/ready/"
done
mark "leak-workloads-ready"

if command -v restop >/dev/null; then
	capture restop-batch restop --batch --json -d $INTERVAL -n $TICKS
	mark "restop-batch-done"
else
	echo "no restop binary in the guest (run-vm.sh -b PATH)" >"$OUT"/restop.missing
fi
rdma_dump rdma-after
exit 0
