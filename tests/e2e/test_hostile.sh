#!/usr/bin/env bash
# End-to-end: programs that do what real programs do to their own process (tests/programs/
# tp_hostile.c): close every fd above 2, replace stdout and stderr, vfork + exec, a raw clone()
# thread, 300 threads started at once, their own handlers for every real-time signal, every
# signal ignored. Each runs
# bare and under rocsys-top --record with the default engine and with --engine signal; under
# rocsys-top it must end as bare (status, output) and its burn be profiled (hostile_burn named
# in its own stacks), or the session must say why not.
source "$(dirname "$0")/lib.sh"

H=$TP/tp_hostile
for mode in closefds stdio vfork clone threads300 handler ignore; do
    args=("$mode")
    [ "$mode" = stdio ] && args+=("$WORK/$mode.bare.log")
    rc=0
    "$H" "${args[@]}" > "$WORK/$mode.bare.out" 2>&1 || rc=$?
    bare_rc=$rc
    [ "$mode" = stdio ] && cat "$WORK/$mode.bare.log" >> "$WORK/$mode.bare.out"
    for engine in auto signal; do
        R="$WORK/$mode-$engine"
        args=("$mode")
        [ "$mode" = stdio ] && args+=("$WORK/$mode.$engine.log")
        rc=0
        timeout 120 "$ROCSYS_TOP" --record "$R" --no-tui --engine "$engine" -- "$H" "${args[@]}" \
            > "$WORK/$mode.$engine.top" 2>&1 || rc=$?
        check "$mode ($engine): the status as bare ($rc, bare $bare_rc)" test "$rc" -eq "$bare_rc"
        out=$(cat "$R/output.log" 2> /dev/null)
        [ "$mode" = stdio ] && out=$(cat "$WORK/$mode.$engine.log")
        check "$mode ($engine): its output as bare" test "$out" = "$(cat "$WORK/$mode.bare.out")"
        burn=$(awk '/;hostile_burn / { s += $NF } END { print s + 0 }' "$R/stacks.folded" 2> /dev/null || echo 0)
        total=$(awk '{ s += $NF } END { print s + 0 }' "$R/stacks.folded" 2> /dev/null || echo 0)
        notice=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('notice', ''))" \
            "$R/session.json" 2> /dev/null || true)
        echo "    $mode ($engine): hostile_burn $burn of $total samples${notice:+; notice: $notice}"
        if [ "$mode" = clone ] && [ "$engine" = signal ] && [ "$burn" -lt 300 ] && [ -n "$notice" ]; then
            check "$mode ($engine): the samples it lacks are explained" true
        else
            check "$mode ($engine): its burn profiled ($burn samples of ~600 ms at 1 kHz)" \
                test "$burn" -ge 300
        fi
    done
done
finish
