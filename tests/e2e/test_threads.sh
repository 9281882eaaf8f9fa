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
check "500 named threads listed (got $n)" test "$n" -eq 500
check "short_work profiled" grep -q 'short_work' "$WORK/last.txt"
check "no drops" grep -Eq 'dropped 0( |$)' "$WORK/last.txt"
finish
