#!/bin/bash
# The end-to-end scenario (tests/it/vm_e2e/), one boot, in phases:
#
# 1. snapshot: rxe0 and rxe1 with every workload holding its objects; `rdma`
#    dumps and a thread->process map right before and right after
#    `restop --json`; then `restop --once` and two filtered `--json` runs.
# 2. user: `restop --json` and `--once` as an unprivileged user (uid 1000).
# 3. tui: the interactive view in a 160x50 tmux pane: the main screen, the
#    ERROR-QP pane (`e`) between two `rdma` dumps, then `q`.
# 4. churn: a process creating/destroying QPs and MRs and moving QPs to ERR,
#    short-lived threads and processes, while restop runs 20 x --json and
#    3 x --once.
# 5. vanish: the users of rxe1 are stopped, then `rdma link delete rxe1` while
#    the interactive view (-d 500ms) and a loop of `restop --json` run.
# 6. cgroup: a workload of its own in cgroup v2 /pod1/c1, with `rdma.max` quotas
#    at (c1: hca_handle) and near (pod1: hca_object) their limit; `restop
#    --json` and `--once`; the workload is stopped before the phase ends.
#
# Output:
#   ready/<workload>.txt             what each workload created (see vm_workload.c)
#   rdma-before/, rdma-after/        summary.json and <type>.json from `rdma -j [-d] res show`
#   tasks-before.tsv, tasks-after.tsv   tid, tgid, comm of every thread
#   restop-json.*, restop-once.*     stdout, stderr, rc, seconds, uptime
#   restop-export.*, restop.prom     `restop export --textfile --once` and its file
#   restop-json-dev-rxe1.*, restop-json-pid-thread.*   --json with --dev rxe1 / --pid <a worker tid>
#   restop-user-json.*, restop-user-once.*   as uid 1000
#   tui/         main.txt, errors.txt, device.txt (the device view), signal-*.txt and
#                victim.{pid,rc} (the signal dialog), quit.txt (screens; *.alternate: 1 = alternate screen),
#                rc, stty-after.txt, rdma-before/ rdma-after/ tasks-*.tsv around errors.txt
#   churn/       json-NN.*, once-NN.*, churn.log (the churn workload's summary line),
#                flash.log (short-lived processes), flash.count
#   vanish/      rdma-before/, rdma-after/ (+ tasks), json-NN.*, delete.{rc,uptime,stderr},
#                tui/ (before.txt, after.txt, quit.txt, rc, ...)
#   cgroup/      ready.txt (the workload's), proc-cgroup.txt (its /proc/PID/cgroup),
#                files-before/, files-after/ (rdma.max and rdma.current of pod1 and pod1/c1
#                as pod1.max, pod1.current, pod1-c1.max, ...), json.*, once.*
#   env/         devices, links, ibv_devinfo -v, modules
# Without a restop binary in the guest (run-vm.sh without -b) the restop steps
# are skipped and restop.missing is written.
# shellcheck disable=SC2154 # PID_<name> variables are set by spawn (lib.sh)
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

USER_RUN=(setpriv --reuid=1000 --regid=1000 --clear-groups)
# a workload's pid from its ready file
pid_of() { sed -n 's/^process pid=\([0-9]*\) .*/\1/p' "$OUT/ready/$1.txt"; }

phase_snapshot() {
	rdma_dump rdma-before
	task_map tasks-before.tsv
	capture restop-json restop --json
	# the old-glibc release binary, when the harness brought it (run-all.sh builds it)
	if command -v restop-x86_64 >/dev/null; then
		capture restop-release-json restop-x86_64 --json
	fi
	# the exporter's textfile, from the same static workloads
	capture restop-export restop export --textfile "$OUT/restop.prom" --once
	rdma_dump rdma-after
	task_map tasks-after.tsv
	# --once is not on a terminal here: give it a fixed width
	capture restop-once env COLUMNS=160 restop --once
	# filters: one device; a creating thread's id selects its process
	capture restop-json-dev-rxe1 restop --json --dev rxe1
	local live_tid
	live_tid=$(sed -n 's/^thread tid=\([0-9]*\) name=wl_live .*/\1/p' "$OUT/ready/threads.txt")
	capture restop-json-pid-thread restop --json --pid "$live_tid"
	mark "snapshot-done"
}

phase_user() {
	capture restop-user-json "${USER_RUN[@]}" restop --json
	capture restop-user-once "${USER_RUN[@]}" env COLUMNS=160 restop --once
	mark "user-done"
}

# The signal dialog on a throwaway workload of its own: filter the view to its
# pid, K, check the dialog names it, Enter (SIGTERM, the default). Output in
# tui/: signal-dialog.txt, signal-sent.txt, victim.pid, victim.rc (its exit
# status as `wait` gives it: 143 for SIGTERM; "alive" if it outlived 10 s).
phase_tui_signal() {
	local d=$OUT/tui _
	# leave the device view, focus back on the consumers: Shift-Tab from the
	# devices (Tab would go on to the problems strip, there are problems here)
	tmux send-keys -t tui Escape
	sleep 0.5
	tmux send-keys -t tui BTab
	spawn victim vm_workload -r /tmp/victim.ready -d rxe0 -g "$RXE0_GID" threads
	echo "$PID_victim" >"$d/victim.pid"
	wait_ready /tmp/victim.ready 30 || return 1
	tui_wait tui 30 -E "^ *$PID_victim .*vm_workload" || return 1
	tmux send-keys -t tui / "$PID_victim" Enter
	sleep 1
	tmux send-keys -t tui K
	tui_wait tui 10 "pid $PID_victim " || return 1
	tui_capture tui tui/signal-dialog.txt
	# only ever confirm a dialog that names the throwaway process
	if grep -q "pid $PID_victim " "$d/signal-dialog.txt"; then
		tmux send-keys -t tui Enter
	else
		tmux send-keys -t tui Escape
	fi
	for _ in $(seq 50); do
		kill -0 "$PID_victim" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$PID_victim" 2>/dev/null; then
		echo alive >"$d/victim.rc"
		kill -KILL "$PID_victim"
	fi
	wait "$PID_victim"
	local rc=$?
	[ -s "$d/victim.rc" ] || echo "$rc" >"$d/victim.rc"
	tui_wait tui 5 "sent to pid $PID_victim"
	tui_capture tui tui/signal-sent.txt
	tmux send-keys -t tui Escape
	mark "tui-signal-done"
}

phase_tui() {
	local w
	tui_start tui tui restop -d 500ms
	# the consumers table fills once the first object dumps are in
	for w in objects threads pair cm; do
		tui_wait tui 30 -E "^ *$(pid_of $w) .*vm_workload" || break
	done
	sleep 1
	tui_capture tui tui/main.txt
	# the ERROR pane needs QPs, and PDs and contexts to trace QPs without a pid
	rdma_dump tui/rdma-before "qp pd ctx"
	task_map tui/tasks-before.tsv
	tmux send-keys -t tui e
	tui_wait tui 10 'QPs in ERR/SQE'
	sleep 1.5 # a refresh or two on the pane
	tui_capture tui tui/errors.txt
	rdma_dump tui/rdma-after "qp pd ctx"
	task_map tui/tasks-after.tsv
	# the device view of the first device: back to the main screen, the
	# devices pane (Tab), Enter on its selected (first) row
	tmux send-keys -t tui Escape
	sleep 0.5
	tmux send-keys -t tui Tab
	sleep 0.5
	tmux send-keys -t tui Enter
	tui_wait tui 10 'Consumers on '
	sleep 1
	tui_capture tui tui/device.txt
	rdma_dump tui/rdma-device "qp pd ctx"
	task_map tui/tasks-device.tsv
	phase_tui_signal
	tui_quit tui tui
	mark "tui-done"
}

CHURN_JSON_RUNS=20
phase_churn() {
	local d=$OUT/churn i n=0 flash_pids=()
	mkdir -p "$d"
	spawn churn vm_workload -r /tmp/ready/churn.txt -d rxe0 churn 300
	wait_ready /tmp/ready/churn.txt 30 || return 1
	# short-lived processes: one a second, each living 50-450 ms
	(
		while [ ! -e /tmp/churn.stop ]; do
			vm_workload -d rxe0 flash $((50 + RANDOM % 400)) >>"$d/flash.log" 2>&1 &
			n=$((n + 1))
			echo $n >"$d/flash.count"
			sleep 1
		done
		wait
	) &
	flash_pids+=($!)
	for i in $(seq -w 1 $CHURN_JSON_RUNS); do
		capture "churn/json-$i" restop --json
		case $i in 07 | 14 | 20) capture "churn/once-$i" env COLUMNS=160 restop --once ;; esac
	done
	touch /tmp/churn.stop
	kill -TERM "$PID_churn"
	wait "$PID_churn" "${flash_pids[@]}"
	grep '^churn ' "$OUT/procs/churn.log" >"$d/churn.log"
	mark "churn-done"
}

# runs_done DIR: how many json-* runs in DIR have ended
runs_done() {
	local f n=0
	for f in "$1"/json-*.rc; do [ -e "$f" ] && n=$((n + 1)); done
	echo $n
}

# vanish: rxe1 goes away while restop runs. Deleting an rxe device waits in the
# kernel until every process that opened it has closed it (rxe cannot revoke a
# user context), and the rping pair is stopped: so the users of rxe1 (rping,
# the cm workload, the objects workload) are ended first.
phase_vanish() {
	local d=$OUT/vanish p _ loop u1
	mkdir -p "$d"
	kill -KILL "$PID_rping_client" "$PID_rping_server"
	kill -TERM "$PID_cm" "$PID_objects"
	wait "$PID_rping_client" "$PID_rping_server" "$PID_cm" "$PID_objects" 2>/dev/null
	for _ in $(seq 50); do
		[ -z "$(rdma res show ctx dev rxe1)" ] && break
		sleep 0.2
	done
	rdma_dump vanish/rdma-before
	task_map vanish/tasks-before.tsv
	tui_start vanish vanish/tui restop -d 500ms
	tui_wait vanish 30 '^rxe1 '
	tui_capture vanish vanish/tui/before.txt
	# restop --json back to back until told to stop
	(
		i=0
		while [ ! -e /tmp/vanish.stop ] && [ $i -lt 30 ]; do
			i=$((i + 1))
			capture "vanish/json-$(printf %02d $i)" restop --json
		done
	) &
	loop=$!
	# delete while the third run collects
	for _ in $(seq 150); do [ -e "$d/json-03.stdout" ] && break; sleep 0.2; done
	sleep 0.3
	mark "vanish-delete-start"
	# in the background: a delete stuck in the kernel (state D) cannot be
	# killed, and must not hold up the rest
	local u0 rc
	u0=$(uptime_s)
	(
		rdma link delete rxe1 2>"$d/delete.stderr"
		echo "$? $(uptime_s)" >/tmp/vanish.delete.tmp
		mv /tmp/vanish.delete.tmp /tmp/vanish.delete
	) &
	for _ in $(seq 300); do [ -e /tmp/vanish.delete ] && break; sleep 0.2; done
	if [ -e /tmp/vanish.delete ]; then
		read -r rc u1 </tmp/vanish.delete
	else
		rc=124 u1=$(uptime_s) # still blocked after 60 s
	fi
	echo "$rc" >"$d/delete.rc"
	echo "$u0 $u1" >"$d/delete.uptime"
	mark "vanish-delete-end rc=$rc"
	# two more runs that start after the delete (the one running now ends first)
	p=$(runs_done "$d")
	for _ in $(seq 150); do
		[ "$(runs_done "$d")" -ge $((p + 3)) ] && break
		sleep 0.2
	done
	touch /tmp/vanish.stop
	wait $loop
	rdma_dump vanish/rdma-after
	task_map vanish/tasks-after.tsv
	rdma -j -d dev show >"$d/rdma-dev.json"
	sleep 1.5 # a refresh or two of the view
	tui_capture vanish vanish/tui/after.txt
	tui_quit vanish vanish/tui
	mark "vanish-done"
}

# cgroup_files DIR: rdma.max and rdma.current of /pod1 and /pod1/c1 into $OUT/DIR
cgroup_files() {
	local cg=/sys/fs/cgroup g
	mkdir -p "$OUT/$1"
	for g in pod1 pod1/c1; do
		cat "$cg/$g/rdma.max" >"$OUT/$1/${g//\//-}.max"
		cat "$cg/$g/rdma.current" >"$OUT/$1/${g//\//-}.current"
	done
}

# cgroup: the rdma controller's quotas on a workload of its own (on rxe0, which
# outlives the vanish phase), in /pod1/c1. c1 allows 1 device context, which
# the workload holds (100%); pod1 allows one verbs object more than it holds.
phase_cgroup() {
	local d=$OUT/cgroup cg=/sys/fs/cgroup cur
	mkdir -p "$d"
	grep -q " $cg cgroup2 " /proc/mounts || mount -t cgroup2 none $cg || return 1
	echo +rdma >$cg/cgroup.subtree_control || return 1
	mkdir -p $cg/pod1/c1
	echo +rdma >$cg/pod1/cgroup.subtree_control || return 1
	# into the cgroup before exec: every object is charged to c1 and pod1
	spawn cgroup bash -c "echo \$\$ >$cg/pod1/c1/cgroup.procs && exec vm_workload -r /tmp/cgroup.ready -d rxe0 -g $RXE0_GID threads"
	wait_ready /tmp/cgroup.ready 30 || return 1
	cp /tmp/cgroup.ready "$d/ready.txt"
	cat "/proc/$PID_cgroup/cgroup" >"$d/proc-cgroup.txt"
	cur=$(sed -n 's/^rxe0 hca_handle=[0-9]* hca_object=\([0-9]*\).*/\1/p' $cg/pod1/rdma.current)
	echo "rxe0 hca_handle=max hca_object=$((cur + 1))" >$cg/pod1/rdma.max || return 1
	echo "rxe0 hca_handle=1 hca_object=max" >$cg/pod1/c1/rdma.max || return 1
	cgroup_files cgroup/files-before
	capture cgroup/json restop --json
	capture cgroup/once env COLUMNS=160 restop --once
	cgroup_files cgroup/files-after
	kill -TERM "$PID_cgroup"
	wait "$PID_cgroup"
	rmdir $cg/pod1/c1 $cg/pod1
	mark "cgroup-done"
}

if command -v restop >/dev/null; then
	phase_snapshot
	phase_user
	phase_tui
	phase_churn || log "churn phase failed"
	phase_vanish
	phase_cgroup || log "cgroup phase failed"
else
	echo "no restop binary in the guest (run-vm.sh -b PATH)" >"$OUT"/restop.missing
	rdma_dump rdma-before
	rdma_dump rdma-after
	task_map tasks-before.tsv
	task_map tasks-after.tsv
fi
exit 0
