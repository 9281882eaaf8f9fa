#!/usr/bin/env bash
# The recording's memory and size: rocsys-top --record on tp_deep (THREADS threads, stacks of
# ~35 frames, 1000 Hz each) for a short and a long run. Prints per run the samples recorded,
# the peak RSS of rocsys-top (the front end with every writer; the target's own RSS is tiny),
# the trace's bytes per sample and the time to write it all. A peak that stays flat while the
# run grows shows that the writers' memory is bounded by distinct stacks, not by run time.
#
# usage: bench/record_memory.sh BUILD_DIR [SHORT_S LONG_S [THREADS]]   (defaults 5 20 16)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [SHORT_S LONG_S [THREADS]]" 1 4 "$@"
short=${2:-5} long=${3:-20} threads=${4:-16}
positive_int SHORT_S "$short"
positive_int LONG_S "$long"
positive_int THREADS "$threads"
deep=$(find_program "$build" tp_deep)
timeit=$(find_program "$build" tp_timeit)
bench_rocsys_top
bench_tmpdir tmp bench

echo "rocsys-top recording memory: tp_deep $threads threads x 32 levels, 1000 Hz, --record"
machine_info
printf '%-8s %10s %14s %12s %15s %12s\n' run_s samples peak_rss_MiB trace_MiB bytes_per_sample \
    wall_s
for secs in "$short" "$long"; do
    d=$tmp/rec-$secs
    "$timeit" -o "$tmp/time-$secs" "$rocsys_top" --record "$d" --no-tui --cpu-timer posix \
        -- "$deep" "$threads" 32 "$secs" >/dev/null 2>&1 || die "the $secs s run failed"
    read -r wall _ _ rss_kib <"$tmp/time-$secs"
    samples=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samples'])" \
        "$d/session.json")
    bytes=$(stat -c %s "$d/trace.pftrace")
    awk -v s="$secs" -v n="$samples" -v r="$rss_kib" -v b="$bytes" -v w="$wall" 'BEGIN {
        printf "%-8s %10d %14.1f %12.1f %15.1f %12.2f\n", s, n, r / 1024, b / 1048576,
               n ? b / n : 0, w }'
done
echo "goal: peak RSS <= 64 MiB whatever the run length; trace <= 24 bytes per sample"
