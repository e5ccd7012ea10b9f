#!/bin/bash
# The NIC-counter scenario (tests/vm_counters.rs): restop's port counters
# against `rdma -j statistic show` and sysfs, while RC traffic runs between
# two ibv_rc_pingpong processes on rxe0, once it has stopped, and around a
# fault (a peer killed mid-transfer: the sender's QP exhausts its retries).
#
# Output, per phase DIR in first, traffic, idle, fault:
#   DIR/stat-before.json, DIR/stat-after.json   rdma -j statistic show
#   DIR/sysfs-before/, DIR/sysfs-after/          <dev>/<port>/{hw_counters,counters}/*, rate
#   DIR/json.*                                   restop --json [--rates 1s] in between
# plus traffic/once.* (restop --once --rates 1s), traffic/batch.* and
# fault/batch.* (restop --batch --json -d 1s), ready/pair.txt,
# traffic/tui/{main,counters}.txt (the interactive view under tmux during
# traffic: the devices pane, then `c`: the counters view of rxe0 port 1) and
# bound/ (QPs bound to counters by this script, as an operator would:
# `rdma statistic qp set link rxe0/1 auto type on`; restop only reads them):
# set.{out,rc}, qp-{before,after}.json (rdma -j statistic qp show),
# res-qp.json, json.* (restop --json in between).
# netdev/: rxe2 over one end of a veth pair (rxv0, peer rxv1): ethtool -S
# and ip -s -j link of rxv0 and its carrier_changes right before and after
# restop --json ({before,after}-{ethtool.txt,ip.json,carrier}, json.*), then a
# flap (rxv1 set down and up: veth drops rxv0's carrier with it) under
# restop --batch --json -d 1s (batch.*), and flapped-*.
# fault/tui/ and fault/tui-err/: the interactive view during the storm and
# after it, each with the screen whose problems strip lists the storm (the
# ERR QP), the entry picked in it and the screen Enter opened on it
# (strip_open: storm.txt, storm.pick, storm-enter.txt; err.*).
# netdev/export/NN.prom: restop export --textfile -d 1s's file every half
# second from the flap on.
# Without a restop binary in the guest the restop steps are skipped and
# restop.missing is written.
. /scenario/lib.sh
rxe_up || exit 2

have_restop=1
command -v restop >/dev/null || {
	have_restop=0
	echo "no restop binary in the guest (run-vm.sh -b PATH)" >"$OUT"/restop.missing
}

stat_dump() { rdma -j statistic show >"$OUT/$1.json" 2>"$OUT/$1.stderr"; }
# sysfs_dump DIR: every port's counter files as name<TAB>value lines
sysfs_dump() {
	local p dev port sub f
	for p in /sys/class/infiniband/*/ports/*; do
		dev=${p#/sys/class/infiniband/}
		dev=${dev%%/*}
		port=${p##*/}
		mkdir -p "$OUT/$1/$dev/$port"
		for sub in hw_counters counters; do
			[ -d "$p/$sub" ] || continue
			for f in "$p/$sub"/*; do
				[ -f "$f" ] && printf '%s\t%s\n' "${f##*/}" "$(cat "$f" 2>/dev/null)"
			done >"$OUT/$1/$dev/$port/$sub.tsv"
		done
		cat "$p/rate" >"$OUT/$1/$dev/$port/rate" 2>/dev/null
	done
}
# strip_open SESSION NAME REGEX KEYS...: the screen into $OUT/NAME.txt, the
# first problems-strip entry matching REGEX into NAME.pick (its place in the
# strip: `N: line`); KEYS (to focus the strip), Home, Down to it, Enter, and
# the screen that opened into NAME-enter.txt
strip_open() {
	local session=$1 name=$2 regex=$3 at
	shift 3
	tui_capture "$session" "$name.txt"
	grep -E '^(critical|warning|notice|crit|warn|note) ' "$OUT/$name.txt" |
		grep -n -E -m1 "$regex" >"$OUT/$name.pick"
	at=$(cut -d: -f1 "$OUT/$name.pick")
	[ -n "$at" ] || return 1
	# one send-keys: the list must not change between the capture and Enter
	tmux send-keys -t "$session" "$@" Home $(for _ in $(seq 2 "$at"); do echo Down; done) Enter
	sleep 2.5
	tui_capture "$session" "$name-enter.txt"
}
# around NAME CMD...: rdma and sysfs right before and right after CMD
around() {
	local dir=$1
	shift
	mkdir -p "$OUT/$dir"
	stat_dump "$dir/stat-before"
	sysfs_dump "$dir/sysfs-before"
	[ $have_restop = 1 ] && capture "$dir/json" "$@"
	stat_dump "$dir/stat-after"
	sysfs_dump "$dir/sysfs-after"
}

# first read: totals, no rates
around first restop --json
mark "counters-first-done"

# RC SEND traffic on rxe0 (over lo) until killed
spawn pp_server ibv_rc_pingpong -d rxe0 -g "$RXE0_GID" -n 1000000000
sleep 1
spawn pp_client ibv_rc_pingpong -d rxe0 -g "$RXE0_GID" -n 1000000000 127.0.0.1
sleep 2
around traffic restop --json --rates 1s
if [ $have_restop = 1 ]; then
	capture traffic/once restop --once --rates 1s
	capture traffic/batch restop --batch --json -d 1s -n 4
	# the interactive view: throughput in the devices pane, then `c`
	tui_start ctui traffic/tui restop -d 1s
	tui_wait ctui 30 -E '^rxe0 ' && sleep 3.5
	tui_capture ctui traffic/tui/main.txt
	tmux send-keys -t ctui c
	tui_wait ctui 10 'Counters of rxe0 port 1' && sleep 2.5
	tui_capture ctui traffic/tui/counters.txt
	tui_quit ctui traffic/tui
fi
# both at once: a survivor with retry count 7 would retransmit forever
kill -9 "$PID_pp_server" "$PID_pp_client"
wait "$PID_pp_server" "$PID_pp_client" 2>/dev/null
mark "counters-traffic-done"
sleep 2

around idle restop --json --rates 1s
mark "counters-idle-done"

# bound: the operator binds new QPs of rxe0/1 to counters (auto, per QP
# type), RC traffic runs on two fresh QPs, and restop --json is read between
# two `rdma -j statistic qp show`; then auto mode is switched off again
mkdir -p "$OUT/bound"
rdma statistic qp set link rxe0/1 auto type on >"$OUT/bound/set.out" 2>&1
echo $? >"$OUT/bound/set.rc"
spawn bd_server ibv_rc_pingpong -d rxe0 -g "$RXE0_GID" -n 1000000000
sleep 1
spawn bd_client ibv_rc_pingpong -d rxe0 -g "$RXE0_GID" -n 1000000000 127.0.0.1
sleep 2
rdma -j statistic qp show >"$OUT/bound/qp-before.json" 2>"$OUT/bound/qp-before.stderr"
rdma -j res show qp >"$OUT/bound/res-qp.json" 2>"$OUT/bound/res-qp.stderr"
[ $have_restop = 1 ] && capture bound/json restop --json
rdma -j statistic qp show >"$OUT/bound/qp-after.json" 2>"$OUT/bound/qp-after.stderr"
kill -9 "$PID_bd_server" "$PID_bd_client"
wait "$PID_bd_server" "$PID_bd_client" 2>/dev/null
rdma statistic qp set link rxe0/1 auto off >>"$OUT/bound/set.out" 2>&1
mark "counters-bound-done"
sleep 1

# fault: RC writes to a forked peer, the peer SIGKILLed, the QP retries 3
# times and goes to ERR, then is re-armed towards the dead peer for 16 s (a
# retransmit storm, long enough for the view to be seen listing it) and left in ERR; restop --batch watches it happen long
# enough (40 ticks of 1 s) for the lingering ERR QP to be a problem too, after the storm
mkdir -p "$OUT/fault" "$OUT/ready" /tmp/ready /tmp/fault-prom
stat_dump fault/stat-before
sysfs_dump fault/sysfs-before
if [ $have_restop = 1 ]; then
	capture fault/batch restop --batch --json -d 1s -n 40 &
	batch=$!
	tui_start ftui fault/tui restop -d 1s
	sleep 3
fi
spawn pair vm_workload -r /tmp/ready/pair.txt -d rxe0 -g "$RXE0_GID" pair 3 16
if [ $have_restop = 1 ]; then
	# the storm in the problems strip: Tab, Tab (devices, then the strip),
	# down to its entry, Enter
	tui_wait ftui 40 -E '^(critical|warning) .*rxe0 port 1: .* keeps rising' &&
		strip_open ftui fault/tui/storm 'rxe0 port 1: .* keeps rising' Tab Tab
	tui_quit ftui fault/tui
fi
wait_ready /tmp/ready/pair.txt 40
cp /tmp/ready/pair.txt "$OUT/ready/"
if [ $have_restop = 1 ]; then
	# the ERR QP the storm left, in a view started after it broke
	tui_start ftui fault/tui-err restop -d 1s
	tui_wait ftui 30 -E '^(critical|warning|notice) .*in ERR on rxe0' &&
		strip_open ftui fault/tui-err/err 'in ERR on rxe0' Tab Tab
	tui_quit ftui fault/tui-err
	wait "$batch"
fi
stat_dump fault/stat-after
sysfs_dump fault/sysfs-after
if [ $have_restop = 1 ]; then
	capture fault/json restop --json
	capture fault/once restop --once
	capture fault/export restop export --textfile /tmp/fault-prom/restop.prom --once &&
		cp /tmp/fault-prom/restop.prom "$OUT/fault/export.prom"
fi
mark "counters-fault-done"

# netdev: the netdev side of a RoCE port, on a veth (it has ethtool -S)
mkdir -p "$OUT/netdev"
{
	modprobe veth &&
		ip link add rxv0 type veth peer name rxv1 &&
		ip link set rxv1 up && ip link set rxv0 up &&
		rdma link add rxe2 type rxe netdev rxv0
} >"$OUT/netdev/setup.out" 2>&1
echo $? >"$OUT/netdev/setup.rc"
sleep 1
nd_dump() {
	ethtool -S rxv0 >"$OUT/netdev/$1-ethtool.txt" 2>&1
	ip -s -j link show rxv0 >"$OUT/netdev/$1-ip.json" 2>&1
	cat /sys/class/net/rxv0/carrier_changes >"$OUT/netdev/$1-carrier" 2>&1
}
nd_dump before
[ $have_restop = 1 ] && capture netdev/json restop --json
nd_dump after
if [ $have_restop = 1 ]; then
	capture netdev/batch restop --batch --json -d 1s -n 9 &
	batch=$!
	mkdir -p /tmp/netdev-prom "$OUT/netdev/export"
	restop export --textfile /tmp/netdev-prom/restop.prom -d 1s \
		>"$OUT/netdev/export.stdout" 2>"$OUT/netdev/export.stderr" &
	exporter=$!
	# both have read once before the flap (a first read under load takes seconds)
	for _ in $(seq 150); do
		[ -s "$OUT/netdev/batch.stdout" ] && [ -s /tmp/netdev-prom/restop.prom ] && break
		sleep 0.2
	done
	sleep 0.5
fi
ip link set rxv1 down
sleep 1
ip link set rxv1 up
if [ $have_restop = 1 ]; then
	# the exporter's file every half second from the flap on, until the
	# rule has cleared it (two reads without a carrier change)
	for i in $(seq 10 25); do
		cp /tmp/netdev-prom/restop.prom "$OUT/netdev/export/$i.prom" 2>/dev/null
		sleep 0.5
	done
	kill "$exporter"
	wait "$exporter" 2>/dev/null
	wait "$batch"
fi
nd_dump flapped
mark "counters-netdev-done"
exit 0
