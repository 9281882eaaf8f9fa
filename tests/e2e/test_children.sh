#!/usr/bin/env bash
# End-to-end: children the target starts (fork+exec through a shell, and a plain fork) are
# profiled and shown as their own processes; --no-follow profiles the target alone.
source "$(dirname "$0")/lib.sh"

rc=0
ROCSYS_COLLECTOR_LOG="$WORK/collector.log" \
    "$ROCSYS_TOP" -b --rows 0 -- "$TP/tp_fork" > "$WORK/frames.txt" || rc=$?
check "exit 0 (got $rc)" test "$rc" -eq 0
last_frame "$WORK/frames.txt" > "$WORK/last.txt"
for fn in parent_work child_work fork_only_work; do
    check "$fn profiled" grep -Eq " $fn " "$WORK/last.txt"
done
np=$(grep -c '^process ' "$WORK/last.txt")
check "three processes shown (got $np)" test "$np" -ge 3
check "the exec'd child's thread name" grep -q 'forked-child' "$WORK/last.txt"
if [ "$failures" -gt 0 ]; then # what a failure needs for a diagnosis
    echo "--- last frame:"; cat "$WORK/last.txt"
    echo "--- collector log:"; cat "$WORK/collector.log" 2>/dev/null || true
fi

rc=0
"$ROCSYS_TOP" -b --rows 0 --no-follow -- "$TP/tp_fork" > "$WORK/nf.txt" || rc=$?
check "--no-follow: exit 0" test "$rc" -eq 0
last_frame "$WORK/nf.txt" > "$WORK/nf_last.txt"
check "--no-follow: parent profiled" grep -Eq ' parent_work ' "$WORK/nf_last.txt"
check "--no-follow: exec'd child not profiled" bash -c "! grep -Eq ' child_work ' '$WORK/nf_last.txt'"
check "--no-follow: forked child not profiled" bash -c "! grep -Eq ' fork_only_work ' '$WORK/nf_last.txt'"
finish
