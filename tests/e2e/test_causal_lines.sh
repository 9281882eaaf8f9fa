#!/usr/bin/env bash
# End-to-end: line-level causal profiling, the truth test on tests/programs/tp_causal_lines.c:
# one function, step, with two loops on lines of their own, only one of them on the critical
# path: stage A's thread runs the first loop (LOOP_A, 60 % of A's work; A limits the
# throughput), stage B's the second (LOOP_B; B has room to spare). Once step's experiments show
# a gain, its hot lines get experiments of their own. Checked: lines of step are listed under
# it (file:line), with experiments; LOOP_A's body line rises (its fitted line's 95 % interval
# excludes 0) and is 20 points above LOOP_B's at 100 % at least; LOOP_B's lines stay flat within
# 3 points at 20 % and 5 at 50 % (the bounds of test_causal's pipeline; 5 and 8 in a sanitizer
# build); profile.coz names the
# lines as Coz does (selected=FILE:LINE). The predictions against the truth are printed.
# 150 s: the lines start once step has had 10 experiments and take every other one, 5 lines
# here; at 100 s LOOP_B's body line had 6-7 experiments, and beside two busy loops (load 5-8,
# where one 1 s experiment's two halves differ by 7-9 % by chance) it read -2.2, 6.3, 8.9,
# -2.0, -10.8 at 100 %: the last one over the 50 % bound (docs/causal.md)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/causal_lib.sh"
P="$TP/tp_causal_lines"
SRC="$(dirname "$0")/../programs/tp_causal_lines.c"
[ -x "$P" ] || skip "tp_causal_lines not built"
# the loops' lines: each loop's header and its body (marked LOOP_A / LOOP_B in the source)
a_body=$(grep -n 'LOOP_A \*/' "$SRC" | cut -d: -f1) b_body=$(grep -n 'LOOP_B \*/' "$SRC" | cut -d: -f1)
a_head=$((a_body - 1)) b_head=$((b_body - 1))
base=tp_causal_lines.c

flat20=3 flat50=5
causal_sanitized && flat20=5 flat50=8 # (a sanitizer build: LOOP_B's line read 10.4 once)
causal_run lines "$P" 150
echo "the program: $(cat "$WORK/lines.log")"
causal_rows lines | sed 's/^/  /'
step100=$(causal_field lines step 3) step_ci=$(causal_field lines step 4)
check "step's curve rises: $step100 +- $step_ci excludes 0" \
    awk -v v="$step100" -v c="$step_ci" 'BEGIN{exit !(v != "" && v - c > 0)}'
# the rows after step's, up to the next function's: its lines (indented, named FILE:LINE)
under=$(causal_rows lines | awk '$(NF-1)=="step"{s=1; next} s && $(NF-1) !~ /^tp_causal_lines\.c:[0-9]+$/{exit} s{print $(NF-1)}')
check "step's hot lines are listed under it (got: $(echo $under))" grep -q "^$base:$a_body\$" <<< "$under"
check "a line of LOOP_B ($b_head or $b_body) is listed under step" grep -Eq "^$base:($b_head|$b_body)\$" <<< "$under"
n=$(causal_field lines "$base:$a_body" 5)
check "LOOP_A's body line $a_body: experiments ran ($n)" test "${n:-0}" -ge 6
a100=$(causal_field lines "$base:$a_body" 3) a_ci=$(causal_field lines "$base:$a_body" 4)
echo "predicted at 100 %: step $step100 +- $step_ci (60), LOOP_A body ($a_body) $a100 +- $a_ci (60: the loop, header and body)"
check "LOOP_A's body line rises: $a100 +- $a_ci excludes 0" \
    awk -v v="$a100" -v c="$a_ci" 'BEGIN{exit !(v != "" && v - c > 0)}'
for l in $b_head $b_body; do
    grep -q "^$base:$l\$" <<< "$under" || continue
    n=$(causal_field lines "$base:$l" 5)
    b100=$(causal_field lines "$base:$l" 3) b_ci=$(causal_field lines "$base:$l" 4)
    echo "predicted at 100 %: LOOP_B line $l $b100 +- $b_ci (0)"
    check "LOOP_B's line $l: experiments ran ($n)" test "${n:-0}" -ge 6
    check "LOOP_A's body line ($a100) is 20 points above LOOP_B's line $l ($b100) at 100 %" \
        awk -v a="$a100" -v b="$b100" 'BEGIN{exit !(a != "" && b != "" && a - b >= 20)}'
    b20=$(awk -v v="$b100" 'BEGIN{print v / 5}') b50=$(awk -v v="$b100" 'BEGIN{print v / 2}')
    check "LOOP_B's line $l stays flat: $b20 at 20 % within $flat20 points of 0" within "$b20" 0 "$flat20"
    check "LOOP_B's line $l stays flat: $b50 at 50 % within $flat50 points of 0" within "$b50" 0 "$flat50"
done
coz="$WORK/lines.rec/profile.coz"
nl=$(grep -c $'^experiment\tselected=/[^\t]*/tp_causal_lines\\.c:'"$a_body"$'\t' "$coz" || true)
check "profile.coz: LOOP_A's line as Coz names it, selected=FILE:$a_body ($nl experiments)" \
    test "${nl:-0}" -ge 6
nf=$(grep -c $'^experiment\tselected=step\t' "$coz" || true)
check "profile.coz: the function's own experiments too ($nf)" test "${nf:-0}" -ge 6
finish
