#!/usr/bin/env bash
# The cost of causal profiling (--causal), side by side with the same sampling without it.
#
# usage: bench/causal.sh BUILD_DIR [RUNS]
#
# The two-stage pipeline of the causal tests (tests/programs/tp_causal_pipeline.c), a FIXED
# amount of work (BENCH_ITEMS items, default 3000, of ~1.1 ms of computation each), in each of
#   bare     the program alone
#   wall     rocsys-top -b -d 10 --sample wall --engine signal (what --causal samples with)
#   causal   rocsys-top -b -d 10 --causal (experiments run: threads sleep the delays of the
#            virtual speedups, which is the method's own cost, as in Coz)
# and the wrapped pthread calls alone (librocsys-causal.so, loaded with --causal only): the
# same pipeline with no computation, BENCH_QUEUE items (default 3,000,000) handed over through
# its mutex and condition variables (about 4 wrapped calls per item), in each of
#   qbare    the program alone
#   qdormant LD_PRELOAD of the collector without a session (dormant; no wrappers)
#   qsession rocsys-top -b --sample wall --engine signal (no --causal: no wrappers)
#   qcausal  rocsys-top -b --causal (experiments run: catch-ups and blocked-state bookkeeping)
# and the single-threaded program of the causal tests (tests/programs/tp_causal_single.c, 4 s,
# one unit of work fixed for every run), whose --causal runs use the program's own clock (a
# read of /proc/thread-self/schedstat per sample; no thread to delay): its CPU time per
# iteration, measured by itself, which other programs' use of the CPUs does not change, in
#   sbare    the program alone
#   swall    rocsys-top -b -d 10 --sample wall --engine signal
#   scausal  rocsys-top -b -d 10 --causal
# RUNS rounds (default 3), the order rotating from round to round. Per variant: the median wall
# time of the target (measured by itself), the ratio to bare, and for causal the delays slept
# (the Causal section's title). About 1-2 minutes at RUNS=3 on 2 CPUs. See docs/performance.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-3}
positive_int RUNS "$runs"
items=${BENCH_ITEMS:-3000}
positive_int BENCH_ITEMS "$items"
qitems=${BENCH_QUEUE:-3000000}
positive_int BENCH_QUEUE "$qitems"
bench_rocsys_top
pipe=$(find_program "$build" tp_causal_pipeline)
single=$(find_program "$build" tp_causal_single)
collector=$build/lib/librocsys-collector.so
[[ -f $collector ]] || die "$collector not found"
bench_tmpdir tmp causal

variants=(bare wall causal qbare qdormant qsession qcausal sbare swall scausal)
ROCSYS_TP_ITERS_PER_UNIT=$("$single" 0.2 | awk '/unit [0-9]* iterations/{print $(NF-6)}')
export ROCSYS_TP_ITERS_PER_UNIT
# run VARIANT ROUND: one run; its wall seconds into $tmp/VARIANT.times
run() {
    local v=$1 r=$2 out=$tmp/$1.$2
    case $v in
    bare) "$pipe" 0 100 "$items" > "$out.log" ;;
    wall) "$rocsys_top" -b -d 10 --sample wall --engine signal --output-log "$out.log" \
        -- "$pipe" 0 100 "$items" > "$out.txt" ;;
    causal) "$rocsys_top" -b -d 10 --causal --output-log "$out.log" \
        -- "$pipe" 0 100 "$items" > "$out.txt" ;;
    qbare) "$pipe" 0 0 "$qitems" > "$out.log" ;;
    qdormant) LD_PRELOAD=$collector "$pipe" 0 0 "$qitems" > "$out.log" ;;
    qsession) "$rocsys_top" -b -d 10 --sample wall --engine signal --output-log "$out.log" \
        -- "$pipe" 0 0 "$qitems" > "$out.txt" ;;
    qcausal) "$rocsys_top" -b -d 10 --causal --output-log "$out.log" \
        -- "$pipe" 0 0 "$qitems" > "$out.txt" ;;
    sbare) "$single" 4 > "$out.log" ;;
    swall) "$rocsys_top" -b -d 10 --sample wall --engine signal --output-log "$out.log" \
        -- "$single" 4 > "$out.txt" ;;
    scausal) "$rocsys_top" -b -d 10 --causal --output-log "$out.log" -- "$single" 4 > "$out.txt" ;;
    esac
    if [[ $v == s* ]]; then
        awk '/cpu per iteration/{print $(NF-1)}' "$out.log" >> "$tmp/$v.times"
        return
    fi
    awk '/^pipeline:/{print $5}' "$out.log" >> "$tmp/$v.times"
    if [[ $v == causal ]]; then
        sed -n 's/.*delays slept \([0-9.]*\) s.*/\1/p' "$out.txt" | tail -1 >> "$tmp/causal.slept"
    fi
}
for ((r = 0; r < runs; r++)); do
    for ((k = 0; k < ${#variants[@]}; k++)); do
        run "${variants[(k + r) % ${#variants[@]}]}" "$r"
    done
done
median() { sort -g "$1" | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf "tp_causal_pipeline, %d items (then %d items without work), %d rounds on %d CPUs, load %s\n" \
    "$items" "$qitems" "$runs" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "(median wall time of the target, measured by itself; ratio to bare, resp. qbare)"
for v in "${variants[@]}"; do
    [[ $v == q* ]] && base=$(median "$tmp/qbare.times") || base=$(median "$tmp/bare.times")
    if [[ $v == s* ]]; then
        base=$(median "$tmp/sbare.times") m=$(median "$tmp/$v.times")
        printf "  %-8s %7.1f us of CPU per iteration  x%.3f\n" "$v" "$m" \
            "$(awk -v a="$m" -v b="$base" 'BEGIN{print a/b}')"
        continue
    fi
    m=$(median "$tmp/$v.times")
    extra=""
    [[ $v == causal && -s $tmp/causal.slept ]] &&
        extra="  (delays slept: $(median "$tmp/causal.slept") s, median)"
    printf "  %-8s %7.2f s  x%.2f%s\n" "$v" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN{print a/b}')" "$extra"
done
