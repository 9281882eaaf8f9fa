#!/usr/bin/env bash
# End-to-end: causal profiling (--causal) of a single-threaded program
# (tests/programs/tp_causal_single.c): with one thread, the program speedup predicted at 100 %
# is the function's share of the time, which the program measures itself. Checked within 5
# points, or within the prediction's own 95 % interval where that is wider, and never more than
# 10 points off: not within 3, which a 40 s run on a loaded 2-core machine does not achieve
# (single runs were off by up to 7.5 points there; see docs/causal.md).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/causal_lib.sh"
S="$TP/tp_causal_single"
[ -x "$S" ] || skip "tp_causal_single not built"

causal_run single "$S" 40
hot=$(awk '/^single:/{for (i=1;i<=NF;i++) if ($i=="hot_part") print 100*$(i+1)}' "$WORK/single.log")
cold=$(awk '/^single:/{for (i=1;i<=NF;i++) if ($i=="cold_part") print 100*$(i+1)}' "$WORK/single.log")
check "the program measured its shares (hot '$hot', cold '$cold')" test -n "$hot" -a -n "$cold"
causal_rows single | sed 's/^/  /'
hot100=$(causal_field single hot_part 3) cold100=$(causal_field single cold_part 3)
hot_ci=$(causal_field single hot_part 4) cold_ci=$(causal_field single cold_part 4)
echo "predicted at 100 %: hot_part $hot100 +- $hot_ci (share $hot), cold_part $cold100 +- $cold_ci (share $cold)"
# within TOL points, or within the prediction's own 95 % interval when that is wider, and never
# more than 10 points off
close() {
    awk -v p="$1" -v c="$2" -v t="$3" 'BEGIN{d = p - t; if (d < 0) d = -d;
        exit !(p != "" && d <= 10 && (d <= 5 || d <= c))}'
}
check "hot_part: prediction at 100 % ($hot100 +- $hot_ci) is its share ($hot)" \
    close "$hot100" "$hot_ci" "$hot"
check "cold_part: prediction at 100 % ($cold100 +- $cold_ci) is its share ($cold)" \
    close "$cold100" "$cold_ci" "$cold"
finish
