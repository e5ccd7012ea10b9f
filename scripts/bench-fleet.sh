#!/usr/bin/env bash
# The fleet at scale: HOSTS (default 1000) restop exporters scraped by a real Prometheus
# (Debian's `prometheus`) with the shipped recording rules, and `restop fleet --json` refreshed
# RUNS times against it under /usr/bin/time -v, through a byte-counting proxy. Prints the
# medians of one refresh's wall time, bytes transferred (as sent, gzip included) and CPU time,
# and the CPU share of one core at 15 s refreshes, beside the targets (<= 1 s, <= 5 MB,
# <= 2 %); then, from Prometheus' query log (`query_log_file`), each query of a refresh with
# its median time, and from its rules API the recording rules' evaluation time.
# docs/performance.md ("The fleet at scale") has the figures.
#
# The exporters are realistic series, not processes: the expositions of a few
# `restop export --demo --demo-host NAME` hosts of different profiles (healthy, leaking, NIC
# storm, at a limit, ERROR QPs, busy; ~500 series each) are captured once and served by one
# small HTTP server, each of the HOSTS targets getting one of them, with its own `node` and
# `instance` labels from the scrape config. Everything listens on 127.0.0.1 and stops on exit.
#
# Usage: scripts/bench-fleet.sh [RESTOP_BINARY]   (env: HOSTS=1000 RUNS=7 SCRAPE=15s,
#        QUERY_LOG=FILE keeps Prometheus' query log there)
# Takes about 2 minutes for 1,000 hosts (Prometheus must scrape every target and evaluate the
# rules once before the first refresh); HOSTS=200 about 1 minute.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RESTOP=${1:-}
if [ -z "$RESTOP" ]; then
    for candidate in "$ROOT/target/release/restop" "$ROOT/target/debug/restop"; do
        if [ -x "$candidate" ]; then RESTOP=$candidate; break; fi
    done
fi
[ -x "${RESTOP:-}" ] || { echo "bench-fleet: build restop first (cargo build --release)" >&2; exit 2; }
HOSTS=${HOSTS:-1000}
RUNS=${RUNS:-7}
SCRAPE=${SCRAPE:-15s}
PROMETHEUS=$(command -v prometheus || true)
[ -n "$PROMETHEUS" ] || { echo "bench-fleet: apt-get install prometheus" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-fleet: apt-get install time" >&2; exit 2; }

WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# 1. A few demo hosts' expositions, captured once.
PROFILES=(healthy-a healthy-b healthy-c leak storm limit errqp busy healthy-d healthy-e)
for i in "${!PROFILES[@]}"; do
    port=$(free_port)
    "$RESTOP" export --demo --demo-host "bench-${PROFILES[$i]}" -d 1s --listen "127.0.0.1:$port" \
        </dev/null >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do
        if curl -sf "http://127.0.0.1:$port/metrics" -o "$WORK/expo-$i.txt"; then break; fi
        sleep 0.2
    done
    # Let the counters move once, so rates and the leak's trend have something to show.
    sleep 2
    curl -sf "http://127.0.0.1:$port/metrics" -o "$WORK/expo-$i.txt"
    kill "$pid"; wait "$pid" 2>/dev/null || true
done
SERIES=$(grep -vc '^#' "$WORK/expo-0.txt")

# 2. One server for every target: /metrics?h=N answers profile N mod the number captured.
EXPO_PORT=$(free_port)
cat >"$WORK/serve.py" <<'EOF'
import sys, http.server, urllib.parse
work, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bodies = [open(f"{work}/expo-{i}.txt", "rb").read() for i in range(n)]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        body = bodies[int(q.get("h", ["0"])[0]) % n]
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass  # Prometheus gave up on a slow scrape: it marks the target down itself.
    def log_message(self, *a):
        pass
class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    def handle_error(self, request, client_address):
        pass
Server(("127.0.0.1", port), H).serve_forever()
EOF
python3 "$WORK/serve.py" "$WORK" "$EXPO_PORT" "${#PROFILES[@]}" &
PIDS+=($!)

# 3. Prometheus scraping HOSTS targets, with the fleet's recording rules.
PROM_PORT=$(free_port)
{
    printf 'global:\n  scrape_interval: %s\n  scrape_timeout: %s\n  evaluation_interval: %s\n' "$SCRAPE" "$SCRAPE" "$SCRAPE"
    printf '  query_log_file: %s\n' "$WORK/queries.log"
    printf 'rule_files:\n  - %s\n' "$ROOT/assets/prometheus/restop-fleet-rules.yml"
    printf 'scrape_configs:\n'
    for h in $(seq 0 $((HOSTS - 1))); do
        printf '  - job_name: restop-%d\n    metrics_path: /metrics\n    params: {h: ["%d"]}\n' "$h" "$h"
        printf '    static_configs:\n      - targets: ["127.0.0.1:%d"]\n' "$EXPO_PORT"
        printf '        labels: {node: "node-%04d", instance: "node-%04d:9879"}\n' "$h" "$h"
    done
} >"$WORK/prometheus.yml"
"$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
    --web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
PROM_PID=$!
PIDS+=("$PROM_PID")

# 4. A proxy in front of it that counts the bytes each way.
PROXY_PORT=$(free_port)
cat >"$WORK/proxy.py" <<'EOF'
import sys, socket, threading
listen, target, counts = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
total = [0, 0]
lock = threading.Lock()
def pipe(src, dst, i):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            with lock:
                total[i] += len(data)
                open(counts, "w").write(f"{total[0]} {total[1]}\n")
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", listen))
srv.listen(64)
open(counts, "w").write("0 0\n")
while True:
    c, _ = srv.accept()
    u = socket.create_connection(("127.0.0.1", target))
    threading.Thread(target=pipe, args=(c, u, 0), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c, 1), daemon=True).start()
EOF
python3 "$WORK/proxy.py" "$PROXY_PORT" "$PROM_PORT" "$WORK/counts" &
PIDS+=($!)

echo "bench-fleet: $HOSTS hosts x ~$SERIES series, scrape every $SCRAPE, restop $RESTOP"
started=$(date +%s)
for _ in $(seq 1 600); do
    kill -0 "$PROM_PID" 2>/dev/null || { echo "bench-fleet: Prometheus exited"; tail -5 "$WORK/prometheus.log"; exit 1; }
    n=$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode 'query=count(restop:fleet_target_up)' \
        | python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null || echo 0)
    [ "$n" = "$HOSTS" ] && break
    sleep 1
done
[ "$n" = "$HOSTS" ] || { echo "bench-fleet: Prometheus never recorded $HOSTS targets (got $n)"; tail -5 "$WORK/prometheus.log"; exit 1; }
# One more evaluation, so every rule has a value for every target.
sleep "${SCRAPE%s}"
echo "bench-fleet: every target recorded after $(( $(date +%s) - started )) s"
SERIES_TOTAL=$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/status/tsdb" \
    | python3 -c 'import sys,json; print(json.load(sys.stdin)["data"]["headStats"]["numSeries"])')

# 5. The refreshes (the query log from here on is theirs, and the rules').
: >"$WORK/runs"
: >"$WORK/queries.log"
for run in $(seq 1 "$RUNS"); do
    read -r up0 down0 <"$WORK/counts"
    /usr/bin/time -v -o "$WORK/time" "$RESTOP" fleet --prometheus "http://127.0.0.1:$PROXY_PORT" \
        --host-label node --http-timeout 20s --json >"$WORK/doc.json"
    sleep 0.2
    read -r up1 down1 <"$WORK/counts"
    hosts=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["hosts"]))' "$WORK/doc.json")
    [ "$hosts" = "$HOSTS" ] || { echo "bench-fleet: run $run read $hosts hosts, not $HOSTS"; exit 1; }
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$WORK/time")
    cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$WORK/time")
    rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$WORK/time")
    echo "$wall $cpu $((down1 - down0)) $((up1 - up0)) $rss" >>"$WORK/runs"
done

python3 - "$WORK/runs" "$HOSTS" "$SERIES_TOTAL" "$RUNS" <<'EOF'
import sys, statistics as st
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
hosts, series, runs = sys.argv[2], sys.argv[3], sys.argv[4]
med = lambda i: st.median(r[i] for r in rows)
wall, cpu, down, up, rss = (med(i) for i in range(5))
print(f"hosts {hosts}, Prometheus head series {series}, {runs} refreshes (medians):")
print(f"  refresh wall time   {wall:8.3f} s     target <= 1 s      ratio {wall / 1.0:5.2f}")
print(f"  transferred         {down / 1e6:8.3f} MB    target <= 5 MB     ratio {down / 5e6:5.2f}  (requests {up / 1e3:.1f} kB)")
print(f"  CPU per refresh     {cpu:8.3f} s")
print(f"  CPU at 15 s         {cpu / 15 * 100:8.2f} %     target <= 2 %      ratio {cpu / 15 * 100 / 2:5.2f}")
print(f"  max RSS             {rss / 1024:8.1f} MiB")
EOF

# 6. Where a refresh's time goes: each query restop sent (named by the first fact it asks
#    for), and the recording rules, which Prometheus evaluates once per interval.
curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/rules?type=record" >"$WORK/rules.json" || echo '{}' >"$WORK/rules.json"
[ -z "${QUERY_LOG:-}" ] || cp "$WORK/queries.log" "$QUERY_LOG"
python3 - "$WORK/queries.log" "$WORK/rules.json" <<'EOF'
import sys, json, re, statistics as st
names = {"up": "hosts", "usage": "problems", "process": "consumers"}
times = {}
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if "httpRequest" not in e:
        continue  # a rule's evaluation
    q = e.get("params", {}).get("query", "")
    m = re.search(r'"fact", "([a-z_]+)"', q)
    name = names.get(m.group(1), m.group(1)) if m else ("rules probe" if q.startswith("count(") else q[:40])
    t = e.get("stats", {}).get("timings", {})
    times.setdefault(name, []).append(t.get("execTotalTime", 0.0))
print("Prometheus' query log, each query of the refreshes (median execution time):")
for name, ts in sorted(times.items()):
    print(f"  {name:<12} x{len(ts):<3} {st.median(ts):7.3f} s")
try:
    groups = json.load(open(sys.argv[2]))["data"]["groups"]
except (ValueError, KeyError):
    groups = []
for g in groups:
    print(f"recording rules, group {g['name']}: {g.get('evaluationTime', 0):.3f} s an evaluation (every {g.get('interval', 0):.0f} s); the costliest:")
    for r in sorted(g["rules"], key=lambda r: -r.get("evaluationTime", 0))[:6]:
        print(f"  {r['name']:<48} {r.get('evaluationTime', 0):7.3f} s")
EOF
