#!/bin/bash
# Devices in other network namespaces and device events (tests/it/netns_vm.rs).
#
#   netns.sh full     on a kernel whose rxe can move to another namespace (7.x):
#                     exclusive mode, rxe1 moved into namespace ns1 with a workload
#                     there, restop on the host against `ip netns exec ns1 rdma`; then
#                     device events
#   netns.sh events   device events only (on 6.1, which sends none: the fallback)
#
# Output:
#   env/            kernel, `rdma -j sys show`, the set-up's exit statuses (setup.tsv)
#   host/, ns1/     `rdma -j dev|link|statistic|res show` (and `-d res show qp|cq|pd|mr|ctx`)
#                   on the host and inside ns1, before (…-before) and after restop ran
#   restop-json.*, restop-once.*, restop-user-json.*   restop on the host (root, uid 1000)
#   ready/          the workloads' ready files (ns_threads.txt: the one in ns1)
#   events/         exporter.{stderr,rc}, add.tsv / delete.tsv (Unix times around the
#                   command, when /metrics first showed the change and when the collection
#                   behind it ended), metrics-*.txt
. /scenario/lib.sh
MODE=${1:-full}
mkdir -p "$OUT/env" "$OUT/ready" "$OUT/events"
setup() { # NAME CMD...: run a set-up step, note its exit status
	local name=$1 rc
	shift
	"$@" >"$OUT/env/$name.out" 2>&1
	rc=$?
	printf '%s\t%s\t%s\n' "$name" "$rc" "$*" >>"$OUT/env/setup.tsv"
	log "setup $name rc=$rc: $*"
	return $rc
}
uname -r >"$OUT/env/kernel"
for m in crc32_generic rdma_rxe ib_uverbs rdma_ucm dummy veth; do modprobe "$m" 2>/dev/null; done
lsmod >"$OUT/env/lsmod"

# --- restop on the host against rdma inside the namespace --------------------
if [ "$MODE" = full ]; then
	# exclusive mode before any namespace or device exists (EBUSY otherwise)
	setup exclusive rdma system set netns exclusive
	rdma -j sys show >"$OUT/env/sys.json" 2>&1
	setup rxe0 rdma link add rxe0 type rxe netdev lo
	setup netns ip netns add ns1
	ip link add dummy1 type dummy
	ip addr add 192.0.2.1/24 dev dummy1
	ip link set dummy1 up
	setup rxe1 rdma link add rxe1 type rxe netdev dummy1
	# moves the RDMA device only: moving dummy1 too would unregister rxe1
	setup move rdma dev set rxe1 netns ns1
	ip netns exec ns1 ip link set lo up
	r=/tmp/ready
	mkdir -p $r
	spawn host_threads vm_workload -r $r/host_threads.txt -d rxe0 threads
	spawn ns_threads ip netns exec ns1 vm_workload -r $r/ns_threads.txt -d rxe1 threads
	for w in host_threads ns_threads; do
		wait_ready $r/$w.txt 60 && cp $r/$w.txt "$OUT/ready/"
	done
	mark "netns-ready"
	views() { # DIR-SUFFIX
		local where
		for where in host ns1; do
			local d=$OUT/$where-$1 run=()
			[ $where = ns1 ] && run=(ip netns exec ns1)
			mkdir -p "$d"
			"${run[@]}" rdma -j -d dev show >"$d/dev.json" 2>"$d/dev.stderr"
			"${run[@]}" rdma -j link show >"$d/link.json" 2>"$d/link.stderr"
			"${run[@]}" rdma -j statistic show >"$d/statistic.json" 2>"$d/statistic.stderr"
			"${run[@]}" rdma -j res show >"$d/summary.json" 2>"$d/summary.stderr"
			for t in qp cq pd mr ctx; do
				"${run[@]}" rdma -j -d res show "$t" >"$d/$t.json" 2>"$d/$t.stderr"
			done
		done
	}
	views before
	capture restop-json restop --json
	capture restop-once restop --once
	views after
	capture restop-user-json setpriv --reuid 1000 --regid 1000 --clear-groups restop --json
	task_map tasks.tsv
	mark "netns-done"
fi

# --- device events: the exporter with a long tick sees a new device at once ----
ip link add dummy2 type dummy
ip addr add 198.51.100.1/24 dev dummy2
ip link set dummy2 up
# the fallback needs a tick to see it: 3 s there, a minute where events come
if [ "$MODE" = full ]; then DELAY=60s; else DELAY=3s; fi
# GET /metrics through bash's /dev/tcp (busybox's static wget crashes in the guest)
metrics() {
	local body
	exec 3<>/dev/tcp/127.0.0.1/9879 || return 1
	printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
	body=$(timeout 5 cat <&3)
	exec 3<&-
	[[ $body == "HTTP/1."*" 200 "* ]] || return 1
	printf '%s\n' "$body"
}
RESTOP_DEBUG=1 restop export -d $DELAY --listen 127.0.0.1:9879 \
	>"$OUT/events/exporter.stdout" 2>"$OUT/events/exporter.stderr" &
EXPORTER=$!
for _ in $(seq 100); do metrics >/dev/null && break; sleep 0.2; done
metrics >"$OUT/events/metrics-start.txt"
sleep 2
# watch SECS NAME PRESENT(1|0): once /metrics first shows (or no longer shows) device
# NAME, polling every 0.1 s: the Unix time then, and the exposition's
# restop_last_success_timestamp_seconds (when the collection that saw it ended)
watch() {
	local _ shown body
	for _ in $(seq $(($1 * 10))); do
		body=$(metrics) || { sleep 0.1; continue; }
		shown=0
		grep -q "^restop_device_info{device=\"$2\"" <<<"$body" && shown=1
		if [ $shown = "$3" ]; then
			printf '%s\t%s\n' "$(date +%s.%N)" \
				"$(awk '$1 == "restop_last_success_timestamp_seconds" { print $2 }' <<<"$body")"
			return 0
		fi
		sleep 0.1
	done
	printf 'none\tnone\n'
}
# event NAME CMD...: CMD's Unix times before and after, exit status, and what watch saw
event() {
	local name=$1 present t0 t1 rc
	shift
	present=1
	[ "$1" = delete ] && present=0
	t0=$(date +%s.%N)
	rdma link "$@"
	rc=$?
	t1=$(date +%s.%N)
	printf 'before\tafter\trc\tseen\tcollected\n%s\t%s\t%s\t%s\n' "$t0" "$t1" "$rc" \
		"$(watch 20 rxe2 $present)" >"$OUT/events/$name.tsv"
	metrics >"$OUT/events/metrics-$name.txt"
}
event add add rxe2 type rxe netdev dummy2
sleep 1
event delete delete rxe2
kill -TERM $EXPORTER
wait $EXPORTER
echo $? >"$OUT/events/exporter.rc"
mark "events-done"
exit 0
