#!/usr/bin/env bash
# A program that execs (a shell script replacing itself, as pyenv's shims and wrappers do) is
# never killed by a sampling signal that was pending when it called exec: before the fix, 5 of
# 5 runs of a 30-link chain at 10 kHz ended "killed by signal 40". Both CPU timers and wall mode.
source "$(dirname "$0")/lib.sh"
CHAIN="$ROCSYS_SOURCE/tests/programs/exec_chain.sh"
for mode in "--cpu-timer perf" "--cpu-timer posix" "--sample wall"; do
    for run in 1 2 3; do
        set +e
        # shellcheck disable=SC2086
        "$ROCSYS_TOP" -b -n 60 -f 10000 $mode --output-log "$WORK/out.log" -- bash "$CHAIN" 30 \
            > "$WORK/frames" 2>&1
        rc=$?
        set -e
        check "$mode run $run: exit 0 (got $rc: $(grep -o 'target \[[^]]*\]' "$WORK/frames" | tail -1))" \
            test "$rc" -eq 0
        check "$mode run $run: the chain's end reached" grep -q '^chain done' "$WORK/out.log"
    done
done
finish
