#!/usr/bin/env bash
# Scale: rocsys-top's peak memory and the recording's sizes against the number of distinct
# stacks and the run time. tp_many_stacks DISTINCT SECONDS 2 takes DISTINCT different call
# paths (5-6 levels of 16 functions) in two threads; rocsys-top records it at RATE Hz.
#
# usage: bench/scale.sh BUILD_DIR
#
# Cases (DISTINCT:SECONDS:RATE[:DEPTH], DEPTH: each path goes on to that many levels, a deep
# shape whose paths share little), settable with BENCH_SCALE_CASES:
#   10000:6:10000 100000:12:10000 1000000:40:10000   distinct stacks 10k, 100k, 1M
#   1000:60:1000                                      a minute at the default rate
#   1000:360:10000                                    an hour of 1 kHz samples (2 threads, 7
#                                                     million) compressed into 6 minutes
#   100000:60:1000                                    100k paths at the default rate
#   200000:40:4000:24                                 deep: ~30-frame stacks, ~130k distinct
# BENCH_ENGINE (default: rocsys-top's choice) is passed as --engine.
# Per case: stacks seen (lines of stacks.folded, one per thread and stack), samples, peak RSS
# of rocsys-top (wait4's maxrss: the target is a few MiB), profile.txt, stacks.folded and
# trace.pftrace sizes, trace bytes per sample. Goals (issue 13): <= 64 MiB at 100,000 distinct
# stacks; profile.txt < 1 MB whatever the run; trace <= 40 bytes per sample. See
# docs/performance.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR" 1 1 "$@"
read -r -a cases <<<"${BENCH_SCALE_CASES:-10000:6:10000 100000:12:10000 1000000:40:10000 1000:60:1000 1000:360:10000 100000:60:1000 200000:40:4000:24}"
engine=()
[[ -n ${BENCH_ENGINE:-} ]] && engine=(--engine "$BENCH_ENGINE")
many=$(find_program "$build" tp_many_stacks)
timeit=$(find_program "$build" tp_timeit)
rocsys_top=$build/rocsys-top
[[ -x $rocsys_top ]] || die "$rocsys_top not found (build it: cmake --build $build)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "rocsys-top scale: tp_many_stacks DISTINCT SECONDS 2 under rocsys-top --record -f RATE ${engine[*]}"
machine_info
printf '%-9s %5s %6s %9s %9s %9s %11s %12s %12s %9s %7s\n' distinct sec rate stacks samples \
    rss_MiB profile_KB folded_KB trace_KB B/sample engine
for c in "${cases[@]}"; do
    IFS=: read -r distinct secs rate depth <<<"$c"
    positive_int DISTINCT "$distinct"
    positive_int SECONDS "$secs"
    positive_int RATE "$rate"
    d=$tmp/rec-$distinct-$secs
    "$timeit" -o "$tmp/time" "$rocsys_top" -b -d 600 -n 1000 --rows 5 -f "$rate" "${engine[@]}" \
        --record "$d" -- "$many" "$distinct" "$secs" 2 ${depth:+"$depth"} >"$tmp/out" 2>&1 ||
        die "the run $c failed: $(tail -n 3 "$tmp/out")"
    read -r _ _ _ rss_kib <"$tmp/time"
    samples=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samples'])" \
        "$d/session.json")
    eng=$(grep -o '"engine": "[a-z]*"' "$d/session.json" | head -n 1 | cut -d'"' -f4)
    stacks=$(wc -l <"$d/stacks.folded")
    awk -v di="$distinct" -v s="$secs" -v r="$rate" -v st="$stacks" -v n="$samples" \
        -v rss="$rss_kib" -v p="$(stat -c %s "$d/profile.txt")" \
        -v f="$(stat -c %s "$d/stacks.folded")" -v t="$(stat -c %s "$d/trace.pftrace")" \
        -v e="$eng" 'BEGIN {
        printf "%-9d %5d %6d %9d %9d %9.1f %11.1f %12.1f %12.1f %9.1f %7s\n", di, s, r, st, n,
               rss / 1024, p / 1000, f / 1000, t / 1000, n ? t / n : 0, e }'
done
echo "goals: rss <= 64 MiB at 100,000 distinct stacks; profile.txt < 1000 KB; trace <= 40 B/sample"
