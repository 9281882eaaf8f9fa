#!/usr/bin/env bash
# A program that execs (a shell script replacing itself, as pyenv's shims and wrappers do) is
# never killed by a sampling signal that was pending when it called exec: before the fix, 5 of
# 5 runs of a 30-link chain at 10 kHz ended "killed by signal 40". Both CPU timers and wall mode.
# A run that fails shows rocsys-top's last lines (Debian 13 once saw it abort, exit 134).
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
        if [ "$rc" -ne 0 ]; then # what rocsys-top said last (an abort's message is on stderr)
            grep -v '^ \|^==\|^mode \|^process \|^rocsys-top frame \|^$' "$WORK/frames" | tail -n 5 |
                sed 's/^/    | /' >&2 || true
        fi
    done
done
finish
