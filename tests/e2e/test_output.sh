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
# the two pipes are read as data arrives, so which stream's last line comes last depends on
# timing (stdout's final buffer is flushed at exit, after stderr's last line): the Output
# view must end with the last line of one of them
tail_line=$(last_frame "$WORK/frames.txt" | grep -E '^(out|err) LINE [0-9]+$' | tail -n 1)
check "the Output view ends with a stream's last line (got '$tail_line')" \
    grep -Eqx "(out LINE $((N - 2))|err LINE $((N - 1)))" <<<"$tail_line"
finish
