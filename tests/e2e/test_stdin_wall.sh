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

"$ROCSYS_TOP" -b --rows 0 -- "$ROCSYS_DEMO" --seconds 2 > "$WORK/cpu.txt"
last_frame "$WORK/cpu.txt" > "$WORK/cpu_last.txt"
sleeper=$(awk '$3=="sleeper"{print $6}' "$WORK/cpu_last.txt")
check "cpu mode: the sleeper has ~no samples (${sleeper:-none})" test "${sleeper:-0}" -lt 20
finish
