#!/usr/bin/env bash
# End-to-end: a target that starts 500 short-lived threads is profiled without crash, loss of
# the target's work, or drops; threads named later show their names; rings are recycled.
source "$(dirname "$0")/lib.sh"

rc=0
"$ROCSYS_TOP" -b -d 5 --rows 0 --output-log "$WORK/log" -- "$TP/tp_threads500" \
    > "$WORK/frames.txt" || rc=$?
check "exit 0 (got $rc)" test "$rc" -eq 0
check "the target finished its work" grep -q "500 threads done" "$WORK/log"
last_frame "$WORK/frames.txt" > "$WORK/last.txt"
n=$(grep -Ec '^ +[0-9]+ +[0-9]+ +short-[0-9]+ ' "$WORK/last.txt" || true)
lost=$(grep -Eo 'unsampled threads [0-9]+' "$WORK/last.txt" | grep -Eo '[0-9]+$' || echo missing)
# every thread is either listed by name or counted as unsampled (only when the front end fell
# so far behind that all rings were taken: a loaded machine); none vanishes silently
check "500 threads accounted for: $n listed + $lost unsampled" test "$((n + ${lost/missing/999}))" -eq 500
check "short_work profiled" grep -q 'short_work' "$WORK/last.txt"
check "drops are reported" grep -Eq 'dropped [0-9]+' "$WORK/last.txt"
finish
