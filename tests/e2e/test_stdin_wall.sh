#!/usr/bin/env bash
# End-to-end: stdin is /dev/null unless --stdin; --sample wall shows where a sleeping thread
# waits (CPU sampling shows nothing for it).
source "$(dirname "$0")/lib.sh"

printf 'hello\n' | "$ROCSYS_TOP" -b --output-log "$WORK/a.log" -- "$TP/tp_stdin" > /dev/null
check "stdin is /dev/null by default" grep -q "read 0 bytes" "$WORK/a.log"
printf 'hello\n' | "$ROCSYS_TOP" -b --stdin --output-log "$WORK/b.log" -- "$TP/tp_stdin" > /dev/null
check "--stdin passes our stdin" grep -q "read 6 bytes" "$WORK/b.log"

"$ROCSYS_TOP" -b --rows 0 --sample wall -f 200 -- "$ROCSYS_DEMO" --seconds 2 > "$WORK/wall.txt"
last_frame "$WORK/wall.txt" > "$WORK/last.txt"
check "wall mode header" grep -q '^mode wall 200 Hz' "$WORK/last.txt"
sleeper=$(awk '$3=="sleeper"{print $6}' "$WORK/last.txt")
check "wall mode: the sleeper has samples (${sleeper:-none})" test "${sleeper:-0}" -gt 100
check "wall mode: nanosleep shows" grep -Eq 'nanosleep' "$WORK/last.txt"
# the main thread waits in pthread_join: named rocsys-demo, it is still the program's (the
# collector's own helper thread, rocsys-modmap, is not)
main=$(awk '$3=="rocsys-demo"{print $6}' "$WORK/last.txt")
check "wall mode: the main thread (rocsys-demo, in pthread_join) has samples (${main:-none})" \
    test "${main:-0}" -gt 100
check "wall mode: the collector's helper thread has no samples" \
    awk '$3=="rocsys-modmap" && $6 > 0 {bad=1} END {exit bad}' "$WORK/last.txt"

"$ROCSYS_TOP" -b --rows 0 --cpu-timer perf -- "$ROCSYS_DEMO" --seconds 2 > "$WORK/cpu.txt"
last_frame "$WORK/cpu.txt" > "$WORK/cpu_last.txt"
sleeper=$(awk '$3=="sleeper"{print $6}' "$WORK/cpu_last.txt")
check "cpu mode: the sleeper has ~no samples (${sleeper:-none})" test "${sleeper:-0}" -lt 20
check "cpu mode uses a perf event here (cycles or task-clock)" grep -Eq 'timer (cycles|task-clock)' "$WORK/cpu_last.txt"

# POSIX CPU-time timers (--cpu-timer posix, and the fallback where perf events are not
# allowed): tick resolution, so a sample is weighted by the timer overrun, and said so
auto=$("$ROCSYS_TOP" -b -- "$TP/tp_exit" 0 100 | grep -Eo 'timer [a-z-]+' | tail -1)
check "--cpu-timer auto: perf events, a VM included ($auto)" bash -c "[[ '$auto' =~ cycles|task-clock ]]"
"$ROCSYS_TOP" -b --rows 0 --cpu-timer posix --output-log "$WORK/tick.log" -- \
    "$ROCSYS_DEMO" --seconds 2 > "$WORK/tick.txt"
last_frame "$WORK/tick.txt" > "$WORK/tick_last.txt"
check "fallback: timer tick" grep -q 'timer tick' "$WORK/tick_last.txt"
check "fallback: demo functions sampled" grep -q ' demo_solve ' "$WORK/tick_last.txt"
# the demo reports the CPU its solver threads used; at 1000 Hz a period is 1 ms of CPU
# (inclusive SAMPLES of demo_step in the call tree section)
n=$(awk '/^== Call tree/{c=1; next} /^== /{c=0} c && $4=="demo_step" {print $3; exit}' \
    "$WORK/tick_last.txt")
ms=$(grep -Eo 'CPU split .* of [0-9]+ ms' "$WORK/tick.log" | grep -Eo '[0-9]+ ms' | grep -Eo '[0-9]+' | tail -n 1 || true)
check "fallback: weighted samples under demo_step ($n) match its CPU time (${ms:-?} ms) within 15%" \
    within "$n" "${ms:-0}" "$(( ${ms:-0} * 15 / 100 ))"
finish
