#!/usr/bin/env bash
# End-to-end: causal profiling against a real speedup. tp_causal_single is built twice
# (tests/programs/causal.cmake): tp_causal_single_fast's hot_part does 80 % of its work. The
# program speedup that --causal predicts for hot_part at 20 % (the fitted line's gain, from a
# run of the normal build) must match the speedup the faster build really has, within 5 points.
# The real speedup is measured by the programs themselves, on their own CPU clock (CPU time
# per iteration, which other programs' use of the CPUs does not change), with the same unit
# of work, in plain runs of both builds alternated A B A B ... so that a drift of the machine
# (frequency, caches) falls on both; the speedup is 1 - B's time per iteration / A's (Coz's
# definition, as the prediction's).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/causal_lib.sh"
A="$TP/tp_causal_single" B="$TP/tp_causal_single_fast"
[ -x "$A" ] && [ -x "$B" ] || skip "tp_causal_single or tp_causal_single_fast not built"

# one unit of work for every run (calibrated once)
unit=$("$A" 0.2 | awk '/unit [0-9]* iterations/{for (i=1;i<=NF;i++) if ($i=="unit") print $(i+1)}')
check "calibrated a unit of work ('$unit')" test -n "$unit"
export ROCSYS_TP_ITERS_PER_UNIT=$unit

causal_run twice "$A" 40
causal_rows twice | sed 's/^/  /'
pred=$(causal_field twice hot_part 1) pred_ci=$(causal_field twice hot_part 2)

# cpu per iteration of one plain run
cpu_per_iter() {
    "$1" 3 | awk '/cpu per iteration/{for (i=1;i<=NF;i++) if ($i=="iteration") print $(i+1)}'
}
sa=0 sb=0
for pair in 1 2 3 4; do
    a=$(cpu_per_iter "$A") b=$(cpu_per_iter "$B")
    echo "  pair $pair: cpu per iteration: normal build $a us, faster build $b us"
    check "pair $pair: both builds measured themselves ('$a', '$b')" test -n "$a" -a -n "$b"
    sa=$(awk -v s="$sa" -v v="${a:-0}" 'BEGIN{print s + v}')
    sb=$(awk -v s="$sb" -v v="${b:-0}" 'BEGIN{print s + v}')
done
real=$(awk -v a="$sa" -v b="$sb" 'BEGIN{if (a > 0) printf "%.1f", 100 * (1 - b / a)}')
echo "hot_part 20 % faster: predicted program speedup $pred +- $pred_ci %, real build $real %"
check "the real build is faster ($real %)" awk -v r="$real" 'BEGIN{exit !(r != "" && r > 0)}'
check "predicted speedup at 20 % ($pred +- $pred_ci) is the real one ($real) within 5 points" \
    within "$pred" "$real" 5
finish
