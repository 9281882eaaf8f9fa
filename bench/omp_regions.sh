#!/usr/bin/env bash
# Cost of an OpenMP parallel region (fork and join of 2 threads, LLVM's libomp) without
# rocsys-top (the runtime has no tool) and under it (the collector is the OMPT tool: a region
# on each thread, an OMP_PARALLEL record per instance), printed side by side.
#
# usage: bench/omp_regions.sh BUILD_DIR [RUNS]
#
# Builds tests/programs/omp_bench.c with clang -fopenmp (Debian: clang-14 libomp-dev) and runs it
# alone and under BUILD_DIR/rocsys-top -b with 60 bursts of 300 regions 30 ms apart (a burst's
# records fit in a ring; the frames' drop count is printed). A run prints the median and best
# burst's time per region of each; the last lines the medians over the runs and their
# difference, of the median bursts and of the best ones (on a loaded machine a fork waits for a
# CPU: the median bursts measure the load, the best ones the cost).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-3}
positive_int RUNS "$runs"
bench_rocsys_top
clang=""
# clang, else the newest clang-N on PATH (Debian installs clang-14, clang-19, ...)
for c in clang $(compgen -c clang- | grep -E '^clang-[0-9]+$' | sort -t- -k2 -rn | uniq); do
    command -v "$c" > /dev/null && { clang=$c; break; }
done
[[ -n $clang ]] || die "no clang (Debian: clang-14 libomp-dev)"
bench_tmpdir work bench-omp
"$clang" -fopenmp -O2 -g -o "$work/omp_bench" "$here/../tests/programs/omp_bench.c" ||
    die "$clang -fopenmp cannot build omp_bench.c (Debian: libomp-dev)"

printf '%-5s %22s %22s %8s\n' run "without (median/min)" "under (median/min)" dropped
for ((r = 1; r <= runs; r++)); do
    read -r _ plain_med _ plain_min < <("$work/omp_bench" 60 300)
    "$rocsys_top" -b -d 50 --rows 0 --output-log "$work/out.log" -- "$work/omp_bench" 60 300 \
        > "$work/frames.txt"
    read -r _ top_med _ top_min < <(grep '^region_ns' "$work/out.log")
    grep -q '^== OpenMP parallel regions: 1 ' "$work/frames.txt" ||
        die "rocsys-top saw no OpenMP region (OMPT not active)"
    dropped=$(grep -Eo 'dropped [0-9]+' "$work/frames.txt" | tail -1 | grep -Eo '[0-9]+')
    printf '%-5s %13s / %-6s %13s / %-6s %8s\n' "$r" "$plain_med ns" "$plain_min" \
        "$top_med ns" "$top_min" "$dropped"
    echo "$plain_med" >> "$work/plain"
    echo "$top_med" >> "$work/top"
    echo "$plain_min" >> "$work/plain_min"
    echo "$top_min" >> "$work/top_min"
done
p=$(median < "$work/plain") t=$(median < "$work/top")
pm=$(median < "$work/plain_min") tm=$(median < "$work/top_min")
printf 'median over %d runs: a parallel region of 2 threads %s ns without rocsys-top, %s ns under it (%+d ns)\n' \
    "$runs" "$p" "$t" "$((t - p))"
printf 'best bursts (median over the runs): %s ns without, %s ns under it (%+d ns): the cost where no other load preempts the team\n' \
    "$pm" "$tm" "$((tm - pm))"
