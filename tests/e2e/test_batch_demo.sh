#!/usr/bin/env bash
# End-to-end: batch mode on the demo. The documented CPU split (examples/README.md) shows in
# the hot functions within +-3 percentage points, the threads by name, the target's output,
# and rocsys-top exits with the demo's status.
source "$(dirname "$0")/lib.sh"

# --cpu-timer perf: exact sampling whatever else the machine runs (the default under a
# hypervisor, POSIX CPU timers, is biased when threads compete for cores: docs/performance.md).
# The shares are compared with the split the demo measured of its own leaves (its 50/30/20 is
# a target it calibrates for), over at least 2 s of its CPU: 4 s of a loaded machine may give
# it less, then it runs longer
for secs in 4 12 30; do
    rc=0
    "$ROCSYS_TOP" -b -d 10 --rows 0 --cpu-timer perf --output-log "$WORK/out.log" -- "$ROCSYS_DEMO" --seconds "$secs" \
        > "$WORK/frames.txt" 2> "$WORK/err.txt" || rc=$?
    read -r m_solve m_butterfly m_reduce m_ms < <(sed -n 's/.*measured CPU split \([0-9.]*\) \/ \([0-9.]*\) \/ \([0-9.]*\) % of \([0-9]*\) ms.*/\1 \2 \3 \4/p' "$WORK/out.log") || true
    [ "${m_ms:-0}" -lt 2000 ] || break
    echo "    (the demo's leaves had ${m_ms:-no} ms of CPU in $secs s)"
done
check "exit status 0 (got $rc)" test "$rc" -eq 0
last_frame "$WORK/frames.txt" > "$WORK/last.txt"
for spec in demo_solve:${m_solve:-50} demo_butterfly:${m_butterfly:-30} demo_reduce:${m_reduce:-20}; do
    fn=${spec%%:*} want=${spec##*:}
    got=$(hot_self "$fn" < "$WORK/last.txt")
    check "$fn self ${got:-missing}% not within 3 of the demo's $want%" within "$got" "$want" 3
done
got=$(hot_incl demo_transform < "$WORK/last.txt")
check "demo_transform inclusive ${got:-missing}% not within 3 of demo_butterfly's ${m_butterfly:-30}%" \
    within "$got" "${m_butterfly:-30}" 3
got=$(hot_incl demo_step < "$WORK/last.txt")
check "demo_step inclusive ${got:-missing}% not within 3 of 100%" within "$got" 100 3
for t in solver-0 solver-1 sleeper; do
    check "thread $t listed" grep -Eq "^ +[0-9]+ +[0-9]+ +$t " "$WORK/last.txt"
done
check "status says exited with 0" grep -q '^rocsys-top frame .*\[exited with 0\]' "$WORK/last.txt"
check "process line with measured metrics" grep -Eq '^process [0-9]+ rocsys-demo: cpu [0-9.]+%  threads [0-9]+  rss [0-9.]+ [KMG]i?B' "$WORK/last.txt"
check "no drops" grep -Eq 'dropped 0( |$)' "$WORK/last.txt"
check "call tree shows demo_butterfly under demo_transform" \
    awk '/demo_transform/{t=1; next} t && /demo_butterfly/{found=1} END{exit !found}' "$WORK/last.txt"
check "demo output in the log" grep -q "rocsys-demo: done" "$WORK/out.log"
check "demo output in the frame" grep -q "rocsys-demo: done" "$WORK/last.txt"
# (a wait for the symbols at the end, over a second on a busy machine, is said there)
check "nothing on stderr but a wait for symbols ($(head -c 300 "$WORK/err.txt"))" \
    sh -c "! grep -v '^rocsys-top: waiting for the symbols of ' '$WORK/err.txt'"
# several frames at -d 10 over 4 s or more
n=$(grep -c '^rocsys-top frame ' "$WORK/frames.txt")
check "at least 3 frames (got $n)" test "$n" -ge 3
finish
