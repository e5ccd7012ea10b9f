#!/bin/bash
# The performance scenario (tests/it/vm_perf.rs, docs/performance.md): one
# process on rxe0 grows a host through several sizes (scale_workload.c); at
# each size the same reads are timed side by side, interleaved, repetition by
# repetition:
#   bare    bare_dump: the GET dump and the seven RES_*_GET dumps per device,
#           read and discarded (the least any tool can do)
#   restop  restop --json
#   rdma    iproute2's `rdma -j res show TYPE` for each of the seven types
# each under perf_time (wall, user and system CPU, peak RSS); `rdma` only in
# the first RDMA_REPS repetitions (its MR dump reads /proc for every MR: tens
# of seconds at 20k MRs under TCG, minutes at 100k). Then, as the stage's
# flags ask:
#   s  start-up parts, interleaved: bare_dump, `restop --version`, `restop
#      --json --no-verbs`, `restop --json` (as many times as REPS); and
#      under strace (when the harness brought it) a syscall summary, a
#      timeline and the files restop opens; `restop --demo --batch --json -n
#      100 -d 1ms` (no kernel: restop's own code, to compare with the host); and
#      when the harness brought perf and restop-profiling (the build with symbols),
#      a profile of `--version` and `--json --no-verbs` by shared object and symbol
#   k  ticks without object dumps: `restop --batch --json -d 1s
#      --objects-every 1h`, its CPU (utime/stime from /proc) over TICK_S
#      seconds (-k) once the first tick (the one full dump) is done
#   t  the interactive view (-d 1s) in tmux for TUI_S seconds (-u): its CPU
#   f  freshness: `restop --batch --json -d 1s` (default cadence) for
#      FRESH_TICKS reports (-f): per-type dump ages tick by tick
#   F  the same, first, before the timed repetitions (so that a run cut short by
#      its timeout still has it)
#   m  no `rdma res show mr` (minutes per dump on the largest hosts)
#   M  `rdma res show mr` only once, last, under a 900 s timeout (rc 124 when
#      it ran out)
# and always the summary alone: `bare_dump -s -n 20` (the kernel's share of a
# tick: RES_GET counts every type by walking its table).
#
#   perf.sh [-k TICK_S] [-u TUI_S] [-f FRESH_TICKS] [QPS:MRS:REPS[:FLAGS[:RDMA_REPS]] ...]
# Default: -k 30 -u 60 -f 60 1000:5000:7:sk:7 5000:20000:5:k:3 5000:100000:3:kt:1
# 5000:500000:1:Fm:1 (the kernel's MR dump grows ~n^2: ~7 min each at 500k
# under TCG, so the largest size does only the three dumps it needs)
#
# Output under perf/:
#   env.txt                       kernel, vCPUs, memory, restop binary and version
#   size-N/size.txt               qps= mrs= reps= flags= rdma_reps= (what the stage asked)
#   size-N/stage.txt              the workload's line (what it holds), mem_avail_kb before/after
#   size-N/counts.txt             the first bare_dump's (-c): messages, bytes, entries per device and type
#   size-N/{bare,restop,rdma-TYPE}.txt   one perf_time line per repetition
#   size-N/restop.json            the first repetition's output
#   size-N/summary.txt            bare_dump -s -n 20 (per-call ms at the end)
#   size-N/summary-time.txt       perf_time of that
#   size-N/startup-{bare,version,no-verbs,json}.txt, calib-demo.txt,
#          profile-{version,no-verbs}-{dso,sym}.txt (perf and restop-profiling brought),
#          strace-{c,tt,files}.txt   (s)
#   size-N/tick.jsonl, tick-cpu.txt (k); tui-cpu.txt, tui/ (t); fresh.jsonl (f)
#   size-N/done                   the stage finished
#   summary.md                    the side-by-side table (medians, ratios)
# shellcheck disable=SC2154 # PID_<name> variables are set by spawn (lib.sh)
. /scenario/lib.sh
rxe_up || exit 2

TICK_S=30 TUI_S=60 FRESH_TICKS=60
while getopts "k:u:f:" opt; do
	case $opt in
	k) TICK_S=$OPTARG ;;
	u) TUI_S=$OPTARG ;;
	f) FRESH_TICKS=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
SPECS=("$@")
[ ${#SPECS[@]} -gt 0 ] || SPECS=(1000:5000:7:sk:7 5000:20000:5:k:3 5000:100000:3:kt:1 5000:500000:1:Fm:1)
P=$OUT/perf
mkdir -p "$P"

# the release build when the harness brought it under that name
RESTOP=restop
command -v restop-release >/dev/null && RESTOP=restop-release
if ! command -v "$RESTOP" >/dev/null; then
	echo "no restop binary in the guest (run-vm.sh -b PATH)" >"$OUT"/restop.missing
	exit 0
fi
# a whole dump may take 30 receive timeouts: the largest MR dumps under TCG need minutes
RESTOP_ARGS=(--timeout 60s)
{
	echo "kernel=$(uname -r)"
	echo "vcpus=$(nproc)"
	echo "mem_total_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
	echo "restop=$RESTOP"
	echo "restop_version=$($RESTOP --version 2>&1)"
	echo "strace=$(command -v strace || echo none)"
} >"$P/env.txt"

mem_avail() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
# timed NAME DIR CMD...: one perf_time line appended to DIR/NAME.txt; stdout discarded
timed() {
	local name=$1 dir=$2
	shift 2
	perf_time -o "$dir/$name.txt" "$@" >/dev/null 2>>"$dir/$name.stderr"
}
# cpu_of PID: "utime stime" in clock ticks (1/100 s) from /proc/PID/stat
cpu_of() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12, $13 }'; }
# pid_by_comm COMM: the first process with that (15-character) name
pid_by_comm() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = "${1:0:15}" ] && { echo "${p#/proc/}"; return 0; }
	done
	return 1
}
lines_of() { wc -l <"$1" | tr -d ' '; }

# cpu_window NAME DIR PID SECS LINES_FILE: CPU of PID over SECS into DIR/NAME.txt
# ("seconds= utime_ticks= stime_ticks= lines=" and the line count at both ends)
cpu_window() {
	local name=$1 dir=$2 pid=$3 secs=$4 file=${5:-} u0 s0 u1 s1 t0 t1 l0=0 l1=0
	read -r u0 s0 <<<"$(cpu_of "$pid")"
	[ -n "$file" ] && l0=$(lines_of "$file")
	t0=$(uptime_s)
	sleep "$secs"
	read -r u1 s1 <<<"$(cpu_of "$pid")"
	[ -n "$file" ] && l1=$(lines_of "$file")
	t1=$(uptime_s)
	awk -v t0="$t0" -v t1="$t1" -v u="$((u1 - u0))" -v s="$((s1 - s0))" -v l="$((l1 - l0))" \
		'BEGIN { printf "seconds=%.2f utime_ticks=%d stime_ticks=%d lines=%d\n", t1 - t0, u, s, l }' \
		>"$dir/$name.txt"
}

# wait_lines FILE N SECS: until FILE has N lines
wait_lines() {
	local _
	for _ in $(seq $(($3 * 5))); do
		[ -f "$1" ] && [ "$(lines_of "$1")" -ge "$2" ] && return 0
		sleep 0.2
	done
	log "fewer than $2 lines in $1 after $3 s"
	return 1
}

# startup DIR REPS: what the fixed costs are made of
startup() {
	local d=$1 r
	for r in $(seq "$2"); do
		timed startup-bare "$d" bare_dump
		timed startup-version "$d" "$RESTOP" --version
		timed startup-no-verbs "$d" "$RESTOP" --json --no-verbs "${RESTOP_ARGS[@]}"
		timed startup-json "$d" "$RESTOP" --json "${RESTOP_ARGS[@]}"
	done
	# restop's own code without the kernel, to compare with the same run on the host: how much
	# slower TCG makes restop's user time
	for r in 1 2 3; do
		timed calib-demo "$d" "$RESTOP" --demo --batch --json -n 100 -d 1ms
	done
	command -v strace >/dev/null || return 0
	strace -f -c -o "$d/strace-c.txt" "$RESTOP" --json "${RESTOP_ARGS[@]}" >/dev/null 2>&1
	# a timeline: the gaps between system calls are restop's own computing
	strace -f -tt -T -o "$d/strace-tt.txt" "$RESTOP" --json "${RESTOP_ARGS[@]}" >/dev/null 2>&1
	strace -f -e trace=openat,open,execve -o /tmp/strace-files.txt \
		"$RESTOP" --json "${RESTOP_ARGS[@]}" >/dev/null 2>&1
	grep -v ENOENT /tmp/strace-files.txt | grep -o '"[^"]*"' | tr -d '"' |
		sed -E 's#^(/proc|/sys/class/infiniband[^/]*|/sys/devices|/sys/bus|/sys/fs|/usr/lib|/lib|/etc|/dev)/.*#\1/...#' |
		sort | uniq -c | sort -rn >"$d/strace-files.txt"
	grep -c ENOENT /tmp/strace-files.txt >"$d/strace-enoent.txt"
	profile "$d"
}

# profile DIR: where the start-up's time goes, by shared object and symbol: `perf record`
# (cpu-clock; TCG has no PMU) of six runs each of `--version` and `--json --no-verbs`, with
# the build that kept its symbols (`cargo build --profile profiling`), when the harness
# brought both
profile() {
	local d=$1 mode
	command -v perf >/dev/null && command -v restop-profiling >/dev/null || return 0
	for mode in version no-verbs; do
		local args=(--version)
		[ "$mode" = no-verbs ] && args=(--json --no-verbs "${RESTOP_ARGS[@]}")
		perf record -F 2999 -e cpu-clock -o /tmp/perf.data -- \
			bash -c 'for _ in 1 2 3 4 5 6; do restop-profiling "$@" >/dev/null; done' _ "${args[@]}" \
			2>"$d/profile-$mode.log"
		perf report -i /tmp/perf.data --sort dso --stdio 2>/dev/null |
			grep -E '^ +[0-9.]+%' >"$d/profile-$mode-dso.txt"
		perf report -i /tmp/perf.data --sort dso,sym --stdio 2>/dev/null |
			grep -E '^ +[0-9.]+%' >"$d/profile-$mode-sym.txt"
	done
}

# ticks DIR: restop's CPU per tick without object dumps
ticks() {
	local d=$1 pid
	"$RESTOP" --batch --json -d 1s --objects-every 1h "${RESTOP_ARGS[@]}" -n 100000 \
		>/tmp/tick.jsonl 2>"$d/tick.stderr" &
	pid=$!
	# the first tick dumps everything; measure from the second on
	if wait_lines /tmp/tick.jsonl 2 900; then
		cpu_window tick-cpu "$d" "$pid" "$TICK_S" /tmp/tick.jsonl
	fi
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	cp /tmp/tick.jsonl "$d/tick.jsonl"
}

# tui DIR: the interactive view at 1 s ticks
tui() {
	local d=$1 pid
	tui_start perf "${d#"$OUT"/}/tui" "$RESTOP" -d 1s "${RESTOP_ARGS[@]}"
	# the first screen with devices comes after the first (full) dump
	if tui_wait perf 900 '^ *rxe0'; then
		tui_capture perf "${d#"$OUT"/}/tui/first.txt"
		if pid=$(pid_by_comm "$RESTOP"); then
			cpu_window tui-cpu "$d" "$pid" "$TUI_S"
			tui_capture perf "${d#"$OUT"/}/tui/last.txt"
		fi
	fi
	tui_quit perf "${d#"$OUT"/}/tui"
}

# fresh DIR: per-type ages at 1 s ticks under the default cadence
fresh() {
	local d=$1
	perf_time -o "$d/fresh-time.txt" "$RESTOP" --batch --json -d 1s "${RESTOP_ARGS[@]}" \
		-n "$FRESH_TICKS" >/tmp/fresh.jsonl 2>"$d/fresh.stderr"
	cp /tmp/fresh.jsonl "$d/fresh.jsonl"
}

# one stage: N QPS MRS REPS FLAGS RDMA_REPS
stage() {
	local n=$1 qps=$2 mrs=$3 reps=$4 flags=$5 rdma_reps=$6 d=$P/size-$1 r t
	mkdir -p "$d"
	echo "qps=$qps mrs=$mrs reps=$reps flags=$flags rdma_reps=$rdma_reps" >"$d/size.txt"
	[[ $flags == *F* ]] && fresh "$d"
	for r in $(seq "$reps"); do
		# the first also counts the entries (a walk of what was read anyway: no extra dump,
		# which at 500k MRs would cost minutes)
		if [ "$r" = 1 ]; then
			perf_time -o "$d/bare.txt" bare_dump -c >"$d/counts.txt" 2>>"$d/bare.stderr"
		else
			timed bare "$d" bare_dump
		fi
		perf_time -o "$d/restop.txt" "$RESTOP" --json "${RESTOP_ARGS[@]}" \
			>/tmp/restop.json 2>>"$d/restop.stderr"
		[ "$r" = 1 ] && cp /tmp/restop.json "$d/restop.json"
		for t in $RES_TYPES; do
			[ "$r" -gt "$rdma_reps" ] && break
			[ "$t" = mr ] && [[ $flags == *[mM]* ]] && continue
			timed "rdma-$t" "$d" rdma -j res show "$t"
		done
		log "size $n repetition $r done"
	done
	perf_time -o "$d/summary-time.txt" bare_dump -s -n 20 >"$d/summary.txt" 2>&1
	[[ $flags == *s* ]] && startup "$d" "$reps"
	[[ $flags == *k* ]] && ticks "$d"
	[[ $flags == *t* ]] && tui "$d"
	[[ $flags == *f* ]] && fresh "$d"
	if [[ $flags == *M* ]]; then
		timed rdma-mr "$d" timeout 900 rdma -j res show mr
		log "size $n: rdma res show mr done"
	fi
	touch "$d/done"
	# after every size: a run cut short by the timeout still has its table
	perf_table "$P" >"$P/summary.md"
	mark "perf-size-$n-done qps=$qps mrs=$mrs"
}

# med FILE KEY: the median of KEY=value over FILE's lines (nothing when none)
med() {
	[ -f "$1" ] || return 0
	awk -v k="$2" '{ for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }' "$1" |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
# field FILE KEY: KEY=value of the first line that has it
field() { [ -f "$1" ] && awk -v k="$2" '{ for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) { print a[2]; exit } } }' "$1"; }

# perf_table DIR: the side-by-side tables of every finished size (medians)
perf_table() {
	local d qps mrs reps bare rw ru rs rss rdma missing t v
	echo "| QPs | MRs | reps (rdma) | bare ms | restop ms | restop user ms | restop sys ms | restop peak RSS MiB | rdma (7 types) ms | restop/bare | restop/rdma |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for d in "$1"/size-*; do
		[ -f "$d/restop.txt" ] || continue
		qps=$(field "$d/size.txt" qps) mrs=$(field "$d/size.txt" mrs)
		reps="$(field "$d/size.txt" reps) ($(field "$d/size.txt" rdma_reps))"
		bare=$(med "$d/bare.txt" wall_ms) rw=$(med "$d/restop.txt" wall_ms)
		ru=$(med "$d/restop.txt" user_ms) rs=$(med "$d/restop.txt" sys_ms)
		rss=$(med "$d/restop.txt" maxrss_kb)
		rdma=0 missing=
		for t in $RES_TYPES; do
			# ran out of its timeout (flag M): no figure
			if grep -q ' rc=124' "$d/rdma-$t.txt" 2>/dev/null; then missing+=" $t"; continue; fi
			v=$(med "$d/rdma-$t.txt" wall_ms)
			if [ -n "$v" ]; then rdma=$(awk -v a="$rdma" -v b="$v" 'BEGIN { print a + b }'); else missing+=" $t"; fi
		done
		awk -v q="$qps" -v m="$mrs" -v n="$reps" -v b="$bare" -v w="$rw" -v u="$ru" -v s="$rs" \
			-v r="$rss" -v x="$rdma" -v miss="$missing" 'BEGIN {
			rd = sprintf("%.0f", x); ratio = sprintf("%.2f", w / x)
			if (miss != "") { rd = rd " (no" miss ")"; ratio = "-" }
			printf "| %d | %d | %s | %.0f | %.0f | %.0f | %.0f | %.1f | %s | %.2f | %s |\n",
				q, m, n, b, w, u, s, r / 1024, rd, w / b, ratio }'
	done
	echo
	echo "| QPs | MRs | RES_GET ms (bare, per call) | its system ms | restop user ms/tick | restop sys ms/tick | ticks |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
	for d in "$1"/size-*; do
		[ -f "$d/summary.txt" ] || continue
		awk -v q="$(field "$d/size.txt" qps)" -v m="$(field "$d/size.txt" mrs)" \
			-v c="$(field "$d/summary.txt" ms_per_call)" -v n="$(field "$d/summary.txt" repeat)" \
			-v s="$(field "$d/summary-time.txt" sys_ms)" -v u="$(field "$d/tick-cpu.txt" utime_ticks)" \
			-v k="$(field "$d/tick-cpu.txt" stime_ticks)" -v l="$(field "$d/tick-cpu.txt" lines)" 'BEGIN {
			tu = "-"; ts = "-"; tl = "-"; sc = 0
			if (l > 0) { tu = sprintf("%.1f", u * 10 / l); ts = sprintf("%.1f", k * 10 / l); tl = l }
			if (n > 0) sc = s / n
			printf "| %d | %d | %.2f | %.2f | %s | %s | %s |\n", q, m, c, sc, tu, ts, tl }'
	done
	for d in "$1"/size-*; do
		[ -f "$d/tui-cpu.txt" ] || continue
		awk -v q="$(field "$d/size.txt" qps)" -v m="$(field "$d/size.txt" mrs)" \
			-v t="$(field "$d/tui-cpu.txt" seconds)" -v u="$(field "$d/tui-cpu.txt" utime_ticks)" \
			-v s="$(field "$d/tui-cpu.txt" stime_ticks)" 'BEGIN {
			printf "\ninteractive view, -d 1s, %d QPs / %d MRs, %.0f s: user %.2f %% of a core, system %.2f %%\n",
				q, m, t, u / t, s / t }'
	done
}

# the workload: every size in turn, one SIGUSR1 per step
sizes=()
for spec in "${SPECS[@]}"; do
	IFS=: read -r qps mrs _ <<<"$spec"
	sizes+=("$qps:$mrs")
done
mkdir -p /tmp/ready
spawn scale scale_workload -r /tmp/ready/scale -d rxe0 "${sizes[@]}"
for n in "${!SPECS[@]}"; do
	IFS=: read -r qps mrs reps flags rdma_reps <<<"${SPECS[$n]}"
	before=$(mem_avail)
	[ "$n" -gt 0 ] && kill -USR1 "$PID_scale"
	# growing to 500k MRs takes about a minute under TCG; a workload that died says why in procs/
	until [ -f "/tmp/ready/scale.$n" ]; do
		kill -0 "$PID_scale" 2>/dev/null || { log "scale_workload died: $(cat "$OUT/procs/scale.log")"; exit 2; }
		sleep 0.2
	done
	mkdir -p "$P/size-$n"
	{
		grep '^stage ' "/tmp/ready/scale.$n"
		echo "mem_avail_kb_before=$before mem_avail_kb_after=$(mem_avail)"
	} >"$P/size-$n/stage.txt"
	mark "perf-size-$n-ready $(grep '^stage ' "/tmp/ready/scale.$n")"
	stage "$n" "$qps" "$mrs" "${reps:-3}" "${flags:-}" "${rdma_reps:-${reps:-3}}"
done
kill -TERM "$PID_scale"
wait "$PID_scale"
exit 0
