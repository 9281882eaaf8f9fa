#!/usr/bin/env bash
# Size of the Perfetto trace per CPU sample: records the bundled demo (examples/rocsys-demo, 2
# solver threads and a sleeper) at the default sampling rate and timer, then tp_deep (16
# threads, stacks of ~35 frames, POSIX timers) like bench/record_memory.sh, each for SECONDS
# with --record DIR --no-tui. Prints per run the samples (session.json, timer periods), the
# sample packets in the trace (rocsys-trace-check, which also checks the trace), the trace's
# bytes and bytes per sample. Descriptors and interning are included in the bytes.
#
# usage: bench/trace_size.sh BUILD_DIR [SECONDS]   (default 60)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [SECONDS]" 1 2 "$@"
secs=${2:-60}
positive_int SECONDS "$secs"
rocsys_top=$build/rocsys-top
demo=$build/examples/rocsys-demo
check=$(find_program "$build" rocsys-trace-check)
deep=$(find_program "$build" tp_deep)
[[ -x $rocsys_top ]] || die "$rocsys_top not found"
[[ -x $demo ]] || die "$demo not found"
bench_tmpdir tmp bench

# One recorded run: NAME, then rocsys-top's options and the program after --.
run() {
    local name=$1 d=$tmp/$1 samples packets bytes
    shift
    "$rocsys_top" --record "$d" --no-tui "$@" >/dev/null 2>&1 || die "the $name run failed"
    samples=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samples'])" \
        "$d/session.json")
    packets=$("$check" "$d/trace.pftrace" | sed -n 's/.* samples \([0-9]*\) .*/\1/p' | head -1) ||
        die "the $name trace does not pass rocsys-trace-check"
    bytes=$(stat -c %s "$d/trace.pftrace")
    awk -v r="$name" -v s="$secs" -v n="$samples" -v p="$packets" -v b="$bytes" 'BEGIN {
        printf "%-8s %6s %10d %14d %12d %16.2f %18.2f\n", r, s, n, p, b, n ? b / n : 0,
               p ? b / p : 0 }'
}

echo "rocsys-top trace size: rocsys-demo (default rate and timer) and tp_deep 16 x 32 (posix)"
machine_info
printf '%-8s %6s %10s %14s %12s %16s %18s\n' run run_s samples sample_packets trace_bytes \
    bytes_per_sample bytes_per_packet
run demo -- "$demo" --seconds "$secs"
run deep --cpu-timer posix -- "$deep" 16 32 "$secs"
echo "goal: <= 24 bytes per CPU sample (demo, 60 s, default rate)"
