#!/usr/bin/env bash
# Dispatch records under load: how many dispatches a second get through rocsys-top, and how
# many are lost, when the program submits as fast as it can.
#
# usage: bench/dispatch_rate.sh BUILD_DIR [BEFORE_BUILD_DIR]
#
#   tp_hsa_harness (the in-tree stand-in for the ROCr runtime, see tests/programs) submits N
#   dispatches (BENCH_NS, default "10000 100000 1000000") from BENCH_THREADS threads (default 2),
#   each with its own queue, as fast as it can; with BENCH_HIP=1 each goes through
#   hipLaunchKernel of the stand-in HIP library (a HIP_API record too). Each N runs
#     bare    without rocsys-top (the harness alone),
#     record  rocsys-top --record DIR (headless): recorded = calls in kernels.csv, dropped =
#             "dropped" of session.json (every record type), waits = the summary's count of
#             producer waits for room,
#     live    rocsys-top -b (batch frames): recorded = dispatches of the last frame's Hot
#             kernels section, dropped = its "dropped" figure.
#   submit/s is the harness's submission rate (all threads), done/s the rate at which the
#   dispatches completed (their records written: the collector forwards the completion after
#   writing the record). lost = N - recorded.
#   BEFORE_BUILD_DIR: a build of an earlier version (e.g. from `git archive`); its rocsys-top
#   and collector run the same harness binary (of BUILD_DIR), so the rows compare the two.
#   BENCH_RUNS (default 1) repeats every row. BENCH_LOAD=K runs K busy loops alongside (other
#   work competing for the cores: the front end gets a smaller share and falls behind).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [BEFORE_BUILD_DIR]" 1 2 "$@"
before=${2:+$(cd "$2" && pwd)}
ns=${BENCH_NS:-10000 100000 1000000}
threads=${BENCH_THREADS:-2}
runs=${BENCH_RUNS:-1}
load=${BENCH_LOAD:-0}
hip=
[[ ${BENCH_HIP:-0} == 1 ]] && hip=hip
harness=$(find_program "$build" tp_hsa_harness)
[[ -x $build/rocsys-top ]] || die "$build/rocsys-top not found"
[[ -z $before || -x $before/rocsys-top ]] || die "$before/rocsys-top not found"
work=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-dispbench.XXXXXX")
load_pids=()
trap 'kill "${load_pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
for ((k = 0; k < load; k++)); do
    sh -c 'while :; do :; done' &
    load_pids+=($!)
done

# rates LOG: "submit/s done/s" from the harness's rate line
rates() {
    local line
    line=$(grep -m1 'harness: rate' "$1" || true)
    echo "$(sed -nE 's/.*submitted in [0-9.]+ ms \(([0-9]+) .*/\1/p' <<<"$line")" \
        "$(sed -nE 's/.*completed [0-9]+\/[0-9]+ in [0-9.]+ ms \(([0-9]+) .*/\1/p' <<<"$line")"
}
# kernels_calls CSV: calls summed over the rows of kernels.csv (names may hold commas)
kernels_calls() {
    awk 'NR > 1 { sub(/^".*",/, ""); split($0, f, ","); s += f[1] } END { print s + 0 }' "$1"
}

machine_info
echo "threads $threads${hip:+, through hipLaunchKernel}, $load busy loops alongside"
printf "%-7s %-8s %-9s %9s %11s %11s %9s %9s %7s\n" \
    build variant N submit/s done/s recorded lost dropped waits
for n in $ns; do
    for ((r = 0; r < runs; r++)); do
        for b in after ${before:+before}; do
            top=$build/rocsys-top
            [[ $b == before ]] && top=$before/rocsys-top
            for v in bare record live; do
                [[ $v == bare && $b == before ]] && continue
                out=$work/$b-$v-$n-$r
                rec=- lost=- dropped=- waits=-
                case $v in
                bare)
                    env -u HSA_TOOLS_LIB "$harness" rate "$n" "$threads" $hip > "$out.log" 2>&1 || true
                    rec=$n lost=0 dropped=0 waits=0
                    ;;
                record)
                    "$top" --record "$out" -- "$harness" rate "$n" "$threads" $hip \
                        > "$out.summary" 2>&1 || true
                    cp "$out/output.log" "$out.log"
                    rec=$(kernels_calls "$out/kernels.csv")
                    dropped=$(grep -o '"dropped": [0-9]*' "$out/session.json" | grep -o '[0-9]*$')
                    waits=$(awk '/the target waited/ {print $5}' "$out.summary")
                    waits=${waits:-0}
                    ;;
                live)
                    "$top" -b -d 10 --output-log "$out.log" -- "$harness" rate "$n" "$threads" \
                        $hip > "$out.frames" 2>&1 || true
                    last=$(awk '/^rocsys-top frame /{buf=""} {buf=buf $0 "\n"} END{printf "%s", buf}' \
                        "$out.frames")
                    rec=$(grep -oE '== Hot kernels: [0-9]+ kernels?, [0-9]+ dispatches' <<<"$last" |
                        awk '{print $6}')
                    rec=${rec:-0}
                    dropped=$(field_after "$(grep -E 'dropped [0-9]+' <<<"$last" | head -n 1)" dropped)
                    ;;
                esac
                [[ $rec != - ]] && lost=$((n - rec))
                read -r sub fin < <(rates "$out.log")
                printf "%-7s %-8s %-9s %9s %11s %11s %9s %9s %7s\n" \
                    "$b" "$v" "$n" "${sub:--}" "${fin:--}" "$rec" "$lost" "$dropped" "$waits"
            done
        done
    done
done
