#!/usr/bin/env bash
# Python frames from outside: what reading a sample's Python frames with the BPF walker costs,
# by Python stack depth (3 and 50 frames), attached with -p at 1000 Hz.
#
# usage: bench/python_outside.sh BUILD_DIR [ROUNDS]
#
# The target: python3 (PYTHON, default pyenv's newest 3.12, else /usr/bin/python3) running a
# pure-Python loop at the bottom of DEPTH-2 nested calls (+ <module>, main: DEPTH frames).
# Each run attaches for BENCH_FRAMES batch frames (default 10, 0.1 s apart) with
# ROCSYS_BPF_STATS=1 (the kernel times the walker: run_time_ns / run_cnt of the BPF program,
# BPF_ENABLE_STATS; rocsys-top times its pairing and decoding of each walk). Per row, the
# medians over ROUNDS rounds (default 3; the rows alternate within each round):
#   kernel ns/sample: the walker's time per sample, spent at the sample's interrupt on the
#                     target's CPU (the target's extra cost per sample; goal <= 2000 at 50)
#   front ns/sample:  rocsys-top's pairing and turning the walk into frames (code objects read
#                     once each: the first samples pay for them)
#   paired / missed:  samples with their walk / without (never paired with another's)
# At 50 frames the walker is also cut short, for the breakdown: "entry+regs" (the program's
# entry, its maps, the thread's registers), "+tstate" (finding the thread state and reading
# its fields), "+frames" (the frame reads, without publishing the walk in its ring).
# With BENCH_BEFORE=DIR (a build of another commit), its walker's whole runs at 3 and 50 frames
# too ("before" rows), alternated with the others in the same rounds, and the ratios
# before / this build. With PYTHON_OLD (a CPython 3.8-3.10, default pyenv's newest 3.10), whole
# runs at 50 frames on it too ("3.10" rows: one read per frame), with BENCH_BEFORE as well.
# With BENCH_TIMED=1 (the default), the whole runs at 50 frames again with ROCSYS_BPF_TIMED=1
# ("timed" rows, in the same rounds): the walker times each walk itself (bpf_ktime_get_ns from
# its entry to the walk's publication, 50 ns bins) and apart for the samples that follow the
# thread's last one within 1.5 periods ("running": caches warm) and the first after the thread
# was off its CPU ("after a pause": the caches hold the other programs' lines). The kernel's
# mean per sample mixes the two in the share the machine's load sets (on 2 vCPUs: 22 % of the
# samples after a pause at load 9, 36 % at load 11-12, each 2.5-3 times as costly), which is
# why it grows with the load; the timed rows show each part. A build without the timing (older
# than 1458eea) prints no timed row.
# The load average at the start and the end, the vCPUs' steal time over the runs, and the
# machine's own first-touch cost at the start and the end (bench/cache_ref.c: a 6 KiB copy of
# memory last touched a millisecond of CPU before, as the walker's window read at 50 frames, and
# again at once; the core's speed) are printed too: the walker's costs depend on what else the
# machine runs and on where it leaves the caches (docs/performance.md).
# Then the walker's start-up: bench/bpf_load.c loads each build's bpf/pyframes.bpf.o (libbpf's
# relocation, the verifier, the maps) 5 times in turn; medians of wall and CPU ms (what a
# launched Python program waits for before its exec). Root only (CAP_BPF). See
# docs/performance.md, "Python frames from outside".
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [ROUNDS]" 1 2 "$@"
rounds=${2:-3}
positive_int ROUNDS "$rounds"
frames=${BENCH_FRAMES:-10}
positive_int BENCH_FRAMES "$frames"
before=${BENCH_BEFORE:-}
[[ -z $before || -x $before/rocsys-top ]] || die "$before/rocsys-top not found"
[[ $(id -u) -eq 0 ]] || die "needs root (the BPF walker needs CAP_BPF and CAP_PERFMON)"
py=${PYTHON:-$(newest_pyenv 3.12)}
py=${py:-/usr/bin/python3}
pyold=${PYTHON_OLD:-$(newest_pyenv 3.10)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/deep.py" << 'PYEOF'
import sys, time
def burn(seconds):
    t = time.thread_time()
    x = 0
    while time.thread_time() - t < seconds:
        for i in range(2000):
            x = (x * 7 + i) & 0xFFFF
    return x
def down(n, seconds):
    return down(n - 1, seconds) if n > 0 else burn(seconds)
def main():
    depth, seconds = int(sys.argv[1]), float(sys.argv[2])
    down(depth - 4, seconds)  # <module>, main, down x (depth-3), burn = depth frames
main()
PYEOF

cc -std=gnu11 -O2 -o "$work/cache_ref" "$here/cache_ref.c" || die "building cache_ref failed"
# the machine's first-touch cost, one line: "when: cold median / mean, warm median / mean, adds"
cache_ref() {
    "$work/cache_ref" 2 | awk -v w="$1" '{
        printf "machine %s: 6 KiB copy of memory touched 1 ms of CPU before: median %s / mean", w, $2
        printf " %s ns; at once again: %s / %s ns; 1000 dependent additions %s ns\n", $3, $4, $5, $6 }'
}
ref0=$(cache_ref "at the start")
load0=$(cut -d ' ' -f 1 /proc/loadavg)
read -r -a stat0 < /proc/stat
# rows: "label depth mode build"
rows=("whole 3 1 $build" "whole 50 1 $build" "entry+regs 50 2 $build" "+tstate 50 3 $build"
    "+frames 50 4 $build")
[[ -n $before ]] && rows+=("before 3 1 $before" "before 50 1 $before")
if [[ -n $pyold ]]; then
    rows+=("3.10 50 1 $build")
    [[ -n $before ]] && rows+=("3.10-before 50 1 $before")
fi
if [[ ${BENCH_TIMED:-1} == 1 ]]; then
    rows+=("timed 50 1 $build")
    [[ -n $before ]] && rows+=("timed-before 50 1 $before")
    if [[ -n $pyold ]]; then
        rows+=("timed-3.10 50 1 $build")
        [[ -n $before ]] && rows+=("timed-3.10-before 50 1 $before")
    fi
fi
for ((r = 0; r < rounds; r++)); do
    for row in "${rows[@]}"; do
        read -r label depth mode bin <<< "$row"
        d=$((depth < 4 ? 4 : depth))
        p=$py
        [[ $label == *3.10* ]] && p=$pyold
        timed=
        [[ $label == timed* ]] && timed=1
        "$p" "$work/deep.py" "$d" 600 &
        pid=$!
        sleep 0.5
        env ROCSYS_BPF_STATS="$mode" ${timed:+ROCSYS_BPF_TIMED=1} "$bin/rocsys-top" -p "$pid" -b \
            -n "$frames" -d 1 -f 1000 > "$work/out" 2> "$work/err" || true
        kill "$pid" 2> /dev/null
        wait "$pid" 2> /dev/null || true
        line=$(grep 'bpf walker:' "$work/err") || {
            note "$label $depth: no walker statistics (no sample?): $(head -3 "$work/err")"
            continue
        }
        key="$label-$depth"
        sed -E 's/.* ([0-9]+) ns each.*/\1/' <<< "$line" >> "$work/k.$key"
        sed -E 's/.*front end ([0-9]+) ns.*/\1/' <<< "$line" >> "$work/f.$key"
        sed -E "s/.*paired ([0-9]+), walks.*/\\1/" <<< "$line" >> "$work/p.$key"
        sed -E 's/.*without walk ([0-9]+).*/\1/' <<< "$line" >> "$work/m.$key"
        # timed rows: "walks N, median M ns, p90 P ns, mean A ns" per class, one line a round:
        # running walks, median, mean, then the same after a pause (0 0 0 if none)
        if [[ -n $timed ]]; then
            pat='s/.*: ([0-9]+) walks, median ([0-9]+) ns, p90 [0-9]+ ns, mean ([0-9]+) ns/\1 \2 \3/'
            for class in running pause; do
                grep "bpf walker timed, [a-z ]*$class" "$work/err" | sed -E "$pat" | grep . ||
                    echo 0 0 0
            done | paste -d ' ' - - >> "$work/t.$key"
        fi
    done
done
declare -A kern
printf '%-6s %-18s %16s %16s %8s %8s\n' depth walker "kernel ns/sample" "front ns/sample" \
    paired missed
for row in "${rows[@]}"; do
    read -r label depth mode bin <<< "$row"
    key="$label-$depth"
    [[ -f $work/k.$key ]] || continue
    kern[$key]=$(median < "$work/k.$key")
    f=$(median < "$work/f.$key")
    [[ $mode == 1 ]] || f=-
    printf '%-6s %-18s %16s %16s %8s %8s\n' "$depth" "$label" "${kern[$key]}" "$f" \
        "$(awk '{s += $1} END {print s}' "$work/p.$key")" \
        "$(awk '{s += $1} END {print s}' "$work/m.$key")"
done
timed_rows=0
for row in "${rows[@]}"; do
    read -r label depth mode bin <<< "$row"
    key="$label-$depth"
    [[ $label == timed* && -f $work/t.$key ]] && grep -qv '^0 0 0 0 0 0$' "$work/t.$key" || continue
    ((timed_rows++ == 0)) && printf '%-6s %-18s %24s %24s %14s\n' depth "walker (timed)" \
        "running: median / mean" "after a pause: med / mean" "after a pause"
    col() { awk -v c="$1" '$1 + $4 > 0 && $c > 0 {print $c}' "$work/t.$key" | median; }
    lbl=${label#timed}
    lbl=${lbl#-}
    printf '%-6s %-18s %24s %24s %14s\n' "$depth" "${lbl:-this build}" "$(col 2) / $(col 3)" \
        "$(col 5) / $(col 6)" \
        "$(awk '$1 + $4 > 0 {printf "%.2f\n", $4 / ($1 + $4)}' "$work/t.$key" | median)"
done
awk -v a="${kern[whole-50]:-0}" -v b="${kern[whole-3]:-0}" \
    'BEGIN{if (b > 0) printf "kernel 50 frames / 3 frames: %.2f\n", a/b}'
if [[ -n $before ]]; then
    for depth in 3 50; do
        awk -v a="${kern[before-$depth]:-0}" -v b="${kern[whole-$depth]:-0}" -v d="$depth" \
            'BEGIN{if (b > 0) printf "kernel before / now at %d frames: %.2f\n", d, a/b}'
    done
    awk -v a="${kern[3.10-before-50]:-0}" -v b="${kern[3.10-50]:-0}" \
        'BEGIN{if (b > 0) printf "kernel before / now at 50 frames, 3.10: %.2f\n", a/b}'
fi
read -r -a stat1 < /proc/stat
echo "$ref0"
cache_ref "at the end"
# /proc/stat's cpu line: user nice system idle iowait irq softirq steal ...
awk -v l0="$load0" -v l1="$(cut -d ' ' -f 1 /proc/loadavg)" -v a="${stat0[*]:1:8}" \
    -v b="${stat1[*]:1:8}" 'BEGIN {
        split(a, x); split(b, y); for (i = 1; i <= 8; i++) t += y[i] - x[i]
        printf "load average %s at the start, %s at the end; steal %.1f %% of the vCPU time\n",
            l0, l1, (t > 0 ? 100 * (y[8] - x[8]) / t : 0) }'
# start-up: loading the walker
cc -std=gnu11 -O2 -o "$work/bpf_load" "$here/bpf_load.c" -lbpf || die "building bpf_load failed"
objs=("$build/bpf/pyframes.bpf.o")
[[ -n $before && -f $before/bpf/pyframes.bpf.o ]] && objs+=("$before/bpf/pyframes.bpf.o")
"$work/bpf_load" 5 "${objs[@]}" > "$work/load" || die "loading the walker failed"
for o in "${objs[@]}"; do
    w=$(awk -v o="$o" '$1 == o {print $2}' "$work/load" | median)
    c=$(awk -v o="$o" '$1 == o {print $3}' "$work/load" | median)
    echo "load $o: $w ms wall, $c ms CPU"
done
