#!/usr/bin/env bash
# What attaching to a Python program costs it: the target's slowdown with rocsys-top -p (the
# perf engine, its 64 KiB stack copy, and the BPF walker reading the Python frames of each
# sample) against the same program bare and under perf record --call-graph dwarf with the same
# stack copy (which gets no Python frame), side by side; and rocsys-top's own CPU.
#
# usage: bench/python_cost.sh BUILD_DIR [ROUNDS]
#
# The target: python3 (PYTHON, default pyenv's newest 3.12, else /usr/bin/python3) with
# THREADS threads, each at the bottom of DEPTH Python frames (50), doing a fixed share of
# BENCH_UNITS loops of arithmetic (default 30000: about 3 s of CPU here). It waits for a go
# file before its fixed work, so a profiler attaches first; it measures that work itself
# (wall and time.process_time(), which holds the sampling interrupts spent in it) and says.
# Variants, alternated in each of ROUNDS rounds (default 3; the first rotates), for THREADS 1
# and 16 (16 threads share the interpreter's lock: about one runs at a time):
#   bare         the program alone
#   rt           rocsys-top -p PID -b -d 10 -f 1000 (Python frames from outside: BPF, root)
#   rt-nopy      the same with --python off (the perf engine alone: what the walker adds)
#   dwarf        perf record -e task-clock -F 1000 --call-graph dwarf,65528 -p PID
# Printed per variant, medians over the rounds: the target's CPU for the fixed work and its
# ratio to bare, its wall time and ratio, the profiler's own CPU (its user+sys from wait4)
# as % of its own wall time (start-up and the wait for the go file included), its samples,
# and for rt the share of the samples in work.py's burn (Python frames read: about 100). Then the ratios rt/dwarf and rt/rt-nopy. Needs root (the BPF walker). About 4 minutes
# at ROUNDS=3 on 2 CPUs. See docs/performance.md, "Python frames from outside".
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [ROUNDS]" 1 2 "$@"
rounds=${2:-3}
positive_int ROUNDS "$rounds"
units=${BENCH_UNITS:-30000}
positive_int BENCH_UNITS "$units"
[[ $(id -u) -eq 0 ]] || die "needs root (the BPF walker needs CAP_BPF and CAP_PERFMON)"
bench_rocsys_top
timeit=$(find_program "$build" tp_timeit)
py=${PYTHON:-$(newest_pyenv 3.12)}
py=${py:-/usr/bin/python3}
bench_tmpdir tmp pycost
have_dwarf=0
perf_works "$tmp" && have_dwarf=1

cat >"$tmp/work.py" <<'PYEOF'
import os, sys, threading, time
def burn(n):
    x = 0
    for _ in range(n):
        for i in range(2000):
            x = (x * 7 + i) & 0xFFFF
    return x
def down(k, n):
    return down(k - 1, n) if k > 0 else burn(n)
def main():
    depth, threads, units, go, report = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                                         sys.argv[4], sys.argv[5])
    while not os.path.exists(go):
        time.sleep(0.01)
    # <module>, main, (run, bootstrap frames in a thread), down x (depth-3), burn
    ts = [threading.Thread(target=down, args=(depth - 4, units // threads))
          for _ in range(threads)]
    w0, c0 = time.monotonic(), time.process_time()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    w1, c1 = time.monotonic(), time.process_time()
    with open(report, "w") as f:
        f.write("%.6f %.6f\n" % (w1 - w0, c1 - c0))
main()
PYEOF

echo "rocsys-top: the cost of attaching to a Python program ($py, 50 frames), $rounds rounds"
machine_info
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

variants=(bare rt rt-nopy)
((have_dwarf)) && variants+=(dwarf)
rec() { echo "$1 $2 $3 $4" >>"$tmp/results"; }

# wait_for_line FILE REGEX SECONDS: until a line of FILE matches (0), or the time is up (1)
wait_for_line() {
    local i
    for ((i = 0; i < $3 * 20; i++)); do
        grep -qE "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# run_variant VARIANT THREADS ROUND: one run, its figures into the results
run_variant() {
    local v=$1 th=$2 r=$3 key="$1/$2" base=$tmp/run pid prof=() ppid=0 rc=0
    rm -f "$base".*
    "$py" "$tmp/work.py" 50 "$th" "$units" "$base.go" "$base.report" &
    pid=$!
    sleep 0.5 # (the interpreter's start)
    case $v in
    rt) prof=("$rocsys_top" -p "$pid" -b -d 10 -f 1000) ;;
    rt-nopy) prof=("$rocsys_top" -p "$pid" -b -d 10 -f 1000 --python off) ;;
    dwarf) prof=(perf record -e task-clock -F 1000 --call-graph dwarf,65528 -o "$base.data"
        -p "$pid") ;;
    esac
    if ((${#prof[@]})); then
        "$timeit" -o "$base.time" "${prof[@]}" >"$base.out" 2>"$base.log" &
        ppid=$!
        case $v in # ready: its first frame; perf record says nothing when it is
        rt*) wait_for_line "$base.out" '^mode ' 20 || note "$key: no frame from rocsys-top in 20 s" ;;
        dwarf) sleep 1.5 ;;
        esac
    fi
    touch "$base.go"
    wait "$pid" || rc=$?
    ((ppid)) && { wait "$ppid" || true; }
    if [[ $rc -ne 0 || ! -s $base.report ]]; then
        note "$key failed in round $r (status $rc)"
        tail -n 3 "$base.log" 2>/dev/null | sed 's/^/    /' >&2
        return 0
    fi
    local tw tc w u s last samples=- pyshare=-
    read -r tw tc <"$base.report"
    rec "$key" "$r" twall "$tw"
    rec "$key" "$r" tcpu "$tc"
    if ((ppid)) && [[ -s $base.time ]]; then
        read -r w u s _ <"$base.time"
        rec "$key" "$r" fe "$(awk -v a="$u" -v b="$s" -v t="$w" 'BEGIN { printf "%.2f", 100 * (a + b) / t }')"
    fi
    case $v in
    rt*)
        last=$(status_lines "$base.out" | tail -n 1)
        samples=$(field_after "$last" 'samples')
        # the last frame's hot functions: the share of the samples in work.py's burn
        [[ $v == rt ]] && pyshare=$(awk '/^mode / { s = 0; on = 0 } /^== Hot functions/ { on = 1; next }
            /^==/ { on = 0 } on && $4 == "burn" && $5 == "[python]" { s += $1 }
            END { printf "%.1f", s }' "$base.out")
        ;;
    dwarf)
        samples=$(grep -oE '\(([0-9]+) samples\)' "$base.log" | grep -oE '[0-9]+' | tail -n 1 || true)
        ;;
    esac
    rec "$key" "$r" samples "${samples:--}"
    rec "$key" "$r" pyframes "$pyshare"
}

for th in 1 16; do
    for ((r = 1; r <= rounds; r++)); do
        n=${#variants[@]}
        for ((k = 0; k < n; k++)); do
            run_variant "${variants[$(((k + r - 1) % n))]}" "$th" "$r"
        done
    done
done

med() {
    awk -v v="$1" -v k="$2" '$1 == v && $3 == k && $4 != "-" { print $4 }' "$tmp/results" | median
}
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b == 0)
                                          print "-"; else printf "%.3f", a / b }'
}
printf '%-12s %8s %7s %8s %7s %7s %8s %9s\n' variant tcpu_s cpu_x twall_s wall_x prof_%cpu \
    samples in_burn_%
for th in 1 16; do
    bc=$(med "bare/$th" tcpu) bw=$(med "bare/$th" twall)
    for v in "${variants[@]}"; do
        k="$v/$th"
        printf '%-12s %8s %7s %8s %7s %7s %8s %9s\n' "$k" "$(med "$k" tcpu)" \
            "$(ratio "$(med "$k" tcpu)" "$bc")" "$(med "$k" twall)" \
            "$(ratio "$(med "$k" twall)" "$bw")" "$(med "$k" fe)" "$(med "$k" samples)" \
            "$(med "$k" pyframes)"
    done
done
echo
echo "== ratios (target CPU for the same work) =="
for th in 1 16; do
    line="  $th thread(s): rocsys-top/bare $(ratio "$(med "rt/$th" tcpu)" "$(med "bare/$th" tcpu)")"
    line+=", rocsys-top/rocsys-top --python off $(ratio "$(med "rt/$th" tcpu)" "$(med "rt-nopy/$th" tcpu)")"
    if ((have_dwarf)); then
        line+=", perf-record/bare $(ratio "$(med "dwarf/$th" tcpu)" "$(med "bare/$th" tcpu)")"
        line+=", rocsys-top/perf-record $(ratio "$(med "rt/$th" tcpu)" "$(med "dwarf/$th" tcpu)")"
    fi
    echo "$line"
done
echo "($(cut -d' ' -f1-3 /proc/loadavg) load average at end)"
