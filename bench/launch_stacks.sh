#!/usr/bin/env bash
# Cost of capturing the call stack of every HIP kernel launch (--launch-stacks, issue 18).
#
# usage: bench/launch_stacks.sh BUILD_DIR [RUNS]
#
# bench/hip_calls.c calls hipLaunchKernel of the harness's stand-in HIP library (a call that
# returns at once, so that only rocsys-top's own cost is left) BENCH_CALLS times (default
# 300000), DEPTH frames down, from one call path or rotating over SITES distinct ones. Each
# variant runs bare, under rocsys-top --launch-stacks off (the interposition alone) and under
# rocsys-top --launch-stacks on; the difference on - off is the cost of capturing the stack
# (goal: <= 1 us a launch at 32 frames, less when the call site repeats). 256 rotating sites
# overflow the collector's 64-entry cache of stacks a thread sent, so every launch also sends
# its stack: the worst case. The default engine of the machine samples (perf where permitted);
# RUNS (default 5) alternate the variants, medians are printed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-5}
positive_int RUNS "$runs"
calls=${BENCH_CALLS:-300000}
bench_rocsys_top top
bench_tmpdir work lsbench
build_hip_calls "$build" "$work/calls"

# The workloads: name, depth, sites.
shapes=("depth-8-one-site 8 1" "depth-32-one-site 32 1" "depth-32-256-sites 32 256")

# one SHAPE-DEPTH SITES MODE RUN: ns per launch
one() {
    local out=$work/$1-$4-$5.txt
    case $4 in
        bare) "$work/calls" "$calls" "$out" "$2" "$3" > /dev/null 2>&1 ;;
        *) "$top" -b -d 10 --launch-stacks "$4" --output-log "$work/log" -- \
            "$work/calls" "$calls" "$out" "$2" "$3" > /dev/null 2>&1 ;;
    esac
    awk '{print $1}' "$out"
}

for ((r = 0; r < runs; r++)); do
    for s in "${shapes[@]}"; do
        read -r name depth sites <<< "$s"
        for mode in bare off on; do
            one "$name" "$depth" "$sites" "$mode" "$r" >> "$work/$name.$mode"
        done
    done
done

printf "%-22s %10s %12s %12s %14s %8s\n" "ns per launch" "bare" "stacks off" "stacks on" \
    "capture (on-off)" "on/bare"
for s in "${shapes[@]}"; do
    read -r name depth sites <<< "$s"
    b=$(median < "$work/$name.bare")
    off=$(median < "$work/$name.off")
    on=$(median < "$work/$name.on")
    awk -v n="$name" -v b="$b" -v off="$off" -v on="$on" \
        'BEGIN { printf "%-22s %10.1f %12.1f %12.1f %14.1f %8.2f\n", n, b, off, on, on - off, on / b }'
done
