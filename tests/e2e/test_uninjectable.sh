#!/usr/bin/env bash
# End-to-end: a profiled program starts a child that the collector cannot be in
# (tests/programs/tp_exec_bare.c): its environment cleared before exec, or before posix_spawn,
# a setuid program of another owner, a static program. Under rocsys-top (default engine, which
# is perf where permitted, and --engine signal) the program must end as bare (status, output);
# the child must be named with its reason on screen (batch frames), in session.json and in
# --replay; and
# with the perf engine its work is still sampled from outside (names resolved), except the
# setuid one, whose perf events the kernel ends at exec.
source "$(dirname "$0")/lib.sh"

B=$TP/tp_exec_bare
cases=(clearenv spawn-clear)
if [ -x "$TP/tp_static" ]; then
    cases+=(static)
else
    echo "note: tp_static not built (no static libc): exec of a static program not exercised"
fi
SUID=$WORK/suid-copy
if [ "$(id -u)" -eq 0 ] && ! findmnt -no OPTIONS --target "$WORK" | grep -qw nosuid &&
    cp "$B" "$SUID" && chown nobody "$SUID" && chmod 4755 "$SUID"; then
    chmod 755 "$WORK" # nobody must reach its program
    cases+=(setuid)
else
    echo "note: not root or $WORK is nosuid: exec of a setuid program not exercised"
fi

args_of() { # the tp_exec_bare arguments of case $1
    case $1 in
        static) echo exec "$TP/tp_static" ;;
        setuid) echo exec "$SUID" burn ;;
        *) echo "$1" ;;
    esac
}
reason_of() { # a word of the reason rocsys-top must give for case $1
    case $1 in
        static) echo "statically linked" ;;
        setuid) echo "setuid" ;;
        *) echo "environment cleared" ;;
    esac
}
burn_of() { # the child's function that burns CPU
    [ "$1" = static ] && echo static_work || echo bare_child_burn
}

for c in "${cases[@]}"; do
    read -ra args <<< "$(args_of "$c")"
    bare_rc=0
    "$B" "${args[@]}" > "$WORK/$c.bare.out" 2>&1 || bare_rc=$?
    for engine in auto signal; do
        R="$WORK/$c-$engine"
        rc=0
        timeout 120 "$ROCSYS_TOP" -b --rows 5 --record "$R" --engine "$engine" -- "$B" "${args[@]}" \
            > "$WORK/$c.$engine.top" 2>&1 || rc=$?
        check "$c ($engine): the status as bare ($rc, bare $bare_rc)" test "$rc" -eq "$bare_rc"
        check "$c ($engine): its output as bare" \
            test "$(cat "$R/output.log" 2> /dev/null)" = "$(cat "$WORK/$c.bare.out")"
        why=$(reason_of "$c")
        line=$(grep -m1 'no collector:' "$WORK/$c.$engine.top")
        echo "    $c ($engine): $line"
        check "$c ($engine): the child shown with its reason ($why)" \
            grep -q "^process [0-9]* .*\[no collector: $why" "$WORK/$c.$engine.top"
        check "$c ($engine): the header's notice names it" \
            grep -q "^notice: 1 process without the collector: pid [0-9]* .*$why" "$WORK/$c.$engine.top"
        json=$(python3 - "$R/session.json" << 'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
bare = [p for p in s["processes"] if p.get("no_collector")]
print(s["sampling"]["engine"], len(bare), bare[0]["no_collector"] if bare else "")
EOF
        )
        read -r used n json_why <<< "$json"
        check "$c ($engine): session.json has one process without the collector ($n: $json_why)" \
            test "$n" = 1 -a -n "$(grep -F "$why" <<< "$json_why")"
        check "$c ($engine): --replay shows it with its reason" \
            grep -q "^process [0-9]* .*\[no collector: $why" <("$ROCSYS_TOP" --replay "$R" -b 2>&1)
        burn=$(awk -v f="$(burn_of "$c")" '$0 ~ ";" f " " { s += $NF } END { print s + 0 }' \
            "$R/stacks.folded" 2> /dev/null || echo 0)
        if [ "$used" = perf ] && [ "$c" != setuid ]; then
            check "$c ($engine, perf): sampled from outside, $(burn_of "$c") named ($burn samples)" \
                test "$burn" -ge 300
            check "$c ($engine, perf): the reason says so" grep -q "sampled from outside only" <<< "$json_why"
        else
            check "$c ($engine, $used): the reason says it is not sampled" grep -q "not sampled" <<< "$json_why"
        fi
    done
done
finish
