#!/usr/bin/env bash
# The cost of an uncontended pthread mutex lock/unlock pair (bench/mutex_loop.c: one thread,
# BENCH_PAIRS pairs, default 50,000,000) in each of
#   bare     the program alone
#   session  rocsys-top -b -d 100 (the default engine and sampling; no --causal)
#   wall     rocsys-top -b -d 100 --sample wall --engine signal (what --causal samples with)
#   causal   rocsys-top -b -d 100 --causal (librocsys-causal.so's wrappers: an indirect call
#            and the collector's checks per call; no experiment: the loop has no progress point)
# Without --causal nothing wraps the mutex calls (librocsys-causal.so is not loaded), so
# session and wall must cost what their sampling costs, and no more per pair than bare.
# With BENCH_BEFORE=DIR (a build of another commit, e.g. one whose collector itself wrapped the
# mutex calls), also its rocsys-top's session and causal variants (before-session,
# before-causal), alternated with the others in the same rounds.
# RUNS rounds (default 5), the order rotating from round to round. Per variant: the median
# time per pair (measured by the program itself) and the ratio to bare. About 1 minute.
#
# usage: bench/mutex.sh BUILD_DIR [RUNS]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-5}
positive_int RUNS "$runs"
pairs=${BENCH_PAIRS:-50000000}
positive_int BENCH_PAIRS "$pairs"
bench_rocsys_top
bench_tmpdir tmp mutex
cc -std=gnu11 -O2 -pthread -o "$tmp/mutex_loop" "$here/mutex_loop.c" || die "building mutex_loop failed"

variants=(bare session wall causal)
before=${BENCH_BEFORE:-}
if [[ -n $before ]]; then
    [[ -x $before/rocsys-top ]] || die "$before/rocsys-top not found"
    variants+=(before-session before-causal)
fi
# run VARIANT ROUND: one run; its ns per pair into $tmp/VARIANT.ns
run() {
    local v=$1 out=$tmp/$1.$2
    case $v in
    bare) "$tmp/mutex_loop" "$pairs" > "$out.log" ;;
    session) "$rocsys_top" -b -d 100 --output-log "$out.log" -- "$tmp/mutex_loop" "$pairs" \
        > /dev/null 2> "$out.err" ;;
    wall) "$rocsys_top" -b -d 100 --sample wall --engine signal --output-log "$out.log" \
        -- "$tmp/mutex_loop" "$pairs" > /dev/null 2> "$out.err" ;;
    causal) "$rocsys_top" -b -d 100 --causal --output-log "$out.log" \
        -- "$tmp/mutex_loop" "$pairs" > /dev/null 2> "$out.err" ;;
    before-session) "$before/rocsys-top" -b -d 100 --output-log "$out.log" \
        -- "$tmp/mutex_loop" "$pairs" > /dev/null 2> "$out.err" ;;
    before-causal) "$before/rocsys-top" -b -d 100 --causal --output-log "$out.log" \
        -- "$tmp/mutex_loop" "$pairs" > /dev/null 2> "$out.err" ;;
    esac
    awk '/^mutex:/{print $6}' "$out.log" >> "$tmp/$v.ns"
}
for ((r = 0; r < runs; r++)); do
    for ((k = 0; k < ${#variants[@]}; k++)); do
        run "${variants[(k + r) % ${#variants[@]}]}" "$r"
    done
done
printf "mutex_loop, %d lock/unlock pairs, %d rounds on %d CPUs, load %s\n" \
    "$pairs" "$runs" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "(median ns per pair, measured by the program itself; ratio to bare)"
base=$(median < "$tmp/bare.ns")
for v in "${variants[@]}"; do
    m=$(median < "$tmp/$v.ns")
    printf "  %-14s %6.2f ns  x%.2f\n" "$v" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN{print a/b}')"
done
