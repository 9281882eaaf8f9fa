#!/usr/bin/env bash
# Cost of rocsys-top's HIP and HSA interception, on machines with or without an AMD GPU.
#
# usage: bench/hip_overhead.sh BUILD_DIR [RUNS]
#
#   HIP: bench/hip_calls.c calls hipLaunchKernel N times (BENCH_CALLS, default 1000000),
#        built against (a) the harness's stand-in HIP library (returns at once: the pure
#        wrapper cost) and (b) the real libamdhip64 if installed (without a GPU every call fails
#        fast with hipErrorNoDevice). Each runs bare and under rocsys-top -b; the difference of
#        the mean ns per call is the cost the collector adds to one call (goal: <= 1 us).
#   HSA: tp_hsa_harness (the in-tree stand-in for the runtime, see tests/programs) submits
#        BENCH_ROUNDS rounds of 6 dispatches and one async copy, bare (no tools library) and
#        under rocsys-top (the collector intercepts the queue); the difference of its submit
#        loop per dispatch is the cost added on the submitting thread (goal: <= 2 us).
# RUNS (default 5) alternate the variants; medians are printed with the ratios.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-5}
positive_int RUNS "$runs"
calls=${BENCH_CALLS:-1000000}
rounds=${BENCH_ROUNDS:-20000}
bench_rocsys_top top
harness=$(find_program "$build" tp_hsa_harness)
bench_tmpdir work hipbench

build_hip_calls "$build" "$work/calls_fake"
variants=(fake)
if [[ -e /usr/lib/x86_64-linux-gnu/libamdhip64.so || -n $(ldconfig -p | grep libamdhip64.so) ]] &&
    cc -O2 -o "$work/calls_real" "$here/hip_calls.c" -lamdhip64 2>/dev/null; then
    variants+=(real)
else
    note "libamdhip64 not found: only the stand-in library is measured"
fi

# one_call VARIANT MODE RUN: ns per call
one_call() {
    local out=$work/$1-$2-$3.txt
    if [[ $2 == bare ]]; then
        "$work/calls_$1" "$calls" "$out" > /dev/null 2>&1
    else
        "$top" -b -d 10 --output-log "$work/log-$1-$3" -- "$work/calls_$1" "$calls" "$out" \
            > /dev/null 2>&1
    fi
    awk '{print $1}' "$out"
}
# one_dispatch MODE RUN: ns per dispatch of the harness's submit loop
one_dispatch() {
    local log=$work/h-$1-$2.txt
    if [[ $1 == bare ]]; then
        env -u HSA_TOOLS_LIB "$harness" normal "$rounds" > "$log" 2>&1
    else
        env -u HSA_TOOLS_LIB "$top" -b -d 10 --output-log "$log" -- "$harness" normal "$rounds" \
            > /dev/null 2>&1
    fi
    awk '/submit loop/ {printf "%.1f\n", $4 / 6}' "$log"
}

for ((r = 0; r < runs; r++)); do
    for v in "${variants[@]}"; do
        one_call "$v" bare "$r" >> "$work/$v.bare"
        one_call "$v" top "$r" >> "$work/$v.top"
    done
    one_dispatch bare "$r" >> "$work/hsa.bare"
    one_dispatch top "$r" >> "$work/hsa.top"
done

printf "%-34s %12s %12s %10s %8s\n" "what" "bare" "rocsys-top" "added" "ratio"
for v in "${variants[@]}"; do
    b=$(median < "$work/$v.bare")
    t=$(median < "$work/$v.top")
    awk -v n="hipLaunchKernel ($v lib), ns/call" -v b="$b" -v t="$t" \
        'BEGIN { printf "%-34s %12.1f %12.1f %10.1f %8.2f\n", n, b, t, t - b, t / b }'
done
b=$(median < "$work/hsa.bare")
t=$(median < "$work/hsa.top")
awk -v b="$b" -v t="$t" 'BEGIN { printf "%-34s %12.1f %12.1f %10.1f %8.2f\n", \
    "harness dispatch, ns/dispatch", b, t, t - b, t / b }'
