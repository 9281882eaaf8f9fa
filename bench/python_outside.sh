#!/usr/bin/env bash
# Python frames from outside: what reading a sample's Python frames with the BPF walker costs,
# by Python stack depth (3 and 50 frames), attached with -p at 1000 Hz for SECONDS.
#
# usage: bench/python_outside.sh BUILD_DIR [SECONDS]
#
# The target: python3 (PYTHON, default pyenv's newest 3.12, else /usr/bin/python3) running a
# pure-Python loop at the bottom of DEPTH-2 nested calls (+ <module>, main: DEPTH frames).
# Per depth, one run with ROCSYS_BPF_STATS=1 (the kernel times the walker: run_time_ns /
# run_cnt of the BPF program, BPF_ENABLE_STATS; rocsys-top times its pairing and decoding of
# each walk) prints:
#   kernel ns/sample: the walker's time per sample, spent at the sample's interrupt on the
#                     target's CPU (the target's extra cost per sample; goal <= 2000 at 50)
#   front ns/sample:  rocsys-top's pairing and turning the walk into frames (code objects read
#                     once each: the first samples pay for them)
#   unwind us/sample: the native unwinding of the same samples (the header's "unwind"), for scale
#   paired / missed:  samples with their walk / without (never paired with another's)
# and the ratio kernel(50) / kernel(3). At 50 frames the walker is also cut short, for the
# breakdown: "entry+regs" (the program's entry, its maps, the thread's registers), "+tstate"
# (finding the thread state), "+frames" (the frame reads, without writing the ring buffer). Root only (CAP_BPF). See docs/performance.md,
# "Python frames from outside".
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [SECONDS]" 1 2 "$@"
secs=${2:-4}
positive_int SECONDS "$secs"
[[ $(id -u) -eq 0 ]] || die "needs root (the BPF walker needs CAP_BPF and CAP_PERFMON)"
py=${PYTHON:-$(ls -d "$HOME"/.pyenv/versions/3.12.*/bin/python3 2> /dev/null | sort -V | tail -n 1)}
py=${py:-/usr/bin/python3}
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

declare -A kern
printf '%-6s %-12s %16s %16s %17s %8s %8s\n' depth walker "kernel ns/sample" "front ns/sample" \
    "unwind us/sample" paired missed
for run in "3 1" "50 2" "50 3" "50 4" "50 1"; do
    read -r depth mode <<< "$run"
    d=$((depth < 4 ? 4 : depth))
    "$py" "$work/deep.py" "$d" 600 &
    pid=$!
    sleep 0.5
    ROCSYS_BPF_STATS=$mode "$build/rocsys-top" -p "$pid" -b -n "$secs" -d 1 -f 1000 \
        > "$work/out" 2> "$work/err" || true
    kill "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null || true
    line=$(grep 'bpf walker' "$work/err") || {
        note "depth $depth mode $mode: no walker statistics (no sample?): $(head -3 "$work/err")"
        continue
    }
    k=$(sed -E 's/.* ([0-9]+) ns each.*/\1/' <<< "$line")
    f=$(sed -E 's/.*front end ([0-9]+) ns.*/\1/' <<< "$line")
    pa=$(sed -E "s/.*paired ([0-9]+), walks.*/\\1/" <<< "$line")
    mi=$(sed -E 's/.*without walk ([0-9]+).*/\1/' <<< "$line")
    un=$(grep -o 'unwind [0-9.]* us' "$work/out" | tail -n 1 | awk '{print $2}')
    [[ $mode == 1 ]] && kern[$depth]=$k
    what=(- whole entry+regs +tstate "+frames")
    printf '%-6s %-12s %16s %16s %17s %8s %8s\n' "$depth" "${what[$mode]}" "$k" "$f" "${un:--}" \
        "$pa" "$mi"
done
awk -v a="${kern[50]:-0}" -v b="${kern[3]:-0}" 'BEGIN{if (b > 0) printf "kernel 50 frames / 3 frames: %.2f\n", a/b}'
