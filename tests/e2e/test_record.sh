#!/usr/bin/env bash
# End-to-end: --record DIR. The demo's recording holds its threads by name and its documented
# shares (checked by the project's trace reader, which also checks the trace's meaning), protoc
# accepts the framing, stacks.folded agrees with the trace, session.json says how the session
# ended; a crash, SIGTERM, SIGINT and SIGHUP all leave complete, valid files; an existing
# recording is refused without --force; a directory that cannot be written is an error before
# the target starts; headless mode prints a summary.
source "$(dirname "$0")/lib.sh"
CHECKER="$ROCSYS_PROGRAMS/rocsys-trace-check"
[ -x "$CHECKER" ] || skip "rocsys-trace-check not built"

# json_get FILE KEY: a top-level value of session.json (python3's json module parses it)
json_get() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

D=$WORK/rec
rc=0
"$ROCSYS_TOP" --record "$D" --cpu-timer perf -- "$ROCSYS_DEMO" --seconds 5 > "$WORK/summary.txt" || rc=$?
check "exit 0 (got $rc)" test "$rc" -eq 0
for f in trace.pftrace profile.txt stacks.folded session.json output.log; do
    check "$f written" test -s "$D/$f"
done
check "headless summary" grep -q "top functions" "$WORK/summary.txt"
check "session.json parses" json_get "$D/session.json" tool
check "session.json: ended by the target" test "$(json_get "$D/session.json" ended_by)" = "target ended"
check "session.json: exit status" test "$(json_get "$D/session.json" exit_status)" = 0
check "session.json lists trace.pftrace" grep -q '"trace.pftrace"' "$D/session.json"
"$CHECKER" "$D/trace.pftrace" > "$WORK/check.txt"
check "trace: every meaning check passes" grep -q 'violations 0' "$WORK/check.txt"
for t in solver-0 solver-1 sleeper; do
    check "trace: thread $t" grep -Eq "^thread [0-9]+ [0-9]+ $t " "$WORK/check.txt"
done
for spec in demo_solve:50 demo_butterfly:30 demo_reduce:20; do
    fn=${spec%%:*} want=${spec##*:}
    got=$(awk -v fn="$fn" '$1=="self" && $2==fn {print $3}' "$WORK/check.txt")
    check "trace: $fn ${got:-missing}% within 3 of $want%" within "$got" "$want" 3
    # stacks.folded: the leaf's share of all counts
    fol=$(awk -v fn="$fn" '{n=split($1,a,";"); c=$NF; t+=c; if (a[n]==fn) s+=c} END{if(t) printf "%.1f", 100*s/t}' "$D/stacks.folded")
    check "folded: $fn ${fol:-missing}% agrees with the trace (${got:-?}%)" within "$fol" "${got:-0}" 1
    check "profile.txt lists $fn" grep -q "|_$fn " "$D/profile.txt"
done
# process metrics as counter tracks of the demo's process (5 s: a value each second, each after
# the first covering an interval the trace gives): each CPU % value agrees with the
# process's samples in the interval it covers (1000 Hz of CPU time: a sample per ms; within 10
# points), and RSS in bytes. (It compared the largest value with the solvers' mean over the
# whole run, which a loaded machine can put outside the intervals the values cover: 19 for 24.)
cpu_max=$(awk '$1=="track" && $3=="counter" && $4=="\"CPU" {print $(NF)}' "$WORK/check.txt" | head -1)
hz=$(sed -n 's/.*"freq_hz": \([0-9]*\).*/\1/p' "$D/session.json")
read -r nint worst < <(awk -v hz="${hz:-0}" '$1 == "cpu_interval" { dt = ($4 - $3) / 1e9
    if (dt > 0 && hz > 0) { d = $5 - 100 * $6 / (dt * hz); if (d < 0) d = -d; if (d > w) w = d; n++ } }
    END { printf "%d %.1f\n", n, w }' "$WORK/check.txt")
echo "    CPU % counter: ${nint:-0} intervals, largest difference from the samples ${worst:-?} points (max value ${cpu_max:-none})"
check "trace: CPU % counter track with values over intervals (${nint:-0})" test "${nint:-0}" -ge 1
check "trace: each CPU % value within 10 points of the process's samples in its interval (worst ${worst:-?})" \
    awk -v w="${worst:-999}" 'BEGIN { exit !(w <= 10) }'
rss_n=$(awk '$1=="track" && $3=="counter" && $4=="\"RSS\"" && $6=="\"bytes\"" {print $8}' "$WORK/check.txt" | head -1)
check "trace: RSS counter track in bytes (${rss_n:-0} values)" test "${rss_n:-0}" -ge 2
if command -v protoc >/dev/null; then
    check "protoc --decode_raw accepts the trace" bash -c "protoc --decode_raw < '$D/trace.pftrace' > /dev/null"
fi

# an existing recording is refused (before the target starts), --force overwrites it
rc=0
"$ROCSYS_TOP" --record "$D" -- "$TP/tp_exit" 0 10 > /dev/null 2> "$WORK/err.txt" || rc=$?
check "existing recording refused (exit $rc)" test "$rc" -eq 1
check "refusal is one clear line" grep -q "already holds a recording" "$WORK/err.txt"
rc=0
"$ROCSYS_TOP" --record "$D" --force -- "$TP/tp_exit" 3 10 > /dev/null || rc=$?
check "--force: recorded, exit 3 (got $rc)" test "$rc" -eq 3

# a directory that cannot be written: error before the target starts
rc=0
"$ROCSYS_TOP" --record /proc/rocsys-cannot-write -- sh -c "touch '$WORK/started'" > /dev/null \
    2> "$WORK/err2.txt" || rc=$?
check "unwritable directory: exit 1 (got $rc)" test "$rc" -eq 1
check "unwritable directory: message" grep -q "cannot create the recording directory" "$WORK/err2.txt"
check "unwritable directory: the target never started" test ! -e "$WORK/started"

# a crashing target: complete files saying so
rc=0
"$ROCSYS_TOP" --record "$WORK/crash" -- "$TP/tp_crash" > /dev/null || rc=$?
check "crash: exit 139 (got $rc)" test "$rc" -eq 139
check "crash: session.json says SIGSEGV" grep -q '"status": "killed by SIGSEGV' "$WORK/crash/session.json"
check "crash: trace valid" "$CHECKER" "$WORK/crash/trace.pftrace"
check "crash: crash_burn in the trace" bash -c "'$CHECKER' '$WORK/crash/trace.pftrace' | grep -q '^self crash_burn '"

# signals to rocsys-top while recording: the target ends, the recording is complete
for sig in TERM INT HUP; do
    d=$WORK/sig-$sig
    env --default-signal=INT,QUIT "$ROCSYS_TOP" --record "$d" -d 2 -- "$TP/tp_sleep" 30 \
        > /dev/null 2>&1 &
    pid=$!
    for i in $(seq 50); do [ -s "$d/output.log" ] && break; sleep 0.1; done
    kill -$sig $pid
    rc=0
    wait $pid || rc=$?
    check "SIG$sig: session.json written" test -s "$d/session.json"
    check "SIG$sig: session.json says so" grep -q "\"ended_by\": \"SIG$sig to rocsys-top" "$d/session.json"
    check "SIG$sig: trace valid" "$CHECKER" "$d/trace.pftrace"
    check "SIG$sig: profile and folded written" test -e "$d/profile.txt" -a -e "$d/stacks.folded"
done
finish
