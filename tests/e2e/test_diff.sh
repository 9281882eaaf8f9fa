#!/usr/bin/env bash
# End-to-end: --replay NEW --diff OLD on real recordings. Two runs of the demo that differ in a
# known way (--split 50,30,20, then 20,30,50): the "== Diff" sections of a batch frame give both
# shares and the change within 3 points of what the demo measured of itself, sorted by the
# largest change, the call tree matched by path; functions of one recording only are marked
# new / gone (the demo against tp_phases); --range applies to NEW; the TUI in tmux opens on the
# Diff view (header "diff: NEW vs OLD", its four tables, the sort, the other views still NEW's);
# kernels and HIP API compared by name (HIP examples, when built); bad input is one line on
# stderr and a non-zero exit.
source "$(dirname "$0")/lib.sh"

OLD=$WORK/old
NEW=$WORK/new
rc=0
"$ROCSYS_TOP" --record "$OLD" -- "$ROCSYS_DEMO" --seconds 3 > /dev/null 2>&1 || rc=$?
check "recorded the demo at 50/30/20 (exit $rc)" test "$rc" -eq 0
rc=0
"$ROCSYS_TOP" --record "$NEW" -- "$ROCSYS_DEMO" --seconds 3 --split 20,30,50 > /dev/null 2>&1 || rc=$?
check "recorded the demo at 20/30/50 (exit $rc)" test "$rc" -eq 0

# The truth is what each demo run measured of itself (its output.log): the solvers' CPU split
# of ALL ms, and CAL ms of calibration on the main thread, which runs the three leaves equally
# outside demo_step (a few % of the process on a busy machine, where the solvers get less CPU).
# measured RECORDING: "SOLVE BUTTERFLY REDUCE ALL CAL"
measured() { sed -n 's/.*measured CPU split \([0-9.]*\) \/ \([0-9.]*\) \/ \([0-9.]*\) % of \([0-9]*\) ms; calibration \([0-9]*\) ms.*/\1 \2 \3 \4 \5/p' "$1/output.log"; }
read -r -a M_OLD <<< "$(measured "$OLD")"
read -r -a M_NEW <<< "$(measured "$NEW")"
echo "    measured (split, ms, calibration ms): OLD ${M_OLD[*]:-none}; NEW ${M_NEW[*]:-none}"
check "both demo runs printed their measure (${M_OLD[*]:-none}; ${M_NEW[*]:-none})" \
    test "${#M_OLD[@]}" -eq 5 -a "${#M_NEW[@]}" -eq 5
# truth KIND LEAF(0-2) SOLVE BUTTERFLY REDUCE ALL CAL: % of the process's CPU: KIND self is
# LEAF's self share (its part of the solvers plus a third of the calibration), under is LEAF's
# share below demo_step, step is demo_step's share
truth() { awk -v k="$1" -v l="$2" -v s0="$3" -v s1="$4" -v s2="$5" -v a="${6:-0}" -v c="${7:-0}" 'BEGIN {
    s[0] = s0; s[1] = s1; s[2] = s2; t = a + c; if (t <= 0) { print ""; exit }
    if (k == "self") v = (s[l] * a / 100 + c / 3) / t * 100; else if (k == "under") v = s[l] * a / t
    else v = 100 * a / t; printf "%.1f\n", v }'; }
old_t() { truth "$1" "$2" "${M_OLD[@]}"; }
new_t() { truth "$1" "$2" "${M_NEW[@]}"; }
# change_t KIND LEAF: NEW's truth less OLD's
change_t() { awk -v a="$(old_t "$1" "$2")" -v b="$(new_t "$1" "$2")" 'BEGIN { printf "%.1f\n", b - a }'; }

# diff_row SECTION NAME FRAME: the row of NAME (the last field) in the "== Diff SECTION" section
diff_row() { awk -v s="== Diff $1:" -v n="$2" 'index($0, s) == 1 {h=1; next} /^== /{h=0} h && $NF==n {print; exit}' "$3"; }
# tree_row NAME FRAME: the row of NAME in the "== Diff call tree" section below demo_step (the
# solver threads' path: the main thread's calibration calls the demo_ functions too, and with
# siblings sorted by change its _start subtree may come first)
tree_row() { awk -v s="== Diff call tree:" -v n="$1" 'index($0, s) == 1 {h=1; next} /^== /{h=0}
    h && $NF=="demo_step" {u=1; next} h && u && $NF==n {print; exit}' "$2"; }
# field N ROW
field() { awk -v n="$1" '{print $n}' <<< "$2"; }

rc=0
"$ROCSYS_TOP" --replay "$NEW" --diff "$OLD" -b --rows 0 > "$WORK/diff.txt" 2> "$WORK/diff.err" || rc=$?
check "replay --diff -b: exit 0 (got $rc)" test "$rc" -eq 0
check "the frame says what is compared" grep -q "target \[diff: $NEW vs $OLD\]" "$WORK/diff.txt"
for section in "hot functions" "call tree" "kernels" "HIP API"; do
    check "a Diff $section section" grep -q "^== Diff $section: $NEW vs $OLD " "$WORK/diff.txt"
done
# hot functions: OLD self %, NEW self %, change (fields 1-3), inclusive (4-6), mark (7)
for spec in demo_solve:0 demo_butterfly:1 demo_reduce:2; do
    IFS=: read -r fn i <<< "$spec"
    was=$(old_t self "$i") now=$(new_t self "$i")
    row=$(diff_row "hot functions" "$fn" "$WORK/diff.txt")
    o=$(field 1 "$row") n=$(field 2 "$row") c=$(field 3 "$row")
    check "$fn: OLD ${o:-missing}% within 3 of the measured $was%" within "$o" "$was" 3
    check "$fn: NEW ${n:-missing}% within 3 of the measured $now%" within "$n" "$now" 3
    d=$(change_t self "$i")
    check "$fn: change ${c:-missing} within 3 of the measured $d points" within "$c" "$d" 3
    check "$fn: change $c is NEW - OLD ($n - $o)" \
        awk -v o="$o" -v n="$n" -v c="$c" 'BEGIN { d = n - o - c; exit !(c != "" && d < 0.15 && d > -0.15) }'
    check "$fn: in both recordings (mark -)" test "$(field 7 "$row")" = "-"
done
first=$(awk '/^== Diff hot functions:/{getline; getline; print $NF; exit}' "$WORK/diff.txt")
check "largest change first (got ${first:-none})" bash -c "[[ '$first' == demo_solve || '$first' == demo_reduce ]]"
check "rows sorted by absolute change" awk '
    /^== Diff hot functions:/ {h = 1; getline; next} /^== / {h = 0}
    h { c = $3 < 0 ? -$3 : $3; if (seen && c > last + 0.05) bad = 1; last = c; seen = 1 }
    END { exit bad || !seen }' "$WORK/diff.txt"
# the call tree: matched by path, demo_butterfly under demo_transform, shares inclusive
row=$(diff_row "call tree" demo_step "$WORK/diff.txt")
was=$(old_t step 0) now=$(new_t step 0)
check "tree: demo_step $(field 1 "$row") -> $(field 2 "$row") within 3 of the measured $was -> $now" \
    bash -c "$(declare -f within); within '$(field 1 "$row")' '$was' 3 && within '$(field 2 "$row")' '$now' 3"
row=$(tree_row demo_solve "$WORK/diff.txt")
d=$(change_t under 0)
check "tree: demo_solve change $(field 3 "$row") within 3 of the measured $d" within "$(field 3 "$row")" "$d" 3
row=$(tree_row demo_transform "$WORK/diff.txt")
check "tree: demo_transform inclusive change $(field 3 "$row") within 3 of 0" within "$(field 3 "$row")" 0 3
check "tree: demo_butterfly right under demo_transform, indented deeper" awk '
    /^== Diff call tree:/ {h = 1; getline; next} /^== / {h = 0}
    h && $NF == "demo_transform" { d = index($0, "demo_transform"); getline;
        ok = $NF == "demo_butterfly" && index($0, "demo_butterfly") == d + 2 }
    END { exit !ok }' "$WORK/diff.txt"
check "no kernels in either recording, said so" grep -q '^no kernel data in either recording' "$WORK/diff.txt"
# the rest of the frame is NEW's
n_self=$(last_frame "$WORK/diff.txt" | hot_self demo_reduce)
check "the Hot functions section is NEW's (demo_reduce ${n_self:-missing}%, measured $(new_t self 2))" \
    within "$n_self" "$(new_t self 2)" 3
# --rows bounds each section
"$ROCSYS_TOP" --replay "$NEW" --diff "$OLD" -b --rows 2 > "$WORK/rows2.txt"
check "--rows 2: two rows in the Diff hot functions section" test "$(awk '
    /^== Diff hot functions:/ {h = 1; getline; next} /^== / {h = 0} h {n++} END {print n + 0}' "$WORK/rows2.txt")" -eq 2

# --range applies to NEW: fewer NEW samples, OLD's all counted, the split the same
totals() { sed -n 's/^== Diff hot functions: .*samples: \([0-9]*\) vs \([0-9]*\) samples.*/\1 \2/p' "$1"; }
read -r new_all old_all <<< "$(totals "$WORK/diff.txt")"
"$ROCSYS_TOP" --replay "$NEW" --diff "$OLD" --range 1:2 -b --rows 0 > "$WORK/range.txt"
read -r new_part old_part <<< "$(totals "$WORK/range.txt")"
check "--range 1:2: NEW ${new_part:-?} of ${new_all:-?} samples" \
    bash -c "[ '${new_part:-0}' -gt 0 ] && [ '${new_part:-0}' -lt '${new_all:-0}' ]"
check "--range 1:2: OLD whole (${old_part:-?} = ${old_all:-?})" test "${old_part:-x}" = "${old_all:-y}"
row=$(diff_row "hot functions" demo_reduce "$WORK/range.txt")
check "--range 1:2: demo_reduce NEW $(field 2 "$row")% within 3 of the solvers' measured ${M_NEW[2]:-?}% (no calibration in seconds 1-2)" \
    within "$(field 2 "$row")" "${M_NEW[2]:-50}" 3

# one side only: the demo against tp_phases
PH=$WORK/phases
"$ROCSYS_TOP" --record "$PH" -- "$TP/tp_phases" > /dev/null 2>&1 || true
"$ROCSYS_TOP" --replay "$NEW" --diff "$PH" -b --rows 0 > "$WORK/other.txt"
row=$(diff_row "hot functions" phase_one "$WORK/other.txt")
check "phase_one: gone, 0 in NEW, OLD $(field 1 "$row")% within 15 of 50%" \
    bash -c "$(declare -f within); [ '$(field 7 "$row")' = gone ] && [ '$(field 2 "$row")' = 0.0 ] && within '$(field 1 "$row")' 50 15"
row=$(diff_row "hot functions" demo_reduce "$WORK/other.txt")
check "demo_reduce: new, 0 in OLD" bash -c "[ '$(field 7 "$row")' = new ] && [ '$(field 1 "$row")' = 0.0 ]"
check "the section counts them" grep -Eq '^== Diff hot functions: .* [1-9][0-9]* new, [1-9][0-9]* gone' "$WORK/other.txt"
row=$(diff_row "call tree" phase_two "$WORK/other.txt")
check "tree: phase_two's path gone" test "$(field 7 "$row")" = gone

# the TUI in tmux: the Diff view first
if command -v tmux > /dev/null; then
    S=difftui
    tmux_start $S 140 40 "$ROCSYS_TOP" --replay "$NEW" --diff "$OLD"
    check "TUI: header says diff: NEW vs OLD" wait_screen $S "diff: $NEW vs $OLD" 10
    check "TUI: opens on the Diff view's hot functions" wait_screen $S '\[hot functions\]' 5
    check "TUI: diff columns" wait_screen $S 'SELF:OLD +NEW CHANGE +INCL:OLD +NEW CHANGE +MARK' 5
    tmux_screen $S > "$WORK/tui.txt"
    line=$(awk '$NF == "demo_solve" {print; exit}' "$WORK/tui.txt")
    d=$(change_t self 0)
    check "TUI: demo_solve change $(field 3 "$line") within 3 of the measured $d" within "$(field 3 "$line")" "$d" 3
    tmux_keys $S c
    check "TUI: c shows the call tree diff" wait_screen $S 'INCL:OLD +NEW CHANGE +SELF:OLD' 5
    check "TUI: the tree shows demo_butterfly" wait_screen $S 'demo_butterfly' 5
    tmux_keys $S s
    check "TUI: s sorts by NEW share" wait_screen $S 'sort: new share' 5
    tmux_keys $S c c
    check "TUI: the HIP API table" wait_screen $S 'no HIP API data in either recording' 5
    tmux_keys $S 2
    check "TUI: the Hot functions view is NEW's" wait_screen $S 'Hot functions: all threads' 5
    line=$(tmux_screen $S | awk '$4 == "demo_reduce" {print $1; exit}')
    check "TUI: NEW's demo_reduce ${line:-missing}% within 3 of the measured $(new_t self 2)%" within "$line" "$(new_t self 2)" 3
    tmux_keys $S d
    check "TUI: d goes back to the Diff view" wait_screen $S 'CALLS:OLD' 5
    tmux_keys $S q
    check "TUI: q quits" wait_file "$WORK/$S.rc" 5
    check "TUI: exit status 0" test "$(cat "$WORK/$S.rc" 2> /dev/null)" = 0
    tmux_kill $S
else
    echo "tmux not installed: TUI part not run"
fi

# kernels and HIP API: vector_add 3 launches, then 7; then the kernels example
EX="$ROCSYS_PROGRAMS/../examples/hip"
if [ -x "$EX/vector_add" ] && [ -x "$EX/kernels" ]; then
    "$ROCSYS_TOP" --record "$WORK/va3" -- "$EX/vector_add" 3 > /dev/null 2>&1 || true
    "$ROCSYS_TOP" --record "$WORK/va7" -- "$EX/vector_add" 7 > /dev/null 2>&1 || true
    "$ROCSYS_TOP" --record "$WORK/kern" -- "$EX/kernels" 2 > /dev/null 2>&1 || true
    "$ROCSYS_TOP" --replay "$WORK/va7" --diff "$WORK/va3" -b --rows 0 > "$WORK/hip.txt"
    row=$(diff_row "HIP API" hipLaunchKernel "$WORK/hip.txt")
    check "HIP API: hipLaunchKernel calls 3 -> 7 ($(field 4 "$row") -> $(field 5 "$row"))" \
        test "$(field 4 "$row") $(field 5 "$row")" = "3 7"
    check "HIP API: hipMalloc in both" test "$(field 8 "$(diff_row "HIP API" hipMalloc "$WORK/hip.txt")")" = "-"
    row=$(awk '/^== Diff kernels:/ {h = 1; getline; next} /^== / {h = 0} h && /vector_add/ {print; exit}' "$WORK/hip.txt")
    check "kernels: vector_add launches 3 -> 7" test "$(field 4 "$row") $(field 5 "$row")" = "3 7"
    "$ROCSYS_TOP" --replay "$WORK/kern" --diff "$WORK/va3" -b --rows 0 > "$WORK/kern.txt"
    row=$(awk '/^== Diff kernels:/ {h = 1; getline; next} /^== / {h = 0} h && /vector_add/ {print; exit}' "$WORK/kern.txt")
    check "kernels: vector_add gone" test "$(field 8 "$row")" = gone
    row=$(diff_row kernels saxpy_c "$WORK/kern.txt")
    check "kernels: saxpy_c new" test "$(field 8 "$row")" = new
    row=$(diff_row "HIP API" hipStreamCreate "$WORK/kern.txt")
    check "HIP API: hipStreamCreate new" test "$(field 8 "$row")" = new
else
    echo "HIP examples not built: kernels and HIP API part not run"
fi

# bad input: one line on stderr, a non-zero exit
rc=0; "$ROCSYS_TOP" --diff "$OLD" -b > /dev/null 2> "$WORK/e1.txt" || rc=$?
check "--diff without --replay: exit 2 (got $rc)" test "$rc" -eq 2
check "--diff without --replay: one line saying so" \
    bash -c "[ \$(wc -l < '$WORK/e1.txt') -eq 1 ] && grep -q 'needs --replay' '$WORK/e1.txt'"
rc=0; "$ROCSYS_TOP" --replay "$NEW" --diff "$WORK/none" -b > "$WORK/e2.out" 2> "$WORK/e2.txt" || rc=$?
check "--diff missing directory: exit 1 (got $rc)" test "$rc" -eq 1
check "--diff missing directory: one line naming it" \
    bash -c "[ \$(wc -l < '$WORK/e2.txt') -eq 1 ] && grep -q -- '--diff: $WORK/none is not a directory' '$WORK/e2.txt'"
check "--diff missing directory: no frame" test ! -s "$WORK/e2.out"
mkdir -p "$WORK/empty"
rc=0; "$ROCSYS_TOP" --replay "$NEW" --diff "$WORK/empty" -b > /dev/null 2> "$WORK/e3.txt" || rc=$?
check "--diff not a recording: exit 1 (got $rc)" test "$rc" -eq 1
check "--diff not a recording: one line saying so" \
    bash -c "[ \$(wc -l < '$WORK/e3.txt') -eq 1 ] && grep -q 'not a recording' '$WORK/e3.txt'"
rc=0; "$ROCSYS_TOP" --replay "$NEW" --diff "$OLD" --live -b > /dev/null 2> "$WORK/e4.txt" || rc=$?
check "--diff with --live: exit 2 (got $rc)" test "$rc" -eq 2
check "--diff with --live: one line" test "$(wc -l < "$WORK/e4.txt")" -eq 1

finish
