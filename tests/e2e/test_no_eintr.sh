#!/usr/bin/env bash
# End-to-end (issue 12): no system call of the target returns EINTR, returns early or behaves
# otherwise differently because of rocsys-top, in CPU sampling (the default) and --sample wall,
# at the default rate and at -f 5000 (interruption bugs show more at high rates). tp_waits
# makes nanosleep, sleep, poll, epoll_wait, select, pipe read, futex and cond_timedwait calls
# with no retry loop and counts, per kind, calls, EINTR returns, early returns and other
# errors. Bare, all counters are 0 (else the machine itself interrupts: skip); under
# rocsys-top they must be 0 too, with the same calls per kind, the target's output in the
# recording's output.log, and a profile that sampled tp_waits's CPU burner. The default engine
# samples from outside where perf events are permitted (perf); where they are not, the test
# skips (the in-target sampler's signals can interrupt waits: a documented limit).
source "$(dirname "$0")/lib.sh"
PROG=$TP/tp_waits
[ -x "$PROG" ] || { fail "tp_waits not built ($PROG)"; finish; exit 1; }

# field LINE NAME: the number after NAME= in a "waits KIND ..." line
field() { sed -nE "s/.* $2=([0-9]+).*/\1/p" <<<"$1"; }
# kind_line FILE KIND: the "waits KIND ..." line of an output file (no carriage return)
kind_line() { tr -d '\r' <"$1" | awk -v k="$2" '$1 == "waits" && $2 == k' | head -1; }
# count_lines FILE: how many "waits KIND calls=..." lines
count_lines() { tr -d '\r' <"$1" | grep -c '^waits [a-z_]* calls=' || true; }

if ! "$ROCSYS_TOP" -b -n 1 --engine perf -- true >/dev/null 2>&1; then
    skip "perf events not permitted: the default engine is the in-target sampler here"
fi

# ---- bare: the program itself and the machine are clean ----
rc=0
"$PROG" >"$WORK/bare.txt" 2>&1 || rc=$?
check "bare: exit 0 (got $rc)" test "$rc" -eq 0
check "bare: 'waits done' printed" grep -q '^waits done$' "$WORK/bare.txt"
kinds=$(awk '$1 == "waits" && $3 ~ /^calls=/ {print $2}' "$WORK/bare.txt")
nbare=$(count_lines "$WORK/bare.txt")
check "bare: 8 call kinds reported (got $nbare)" test "$nbare" -eq 8
[ "$failures" -eq 0 ] || { cat "$WORK/bare.txt"; finish; exit 1; }
if grep -Ev 'eintr=0 early=0 errors=0$|^waits done$' "$WORK/bare.txt" >"$WORK/bare_bad.txt"; then
    skip "bare run not clean, the machine itself interrupts or delays waits: $(tr '\n' ';' <"$WORK/bare_bad.txt")"
fi

# run_mode LABEL KEY ARGS...: tp_waits under rocsys-top ARGS with a recording; checks every kind
run_mode() {
    local label=$1 key=$2 d=$WORK/rec-$2
    shift 2
    local rc=0
    "$ROCSYS_TOP" -b -n 40 "$@" --record "$d" -- "$PROG" >"$WORK/frames-$key.txt" \
        2>"$WORK/err-$key.txt" || rc=$?
    # what the session actually used (mode, rate, timer, engine), for the messages
    local how
    how=$(grep -m1 '^mode ' "$WORK/frames-$key.txt" |
        sed -nE 's/^mode ([a-z]+ [0-9]+ Hz).*(timer [^ ]+) +(engine [a-z]+).*/\1, \3, \2/p' || true)
    local tag="$label [${how:-mode line missing}]"
    check "$tag: rocsys-top exit 0 (got $rc)" test "$rc" -eq 0
    local log=$d/output.log
    check "$tag: 'waits done' in output.log" grep -q '^waits done' "$log"
    local n
    n=$(count_lines "$log")
    check "$tag: $n calls-lines in output.log, bare has $nbare" test "$n" -eq "$nbare"
    local k line bl c bc e x r
    for k in $kinds; do
        line=$(kind_line "$log" "$k")
        if [ -z "$line" ]; then
            fail "$tag: $k: no line in output.log"
            continue
        fi
        bl=$(kind_line "$WORK/bare.txt" "$k")
        c=$(field "$line" calls) bc=$(field "$bl" calls)
        e=$(field "$line" eintr) x=$(field "$line" early) r=$(field "$line" errors)
        check "$tag: $k eintr=$e early=$x errors=$r calls=$c (want 0 0 0, calls=$bc as bare)" \
            test "$e" = 0 -a "$x" = 0 -a "$r" = 0 -a "$c" = "$bc"
    done
    check "$tag: stacks.folded written" test -s "$d/stacks.folded"
    check "$tag: stacks.folded has tp_waits's CPU burner (waits_burn)" \
        grep -Eq ';waits_burn( |;)' "$d/stacks.folded"
    if [ -s "$WORK/err-$key.txt" ]; then
        echo "--- $label: rocsys-top stderr:"
        cat "$WORK/err-$key.txt"
    fi
}

run_mode "cpu mode, default rate" cpu
run_mode "cpu mode, -f 5000" cpu5k -f 5000
run_mode "wall mode, default rate" wall --sample wall
run_mode "wall mode, -f 5000" wall5k --sample wall -f 5000
# (--engine signal, the in-target sampler that auto keeps for Python programs, interrupts such
# waits: a documented limit, README "Known limits")
finish
