#!/usr/bin/env bash
# Following many ranks live: the front end's CPU while `rocsys-top --replay DIR --live` follows
# N ranks' recordings as they grow. One real recording of the demo (SECONDS long, 2 solver
# threads at the default rate) is made first; then N writer loops append its trace to
# DIR/rank-K/trace.pftrace in 20 pieces over SECONDS (pieces cut anywhere: packets torn across
# appends, as a reader on NFS may see them) and finally write session.json. The follower runs in
# batch mode until every rank ended; its CPU (user + sys from wait4) over its wall time is the
# share of one core it took. Goal (issue 14): 64 ranks under 10 % of a core.
#
# usage: bench/live.sh BUILD_DIR [SECONDS]   (BENCH_LIVE_RANKS, default "1 8 64")
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [SECONDS]" 1 2 "$@"
secs=${2:-20}
positive_int SECONDS "$secs"
read -r -a counts <<<"${BENCH_LIVE_RANKS:-1 8 64}"
rocsys_top=$build/rocsys-top
timeit=$(find_program "$build" tp_timeit)
demo=$build/examples/rocsys-demo
[[ -x $rocsys_top && -x $demo ]] || die "build rocsys-top and the demo first (cmake --build $build)"
bench_tmpdir tmp live

"$rocsys_top" --record "$tmp/src" --no-tui -- "$demo" --seconds "$secs" >/dev/null 2>&1 ||
    die "recording the demo failed"
size=$(stat -c %s "$tmp/src/trace.pftrace")
samples=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samples'])" \
    "$tmp/src/session.json")
echo "rocsys-top --replay --live: N ranks growing over $secs s (each: the demo's trace, $size bytes, $samples samples)"
machine_info
printf '%6s %10s %10s %10s %12s %14s\n' ranks wall_s cpu_s core_% samples_seen per_rank_ok
for n in "${counts[@]}"; do
    positive_int RANKS "$n"
    d=$tmp/job-$n
    mkdir -p "$d"
    piece=$(( (size + 19) / 20 ))
    for ((r = 0; r < n; r++)); do
        mkdir -p "$d/rank-$r"
        cp "$tmp/src/output.log" "$d/rank-$r/"
        (
            for ((k = 0; k < 20; k++)); do
                dd if="$tmp/src/trace.pftrace" bs="$piece" skip="$k" count=1 status=none \
                    >>"$d/rank-$r/trace.pftrace"
                sleep "$(awk -v s="$secs" 'BEGIN { printf "%.3f", s / 20 }')"
            done
            cp "$tmp/src/session.json" "$d/rank-$r/session.json"
        ) &
    done
    sleep 0.2
    "$timeit" -o "$tmp/time" "$rocsys_top" --replay "$d" --live -b -d 10 -n $((secs * 3)) \
        --rows 0 >"$tmp/frames-$n" 2>&1 || die "the follower failed: $(tail -n 3 "$tmp/frames-$n")"
    wait
    read -r wall user sys _ <"$tmp/time"
    seen=$(awk '/^rocsys-top frame /{f=""} /^mode /{f=$0} END {print f}' "$tmp/frames-$n" |
        sed -n 's/.* samples \([0-9]*\) .*/\1/p')
    ok=$(( ${seen:-0} == n * samples ? 1 : 0 ))
    awk -v n="$n" -v w="$wall" -v u="$user" -v s="$sys" -v seen="${seen:-0}" -v ok="$ok" 'BEGIN {
        printf "%6d %10.2f %10.2f %10.2f %12d %14s\n", n, w, u + s, 100 * (u + s) / w, seen,
               ok ? "yes" : "NO" }'
done
