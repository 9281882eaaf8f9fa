#!/usr/bin/env bash
# End-to-end: the target's stdout and stderr are kept in full in the log file (200,000 lines,
# nothing lost or reordered within a stream), and the tail shows in the Output view.
source "$(dirname "$0")/lib.sh"

N=200000
rc=0
"$ROCSYS_TOP" -b --output-log "$WORK/log" -- "$TP/tp_output" $N > "$WORK/frames.txt" || rc=$?
check "exit 0" test "$rc" -eq 0
"$TP/tp_output" $N > "$WORK/ref.out" 2> "$WORK/ref.err"
check "every stdout line, in order" cmp -s <(grep '^out ' "$WORK/log") "$WORK/ref.out"
check "every stderr line, in order" cmp -s <(grep '^err ' "$WORK/log") "$WORK/ref.err"
check "nothing else in the log" test "$(wc -l < "$WORK/log")" -eq $N
check "the last line shows in the Output view" \
    grep -q "LINE $((N - 1))\$" <(last_frame "$WORK/frames.txt")
finish
