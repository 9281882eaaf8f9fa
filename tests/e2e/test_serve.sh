#!/usr/bin/env bash
# End-to-end: --serve. A real Prometheus server (Debian's prometheus) scrapes a live session on
# loopback every second, and its HTTP API returns the GPU power series that the real
# librocm_smi64 read from a fabricated sysfs tree (gpu_sysfs.sh, in a private mount namespace as
# in test_gpu.sh), before and after the value changes. /metrics is compared with the session's
# own numbers (its -b frames, the target's pid, the KFD process) and parsed strictly (HELP/TYPE,
# escaped labels); /snapshot.json parses; -p and --attach-gpu serve too; a client that sends
# nothing or too much stalls nothing; nothing listens without --serve.
if [ "${ROCSYS_SERVE_NS:-}" != 1 ]; then
    : "${ROCSYS_TOP:?run through ctest}"
    [ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for unshare -m and mount (uid $(id -u))"; exit 77; }
    if ! msg=$(unshare -m sh -c 'mount -t tmpfs none /sys/class' 2>&1); then
        echo "SKIP: cannot create a mount namespace with a tmpfs over /sys/class: $msg"
        exit 77
    fi
    exec env ROCSYS_SERVE_NS=1 unshare -m bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
mount -t tmpfs none /sys/class
mount -t tmpfs none /dev/shm # ROCm SMI's per-card mutexes: this test's own
GS="bash $(dirname "$0")/gpu_sysfs.sh"
grep -q librocm_smi64 <<< "$(ldconfig -p)" || [ -n "${ROCSYS_ROCM_SMI:-}" ] ||
    skip "librocm_smi64 is not installed (scripts/deps installs librocm-smi64-1)"
PROM=$(command -v prometheus || true)
[ -n "$PROM" ] || skip "prometheus is not installed (scripts/deps installs it)"
$GS make 1

# free_port: a loopback port nobody listens on now
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# get URL FILE: fetch with a time limit; the body in FILE
get() { curl -sS --max-time 5 -o "$2" "$1"; }
# metric FILE SELECTOR: the value of the first sample whose line starts with SELECTOR
metric() { awk -v s="$2" 'index($0, s) == 1 {print $NF; exit}' "$1"; }
# wait_until SECONDS CMD...: until CMD succeeds
wait_until() {
    local n=$(($1 * 5)); shift
    for ((i = 0; i < n; i++)); do "$@" 2> /dev/null && return 0; sleep 0.2; done
    return 1
}
# prom_ok FILE: the exposition parses (python check: every sample line belongs to a family with
# HELP and TYPE, label values escaped, values numbers)
prom_ok() {
    python3 - "$1" << 'EOF'
import re, sys
fam, typ = {}, {}
lab = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{' + lab + r'(?:,' + lab + r')*\})? (\S+)$')
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    line = line.rstrip("\n")
    m = re.match(r"^# (HELP|TYPE) (\S+) (.+)$", line)
    if m:
        (fam if m[1] == "HELP" else typ)[m[2]] = m[3]
        continue
    m = sample.match(line)
    if not m:
        sys.exit(f"line {n}: not a sample: {line!r}")
    if m[1] not in fam or typ.get(m[1]) not in ("gauge", "counter"):
        sys.exit(f"line {n}: {m[1]} without HELP/TYPE")
    float(m[3])
EOF
}

# ---- a launched program, headless, scraped by Prometheus every second ----
mkdir -p "$WORK/odd"
ODD="$WORK/odd/demo\"q\\b" # a target name to escape in labels
ln -s "$ROCSYS_DEMO" "$ODD"
P=$(free_port)
# (the target runs until the section's Ctrl-C: this section took close to a minute under ASan
# beside two busy loops, and a 60 s target had ended, with its server, before the last check)
"$ROCSYS_TOP" --serve "$P" --no-tui --gpu-interval 100 -d 2 -- "$ODD" --seconds 600 \
    > "$WORK/run.out" 2> "$WORK/run.err" &
RT=$!
check "the endpoint answers" wait_until 20 get "http://127.0.0.1:$P/metrics" "$WORK/m0.txt"
tpid=$(pgrep -P "$RT" | head -1 || true)
[ -z "$tpid" ] || $GS proc "$tpid" 0 $((3 << 20))
Q=$(free_port)
cat > "$WORK/prom.yml" << EOF
global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: rocsys
    static_configs: [{targets: ["127.0.0.1:$P"]}]
EOF
"$PROM" --config.file="$WORK/prom.yml" --storage.tsdb.path="$WORK/tsdb" \
    --web.listen-address="127.0.0.1:$Q" --log.level=warn > "$WORK/prom.log" 2>&1 &
API="http://127.0.0.1:$Q/api/v1"
# pq QUERY: the first result's value of an instant query ("" if none)
pq() {
    curl -sS --max-time 5 --data-urlencode "query=$1" "$API/query" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")'
}
is() { [ "$(pq "$1")" = "$2" ]; }
check "Prometheus scrapes the session (up == 1)" wait_until 60 is 'up{job="rocsys"}' 1
check "Prometheus has the GPU power: 100 W" \
    wait_until 30 is 'rocsys_gpu_power_watts{gpu="0",pci="0000:03:00.0"}' 100
$GS set 0 hwmon/hwmon0/power1_average 150000000
check "the power change reaches Prometheus: 150 W" \
    wait_until 30 is 'rocsys_gpu_power_watts{gpu="0"}' 150
# the series itself, from the range API: both readings, in order (2 s on: the range's last
# step is past the scrape that saw 150)
sleep 2
now=$(($(date +%s) + 1))
curl -sS --max-time 5 --data-urlencode 'query=rocsys_gpu_power_watts{gpu="0"}' \
    --data-urlencode "start=$((now - 120))" --data-urlencode "end=$now" \
    --data-urlencode step=1 "$API/query_range" > "$WORK/range.json"
series=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
v = [float(x[1]) for x in r[0]["values"]] if len(r) == 1 else []
d = [x for i, x in enumerate(v) if i == 0 or v[i - 1] != x]
print(" ".join("%g" % x for x in d))' "$WORK/range.json")
check "the power series is 100 then 150 (got: $series)" test "$series" = "100 150"
# the target label of rocsys_info as Prometheus parsed it
info_target() {
    curl -sS --max-time 5 --data-urlencode 'query=rocsys_info' "$API/query" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["metric"]["target"] if r else "")'
}
check "the odd target name survives the labels' escaping" test "$(info_target)" = "$ODD --seconds 600"
check "the target's CPU in Prometheus" wait_until 10 is "count(rocsys_process_cpu_percent{pid=\"$tpid\",root=\"1\"} > 0)" 1
if [ -n "$tpid" ]; then
    check "the KFD process's VRAM in Prometheus" \
        wait_until 10 is "rocsys_gpu_process_vram_bytes{pid=\"$tpid\"}" $((3 << 20))
fi

# ---- /metrics content ----
get "http://127.0.0.1:$P/metrics" "$WORK/m.txt"
check "/metrics parses (HELP/TYPE, escaped labels, numbers)" prom_ok "$WORK/m.txt"
check "the GPU power gauge" grep -q '^rocsys_gpu_power_watts{gpu="0",pci="0000:03:00.0",name="[^"]*"} 150$' "$WORK/m.txt"
check "temperatures in celsius" grep -q '^rocsys_gpu_temp_edge_celsius{gpu="0".*} 40$' "$WORK/m.txt"
check "clocks in hertz" grep -q '^rocsys_gpu_sclk_hertz{gpu="0".*} 1700000000$' "$WORK/m.txt"
check "demo_solve is the top function" grep -q '^rocsys_function_self_share{position="1",function="demo_solve",' "$WORK/m.txt"
s1=$(metric "$WORK/m.txt" rocsys_samples_total)
sleep 1.5
get "http://127.0.0.1:$P/metrics" "$WORK/m2.txt"
s2=$(metric "$WORK/m2.txt" rocsys_samples_total)
check "samples keep counting ($s1, then $s2)" test "${s2:-0}" -gt "${s1:-0}"
get "http://127.0.0.1:$P/snapshot.json" "$WORK/snap.json"
check "/snapshot.json parses, with the target and the GPU" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gpu"]["devices"][0]["power_w"] == 150, d["gpu"]
assert any(p["root"] and p["pid"] == int(sys.argv[2]) for p in d["processes"]), d["processes"]
assert d["hot"]["functions"][0]["function"] == "demo_solve", d["hot"]["functions"][:3]
assert d["session"]["samples"] > 0' "$WORK/snap.json" "${tpid:-0}"

# ---- hostile clients: one that sends nothing, one that sends too much, one that is not HTTP ----
python3 - "$P" > "$WORK/hostile.txt" << 'EOF' &
import socket, sys, time
port = int(sys.argv[1])
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
big = socket.create_connection(("127.0.0.1", port))
big.sendall(b"GET /" + b"a" * 200000 + b" HTTP/1.0\r\n\r\n") # read and dropped after the 400
print(big.recv(200).split(b"\r\n")[0].decode())
junk = socket.create_connection(("127.0.0.1", port))
junk.sendall(b"\x00\x01hello\r\n\r\n")
print(junk.recv(200).split(b"\r\n")[0].decode())
time.sleep(8) # past the server's 5 s limit: the idle ones must have been closed by then
print("idle closed" if all(s.recv(10) == b"" for s in idle) else "idle open")
EOF
HOSTILE=$!
sleep 1
get "http://127.0.0.1:$P/metrics" "$WORK/m3.txt"
s3=$(metric "$WORK/m3.txt" rocsys_samples_total)
check "served while idle clients hold connections ($s3 > $s2)" test "${s3:-0}" -gt "${s2:-0}"
wait $HOSTILE || true
check "too long a request: 400" grep -qx 'HTTP/1.0 400 Bad Request' <(sed -n 1p "$WORK/hostile.txt")
check "not HTTP: 400" grep -qx 'HTTP/1.0 400 Bad Request' <(sed -n 2p "$WORK/hostile.txt")
check "idle clients closed after the time limit" grep -qx 'idle closed' <(sed -n 3p "$WORK/hostile.txt")
code=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P/x" || true)
check "an unknown path: 404 (got ${code:-nothing}; 000: no answer)" test "$code" = 404

# ---- the same numbers as the session's own frames (-b and --serve together) ----
# (SIGTERM: rocsys-top passes a signal on to its target, and this script's background jobs
# ignore SIGINT, so a SIGINT would end the demo only at rocsys-top's SIGKILL, 20 s later)
kill -TERM "$RT" 2> /dev/null || true
wait "$RT" || true
P2=$(free_port)
"$ROCSYS_TOP" -b -d 5 --serve "$P2" -- "$ROCSYS_DEMO" --seconds 30 > "$WORK/frames.txt" 2> "$WORK/b.err" &
RB=$!
# /metrics answers from the live model, which goes on counting after a frame is printed: wait
# for a frame with 3000 samples, when the shares hold still (under ASan on a loaded machine the
# demo's first frames had none: frame 3, compared before, had no row for its functions), read
# /metrics, and compare it with the last frame printed before (the samples of both printed)
# frame_samples [FILE]: the samples of the last frame header in FILE (frames.txt)
frame_samples() {
    awk '/^mode /{for (i = 1; i < NF; i++) if ($i == "samples") m = $(i + 1)} END {print m + 0}' \
        "${1:-$WORK/frames.txt}"
}
enough_samples() { [ "$(frame_samples)" -ge 3000 ]; }
wait_until 60 enough_samples || true
check "a frame with 3000 samples printed (the last had $(frame_samples))" enough_samples
k=$(grep -c '^rocsys-top frame' "$WORK/frames.txt" || true)
get "http://127.0.0.1:$P2/metrics" "$WORK/mb.txt"
kill -TERM "$RB" 2> /dev/null || true
wait "$RB" || true
awk -v k="$k" '/^rocsys-top frame /{f = ($3 == k)} f' "$WORK/frames.txt" > "$WORK/fk.txt"
echo "    frame $k: samples $(frame_samples "$WORK/fk.txt"); /metrics read after it: $(metric "$WORK/mb.txt" rocsys_samples_total)"
for fn in demo_solve demo_butterfly demo_reduce; do
    fr=$(hot_self "$fn" < "$WORK/fk.txt" | tr -d %)
    sv=$(awk -v f="function=\"$fn\"" 'index($0, "rocsys_function_self_share{") == 1 && index($0, f) {print $NF * 100; exit}' "$WORK/mb.txt")
    check "$fn: /metrics share $sv % is frame $k's $fr % (within 2)" within "${sv:-x}" "${fr:-y}" 2
done

# ---- -p and --attach-gpu ----
"$ROCSYS_DEMO" --seconds 30 > /dev/null &
DP=$!
P3=$(free_port)
"$ROCSYS_TOP" -p "$DP" --serve "$P3" --no-tui -d 2 > /dev/null 2> "$WORK/p.err" &
RP=$!
check "-p: the process's CPU served" wait_until 20 sh -c "curl -s --max-time 5 http://127.0.0.1:$P3/metrics | grep -q '^rocsys_process_cpu_percent{pid=\"$DP\"'"
kill -INT "$RP" 2> /dev/null || true
wait "$RP" || true
kill "$DP" 2> /dev/null || true
P4=$(free_port)
"$ROCSYS_TOP" --attach-gpu --serve "$P4" --no-tui -d 2 --gpu-interval 100 > /dev/null 2> "$WORK/a.err" &
RA=$!
check "--attach-gpu: the GPU power served" wait_until 20 sh -c "curl -s --max-time 5 http://127.0.0.1:$P4/metrics | grep -q '^rocsys_gpu_power_watts{gpu=\"0\".*} 150$'"
kill -INT "$RA" 2> /dev/null || true
wait "$RA" || true

# ---- nothing listens unless asked; a bad address is one line ----
"$ROCSYS_TOP" -b -d 5 -n 4 -- "$ROCSYS_DEMO" --seconds 5 > /dev/null 2>&1 &
RN=$!
sleep 1
check "without --serve rocsys-top listens on nothing" \
    test -z "$(ss -Hltnp 2> /dev/null | grep "pid=$RN," || true)"
wait "$RN" || true
out=$("$ROCSYS_TOP" --serve 1.2.3:x -- true 2>&1) && rc=0 || rc=$?
check "a bad --serve address: exit 2 and one line (got $rc: $out)" \
    test "$rc" -eq 2 -a "$(wc -l <<< "$out")" -eq 1
finish
