#!/usr/bin/env bash
# End-to-end: the collector does not break programs that stress what it touches: dlopen/dlclose
# loops in several threads, fork while other threads are inside the loader, a SIGALRM handler
# that siglongjmps 10 000 times a second, a coroutine on a 16 KiB stack. Each runs under
# rocsys-top with both CPU timers and must end as it does alone (status and output).
source "$(dirname "$0")/lib.sh"

# same_as_bare NAME ARGS...: run bare, then under rocsys-top (perf and posix timers) at
# $FREQ_HZ samples per second (default 1000)
same_as_bare() {
    local rc_bare=0 rc=0
    timeout 60 "$@" > "$WORK/bare.out" 2>&1 || rc_bare=$?
    for timer in perf posix; do
        rc=0
        : > "$WORK/log"
        timeout 120 "$ROCSYS_TOP" -b --rows 1 -f "${FREQ_HZ:-1000}" --cpu-timer "$timer" \
            --output-log "$WORK/log" -- "$@" > "$WORK/frames.txt" 2>&1 || rc=$?
        check "$(basename "$1") [$timer]: status $rc, alone $rc_bare $(grep -m1 ' hung: ' "$WORK/log")" \
            test "$rc" -eq "$rc_bare"
        check "$(basename "$1") [$timer]: last line as alone ($(tail -1 "$WORK/log"))" \
            test "$(tail -1 "$WORK/log" | sed 's/[0-9]\+/N/g')" = \
                 "$(tail -1 "$WORK/bare.out" | sed 's/[0-9]\+/N/g')"
        check "$(basename "$1") [$timer]: sampled ($(grep -E '^(rocsys-top frame|mode) ' "$WORK/frames.txt" |
            tail -n 2 | grep -oE 'elapsed [^ ]+|samples [0-9]+|dropped [0-9]+|unsampled threads [0-9]+' |
            tr '\n' ' '))" grep -Eq 'samples [1-9]' "$WORK/frames.txt"
    done
}

same_as_bare "$TP/tp_dlloop" 2
same_as_bare "$TP/tp_forkdl" 2 100
# children that run long enough to be sampled, forked while the other threads' samples are in
# libunwind (its cache lock held at fork hung such a child: 4 runs in 4 before the fix)
FREQ_HZ=5000 same_as_bare "$TP/tp_forkdl" 3 100 3
same_as_bare "$TP/tp_jmp"
same_as_bare "$TP/tp_fiber"
finish
