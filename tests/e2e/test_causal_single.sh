#!/usr/bin/env bash
# End-to-end: causal profiling (--causal) of a single-threaded program
# (tests/programs/tp_causal_single.c): with one thread, the program speedup predicted at 100 %
# is the function's share of the time, which the program measures itself. Checked within 5
# points (not 3: on a loaded machine the predictions of one 40 s run spread by about that much;
# see docs/causal.md).
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
echo "predicted at 100 %: hot_part $hot100 (share $hot), cold_part $cold100 (share $cold)"
check "hot_part: prediction at 100 % ($hot100) is its share ($hot) within 5 points" \
    within "$hot100" "$hot" 5
check "cold_part: prediction at 100 % ($cold100) is its share ($cold) within 5 points" \
    within "$cold100" "$cold" 5
finish
