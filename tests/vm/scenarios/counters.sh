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
# times and goes to ERR, then is re-armed towards the dead peer for 8 s (a
# retransmit storm) and left in ERR; restop --batch watches it happen long
# enough (28 ticks of 1 s) for the lingering ERR QP to be a problem too
mkdir -p "$OUT/fault" "$OUT/ready" /tmp/ready /tmp/fault-prom
stat_dump fault/stat-before
sysfs_dump fault/sysfs-before
if [ $have_restop = 1 ]; then
	capture fault/batch restop --batch --json -d 1s -n 28 &
	batch=$!
	sleep 3
fi
spawn pair vm_workload -r /tmp/ready/pair.txt -d rxe0 -g "$RXE0_GID" pair 3 8
wait_ready /tmp/ready/pair.txt 40
cp /tmp/ready/pair.txt "$OUT/ready/"
[ $have_restop = 1 ] && wait "$batch"
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
	capture netdev/batch restop --batch --json -d 1s -n 6 &
	batch=$!
	sleep 2.5
fi
ip link set rxv1 down
sleep 1
ip link set rxv1 up
[ $have_restop = 1 ] && wait "$batch"
nd_dump flapped
mark "counters-netdev-done"
exit 0
