#!/usr/bin/env bash
# Cost of a user-region push+pop pair (rocsys/user.h): without rocsys-top (the stubs of
# librocsys-user.so; goal <= 5 ns) and under rocsys-top (the collector records both; goal
# <= 100 ns), printed side by side.
#
# usage: bench/regions.sh BUILD_DIR [RUNS]
#
# Each run starts ur_bench (tests/programs/ur_bench.c) twice: alone with 50 bursts of 100,000
# pairs, and under BUILD_DIR/rocsys-top -b with 100 bursts of 500 pairs (a burst fits in the
# ring and bursts are 60 ms apart, so nothing is dropped; the frames' drop count is checked).
# A run prints the median and best burst of each; the last line has the medians over the runs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-3}
positive_int RUNS "$runs"
bench_rocsys_top
bench=$(find_program "$build" ur_bench)
bench_tmpdir work bench-regions

printf '%-5s %22s %22s %8s\n' run "without (median/min)" "under (median/min)" dropped
for ((r = 1; r <= runs; r++)); do
    read -r _ _ plain_med _ plain_min _ _ < <("$bench" 50 100000)
    "$rocsys_top" -b -d 50 --rows 0 --output-log "$work/out.log" -- "$bench" 100 500 \
        > "$work/frames.txt"
    read -r _ _ top_med _ top_min _ active < <(grep '^pair_ns' "$work/out.log")
    [[ $active == 1 ]] || die "the collector did not take the calls (active $active)"
    dropped=$(grep -Eo 'dropped [0-9]+' "$work/frames.txt" | tail -1 | grep -Eo '[0-9]+')
    printf '%-5s %13s / %-6s %13s / %-6s %8s\n' "$r" "$plain_med ns" "$plain_min" \
        "$top_med ns" "$top_min" "$dropped"
    echo "$plain_med" >> "$work/plain"
    echo "$top_med" >> "$work/top"
done
printf 'median over %d runs: push+pop pair %s ns without rocsys-top (goal <= 5), %s ns under it (goal <= 100)\n' \
    "$runs" "$(median < "$work/plain")" "$(median < "$work/top")"
