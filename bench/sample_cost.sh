#!/usr/bin/env bash
# The collector's per-sample cost with deep stacks and many threads, and the front end's CPU.
#
# usage: bench/sample_cost.sh BUILD_DIR [RUNS]
#
# Runs RUNS times (default 3): BUILD_DIR/rocsys-top -b -f 1000 -- tp_deep 16 32 5
# (16 threads, ~35-frame stacks, 5 s) and reads the status line of each batch frame (the line
# with "samples N ... dropped N ... sample cost N ns ... front end X% cpu"). Per run it prints
# the median sample cost and front-end CPU over the frames that had samples, and the last
# frame's samples and drops; then the medians over the runs. See docs/performance.md.
#
# Environment: BENCH_TIMER=auto|perf|posix (the --cpu-timer to measure, default auto),
# BENCH_KEEP=1 keeps the work directory (batch output of each run).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-3}
positive_int RUNS "$runs"

bench_rocsys_top
deep=$(find_program "$build" tp_deep)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-cost.XXXXXX")
if [[ ${BENCH_KEEP:-0} == 1 ]]; then
    note "keeping work directory $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi

timer=${BENCH_TIMER:-auto} # --cpu-timer to measure: auto, perf or posix
echo "rocsys-top sample cost: rocsys-top -b -f 1000 --cpu-timer $timer -- tp_deep 16 32 5, $runs runs"
machine_info
echo

printf '%-5s %8s %9s %16s %13s\n' run samples dropped 'cost_ns(med)' 'front_end_%'
ok=0
for ((r = 1; r <= runs; r++)); do
    out=$tmp/frames.$r.txt
    rc=0
    "$rocsys_top" -b -f 1000 --cpu-timer "$timer" -- "$deep" 16 32 5 >"$out" 2>"$tmp/err.$r.txt" ||
        rc=$?
    if [[ $rc -ne 0 ]]; then
        note "run $r: rocsys-top exited with status $rc; its stderr:"
        tail -n 5 "$tmp/err.$r.txt" | sed 's/^/    /' >&2
        continue
    fi
    lines=$(status_lines "$out")
    if [[ -z $lines ]]; then
        note "run $r: no 'sample cost' line in the batch output"
        continue
    fi
    # Frames that had samples and a cost figure (the first frame may have none yet).
    cost=$(while IFS= read -r l; do
        s=$(field_after "$l" 'samples') c=$(field_after "$l" 'sample cost')
        [[ $s != - && $s != 0 && $c != - ]] && echo "$c"
    done <<<"$lines" | median)
    fe=$(while IFS= read -r l; do
        s=$(field_after "$l" 'samples') f=$(field_after "$l" 'front end')
        [[ $s != - && $s != 0 && $f != - ]] && echo "$f"
    done <<<"$lines" | median)
    last=$(tail -n 1 <<<"$lines")
    samples=$(field_after "$last" 'samples')
    dropped=$(field_after "$last" 'dropped')
    printf '%-5s %8s %9s %16s %13s\n' "$r" "$samples" "$dropped" "$cost" "$fe"
    echo "$cost" >>"$tmp/cost.all"
    echo "$fe" >>"$tmp/fe.all"
    echo "$dropped" >>"$tmp/dropped.all"
    ok=$((ok + 1))
done
echo

[[ $ok -gt 0 ]] || die "no successful run"
echo "median over $ok run(s): sample cost $({ grep -v '^-$' "$tmp/cost.all" || true; } | median) ns," \
    "dropped $({ grep -v '^-$' "$tmp/dropped.all" || true; } | median)," \
    "front end $({ grep -v '^-$' "$tmp/fe.all" || true; } | median)% cpu"
