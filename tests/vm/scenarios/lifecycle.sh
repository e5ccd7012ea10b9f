#!/bin/bash
# The Debian package's lifecycle under systemd (tests/it/vm_lifecycle.rs), in the
# systemd guest (run-vm.sh -s):  lifecycle.sh DEB_N DEB_N+1
# (host paths: the guest's root is the host's). With rxe0 on lo and rxe1 on
# dummy0: dpkg -i N; systemctl enable --now restop-exporter; /metrics under the
# unit's own sandboxing (limits through DeviceAllow=); the control: a drop-in
# clearing DeviceAllow=; the drop-in removed and the conffile edited (another
# port); dpkg -i N+1; dpkg -r; dpkg -P.
#
# Output: lifecycle.jsonl, one JSON object per step (step, seconds the step's
# command took, rc of it, is_active, is_enabled, main_pid, uid of the main
# process, unit_file, conffile (its text, or absent), dpkg_status, version,
# dsh_state (deb-systemd-helper's state of the unit), mask, wants_link,
# device_allow, device_policy, journal (journalctl -u since the step's start),
# metrics (GET /metrics, once the exporter serves restop_up 1; else
# metrics_failed: its last answer), port), steps/NAME.log
# (what the step's command printed) and uverbs.txt.
. /scenario/lib.sh
DEB_N=$1 DEB_NEXT=$2
UNIT=restop-exporter.service
CONF=/etc/default/restop-exporter
PORT=9879
rm -f "$OUT/lifecycle.jsonl"
mkdir -p "$OUT/steps"
[ -f "$DEB_N" ] && [ -f "$DEB_NEXT" ] || { log "no packages: '$DEB_N' '$DEB_NEXT'"; exit 2; }
rxe_up || exit 2
# man-db's trigger would index every manual page of the host's root anew
# (minutes under TCG); Debian's own switch for it
rm -f /var/lib/man-db/auto-update
# dpkg reads every installed package's file list at each run: the host's ~117k
# files over 9p take 1-1.5 min under TCG, four times. The other packages keep
# their status (dependencies are checked as on the host) and scripts; their
# lists are emptied in the guest's overlay (restop's files are no other
# package's: deploy_artifacts checks the package's contents).
for f in /var/lib/dpkg/info/*.list; do : >"$f"; done
# The host's image forbids packages to start services (a policy-rc.d that
# exits 101, as container images have): a real system has none, nor the guest.
rm -f /usr/sbin/policy-rc.d
mark "dpkg-lists-emptied"
ls -l /dev/infiniband/ >"$OUT/uverbs.txt" 2>&1
grep -w infiniband_verbs /proc/devices >>"$OUT/uverbs.txt"
ibv_devinfo -v -d rxe0 >"$OUT/ibv_devinfo.txt" 2>&1

# metrics PORT SECS: /metrics once the exporter says restop_up 1 (status 0), else
# the last answer or curl's complaint (status 1), within SECS seconds
metrics() {
	local end=$(($(date +%s) + $2)) text
	while :; do
		text=$(curl -sS --max-time 5 "http://127.0.0.1:$1/metrics" 2>&1) &&
			grep -qE '^restop_up(\{[^}]*\})? 1$' <<<"$text" && { echo "$text"; return 0; }
		[ "$(date +%s)" -ge $end ] && { echo "$text"; return 1; }
		sleep 0.5
	done
}

# json_line DIR NAME: {"step": NAME, FILE: its text, ...} for the files in DIR
# (in bash: a program started per step costs seconds under TCG)
json_line() {
	local f v line="{\"step\":\"$2\""
	for f in "$1"/*; do
		[ -f "$f" ] || continue
		v=$(tr -d '\000-\010\013\014\016-\037' <"$f")
		v=${v//\\/\\\\}
		v=${v//\"/\\\"}
		v=${v//$'\t'/\\t}
		v=${v//$'\r'/\\r}
		v=${v//$'\n'/\\n}
		line+=",\"${f##*/}\":\"$v\""
	done
	echo "$line}"
}

# step NAME CMD...: run CMD, then record the unit's and the package's state
# as one line of lifecycle.jsonl (through a folder of one file per field)
step() {
	local name=$1 d=/tmp/step/$1 t0 u0 rc pid line
	shift
	rm -rf "$d"
	mkdir -p "$d"
	t0=$(date +%s.%N)
	u0=$(date '+%Y-%m-%d %H:%M:%S')
	# a bound, so that a step that hangs is told apart from a slow boot
	# (the steps below are functions: exported, for the bash under timeout)
	timeout 600 bash -c '"$@"' step "$@" 2>&1 | while IFS= read -r line; do
		echo "$line" >>"$d/output"
		echo "[$(uptime_s)] $line" >>"$OUT/steps/$name.log"
	done
	rc=${PIPESTATUS[0]}
	echo $rc >"$d/rc"
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }' >"$d/seconds"
	# a started exporter serves once it has read the devices
	if [ "$(systemctl is-active $UNIT)" = active ]; then
		metrics "$PORT" 40 >"$d/metrics" || mv "$d/metrics" "$d/metrics_failed"
	fi
	systemctl is-active $UNIT >"$d/is_active" 2>&1
	systemctl is-enabled $UNIT >"$d/is_enabled" 2>&1
	systemctl show -p MainPID -p DeviceAllow -p DevicePolicy $UNIT >"$d/show" 2>&1
	pid=$(sed -n 's/^MainPID=//p' "$d/show")
	echo "${pid:-0}" >"$d/main_pid"
	[ "${pid:-0}" != 0 ] && awk '/^Uid:/ { print $2 }' "/proc/$pid/status" >"$d/uid" 2>/dev/null
	sed -n 's/^DeviceAllow=//p' "$d/show" >"$d/device_allow"
	sed -n 's/^DevicePolicy=//p' "$d/show" >"$d/device_policy"
	rm -f "$d/show"
	[ -f /usr/lib/systemd/system/$UNIT ] && echo yes >"$d/unit_file"
	[ -f "$CONF" ] && cp "$CONF" "$d/conffile"
	dpkg-query -W -f '${db:Status-Abbrev}\n${Version}\n' restop >"$d/dpkg" 2>/dev/null
	sed -n 1p "$d/dpkg" >"$d/dpkg_status"
	sed -n 2p "$d/dpkg" >"$d/version"
	rm -f "$d/dpkg"
	[ -e /var/lib/systemd/deb-systemd-helper-enabled/$UNIT.dsh-also ] && echo yes >"$d/dsh_state"
	[ -L /etc/systemd/system/$UNIT ] && readlink /etc/systemd/system/$UNIT >"$d/mask"
	[ -L /etc/systemd/system/multi-user.target.wants/$UNIT ] && echo yes >"$d/wants_link"
	journalctl -u $UNIT --since "$u0" --no-pager -o cat >"$d/journal" 2>&1
	echo "$PORT" >"$d/port"
	json_line "$d" "$name" >>"$OUT/lifecycle.jsonl"
	log "step $name: rc=$rc $(cat "$d/is_active")/$(cat "$d/is_enabled") pid=$(cat "$d/main_pid")"
	mark "lifecycle-$name"
}

# the control: the same unit with DeviceAllow= cleared by a drop-in
DROPIN=/etc/systemd/system/$UNIT.d/no-uverbs.conf
without_uverbs() {
	mkdir -p "${DROPIN%/*}"
	printf '[Service]\nDeviceAllow=\n' >"$DROPIN"
	systemctl daemon-reload && systemctl restart $UNIT
}
# the administrator's edit: another port, and a line of their own; the drop-in
# goes (the exporter the upgrade restarts runs the unit as shipped)
edit_conffile() {
	rm -f "$DROPIN" && systemctl daemon-reload &&
		sed -i 's/^RESTOP_EXPORT_ARGS=.*/RESTOP_EXPORT_ARGS="--listen 127.0.0.1:9880"/' "$CONF" &&
		echo '# edited by the administrator' >>"$CONF"
}

export UNIT CONF DROPIN
export -f without_uverbs edit_conffile
step before true
step install dpkg -i "$DEB_N"
step enable systemctl enable --now $UNIT
step no_device_allow without_uverbs
step edit edit_conffile
PORT=9880
step upgrade dpkg -i "$DEB_NEXT"
step remove dpkg -r restop
step purge dpkg -P restop
exit 0
