# shellcheck shell=bash
# Helpers for guest scenarios (bash):  . /scenario/lib.sh
# Everything written under $OUT reaches the host's output folder.
OUT=/out
RES_TYPES="qp cq mr pd cm_id ctx srq"
# the address of the rdma_cm device (TEST-NET-1: the VM has no NIC, nothing leaves it)
CM_ADDR=192.0.2.1

uptime_s() { cut -d' ' -f1 /proc/uptime; }
log() { echo "[$(uptime_s)] $*"; }
# a milestone: also on the console, where the host collects them into timings.txt
mark() {
	log "$*"
	echo "@@ $* uptime=$(uptime_s)" >/dev/console
}

# gid_index DEV: the first RoCE v2 GID of port 1 holding an IPv4 address
# (the GID table fills asynchronously after `rdma link add`: wait for it)
gid_index() {
	local port=/sys/class/infiniband/$1/ports/1 _ g
	for _ in $(seq 50); do
		for g in $(ls "$port/gids" 2>/dev/null | sort -n); do
			case $(cat "$port/gids/$g" 2>/dev/null) in
			0000:0000:0000:0000:0000:ffff:*)
				[ "$(cat "$port/gid_attrs/types/$g" 2>/dev/null)" = "RoCE v2" ] && { echo "$g"; return 0; } ;;
			esac
		done
		sleep 0.1
	done
	return 1
}

# rxe_up: rxe0 on lo (verbs over loopback) and rxe1 on dummy0 with $CM_ADDR
# (rdma_cm cannot resolve routes over lo). Sets RXE0_GID and RXE1_GID.
rxe_up() {
	local m
	for m in crc32_generic rdma_rxe ib_uverbs rdma_ucm dummy; do modprobe "$m" || return 1; done
	rdma link add rxe0 type rxe netdev lo || return 1
	# `modprobe dummy` may already have created dummy0
	ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy || return 1
	ip addr add "$CM_ADDR/24" dev dummy0
	ip link set dummy0 up
	rdma link add rxe1 type rxe netdev dummy0 || return 1
	RXE0_GID=$(gid_index rxe0) || { log "rxe0 has no IPv4 GID"; return 1; }
	RXE1_GID=$(gid_index rxe1) || { log "rxe1 has no IPv4 GID"; return 1; }
	mark "rxe-up rxe0_gid=$RXE0_GID rxe1_gid=$RXE1_GID"
}

# spawn NAME CMD...: run CMD in the background, output in $OUT/procs/NAME.log;
# its pid goes to $OUT/procs/pids.tsv and to the variable PID_NAME
spawn() {
	local name=$1
	shift
	mkdir -p "$OUT/procs"
	"$@" >"$OUT/procs/$name.log" 2>&1 &
	printf '%s\t%s\t%s\n' "$!" "$name" "$*" >>"$OUT/procs/pids.tsv"
	printf -v "PID_$name" '%s' "$!"
	log "spawned $name pid=$!: $*"
}

# wait_ready FILE SECS: until FILE ends with its "ready" line
wait_ready() {
	local _
	for _ in $(seq $(($2 * 10))); do
		[ "$(tail -n 1 "$1" 2>/dev/null)" = ready ] && return 0
		sleep 0.1
	done
	log "not ready after $2 s: $1"
	return 1
}

# rdma_dump DIR [TYPES]: `rdma -j res show` (summary) and `rdma -j -d res show
# TYPE` for every type (or only TYPES, e.g. "qp pd ctx") into $OUT/DIR/{summary,TYPE}.json
rdma_dump() {
	local dir=$OUT/$1 t
	mkdir -p "$dir"
	rdma -j res show >"$dir/summary.json" 2>"$dir/summary.stderr"
	for t in ${2:-$RES_TYPES}; do
		rdma -j -d res show "$t" >"$dir/$t.json" 2>"$dir/$t.stderr"
	done
	for t in "$dir"/*.stderr; do [ -s "$t" ] || rm -f "$t"; done
}

# task_map FILE: "tid tgid comm" for every thread of every process, to map the
# thread ids the kernel reports to processes
task_map() {
	local t tid tgid comm
	for t in /proc/[0-9]*/task/[0-9]*; do
		tid=${t##*/}
		tgid=${t#/proc/}
		tgid=${tgid%%/*}
		read -r comm 2>/dev/null <"$t/comm" || continue
		printf '%s\t%s\t%s\n' "$tid" "$tgid" "$comm"
	done >"$OUT/$1"
}

# capture NAME CMD...: CMD's stdout, stderr, exit status and wall seconds in
# $OUT/NAME.{stdout,stderr,rc,seconds}; NAME.uptime holds the guest uptime at
# its start and end (to place it relative to other events)
capture() {
	local name=$1 t0 u0 rc
	shift
	t0=$(date +%s.%N)
	u0=$(uptime_s)
	"$@" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"
	rc=$?
	echo "$rc" >"$OUT/$name.rc"
	echo "$u0 $(uptime_s)" >"$OUT/$name.uptime"
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", b - a }' >"$OUT/$name.seconds"
	log "$name: rc=$rc in $(cat "$OUT/$name.seconds") s: $*"
	return $rc
}

# --- the interactive view in a tmux pane -------------------------------------
# tui_start SESSION DIR CMD...: run CMD (e.g. restop -d 500ms) in a new detached
# tmux session of TUI_COLS x TUI_ROWS; when CMD ends, its exit status goes to
# $OUT/DIR/rc and the pane's `stty -a` (is the terminal back in cooked mode?)
# to $OUT/DIR/stty-after.txt, and the pane stays open
TUI_COLS=160 TUI_ROWS=50
tui_start() {
	local session=$1 dir=$OUT/$2
	shift 2
	mkdir -p "$dir"
	rm -f "$dir/rc"
	tmux -f /dev/null new-session -d -s "$session" -x $TUI_COLS -y $TUI_ROWS \
		"$* 2>$dir/stderr.txt; rc=\$?; echo \$rc >$dir/rc; echo restop-rc=\$rc; stty -a >$dir/stty-after.txt; exec sleep 3600"
}

# tui_screen SESSION: the pane's current text
tui_screen() { tmux capture-pane -p -t "$1"; }

# tui_wait SESSION SECS GREP-ARGS...: until the screen matches, then 0; else 1
tui_wait() {
	local session=$1 secs=$2 _
	shift 2
	for _ in $(seq $((secs * 5))); do
		tui_screen "$session" | grep -q "$@" && return 0
		sleep 0.2
	done
	log "tmux $session: screen never matched: $*"
	return 1
}

# tui_capture SESSION FILE: the screen into $OUT/FILE, and whether the pane is
# on the alternate screen (1) into $OUT/FILE.alternate
tui_capture() {
	tui_screen "$1" >"$OUT/$2"
	tmux display-message -p -t "$1" '#{alternate_on}' >"$OUT/$2.alternate"
}

# tui_quit SESSION DIR: press q; wait (up to 20 s) for the command to end;
# the screen after it goes to $OUT/DIR/quit.txt
tui_quit() {
	local session=$1 dir=$2 _
	tmux send-keys -t "$session" q
	for _ in $(seq 100); do
		[ -s "$OUT/$dir/rc" ] && break
		sleep 0.2
	done
	[ -s "$OUT/$dir/rc" ] || log "tmux $session: still running 20 s after q"
	tui_capture "$session" "$dir/quit.txt"
	tmux kill-session -t "$session"
}

# workloads_up: the project's workloads (tests/vm/workloads) and an rping
# connection, all holding their objects; their ready files end up in $OUT/ready/.
# The rping pair is stopped (SIGSTOP) once connected: its objects stay, and it
# stops eating the emulated CPUs.
workloads_up() {
	local r=/tmp/ready w
	mkdir -p $r "$OUT/ready"
	spawn objects vm_workload -r $r/objects.txt -d rxe0 -g "$RXE0_GID" objects rxe1
	spawn threads vm_workload -r $r/threads.txt -d rxe0 -g "$RXE0_GID" threads
	spawn pair vm_workload -r $r/pair.txt -d rxe0 -g "$RXE0_GID" pair 3
	spawn cm vm_workload -r $r/cm.txt cm "$CM_ADDR" 7471
	spawn rping_server rping -s -a "$CM_ADDR" -p 7174
	wait_rdma cm_id 'state LISTEN .*comm rping' 1 30 || return 1
	spawn rping_client rping -c -a "$CM_ADDR" -p 7174 -C 1000000000 -S 64
	wait_rdma cm_id 'state CONNECT .*comm rping' 2 30 || return 1
	# shellcheck disable=SC2154 # set by spawn
	kill -STOP "$PID_rping_client" "$PID_rping_server"
	for w in objects threads pair cm; do
		wait_ready $r/$w.txt 60 || return 1
		cp $r/$w.txt "$OUT/ready/"
	done
	mark "workloads-ready"
}

# wait_rdma TYPE REGEX N SECS: until `rdma res show TYPE` has N lines matching REGEX
wait_rdma() {
	local _
	for _ in $(seq $(($4 * 5))); do
		[ "$(rdma res show "$1" | grep -c -- "$2")" -ge "$3" ] && return 0
		sleep 0.2
	done
	log "timeout waiting for $3 $1 matching '$2'"
	rdma res show "$1"
	return 1
}
