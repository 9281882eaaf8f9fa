#!/usr/bin/env bash
# End-to-end: rocsys-top exits with the target's status (128+signal when killed) and explains,
# in one line and with the right exit code, programs it cannot start or profile. Frames that
# cannot be written (standard output on a full disk, /dev/full; closed) end with one line
# naming the reason and exit 74 once the target has run to its end; a reader that stops
# reading (| head) is no error.
source "$(dirname "$0")/lib.sh"

# run_rt EXPECTED_RC STDERR_PATTERN ARGS...: run rocsys-top -b, check status and stderr
run_rt() {
    local want=$1 pat=$2 rc=0; shift 2
    "$ROCSYS_TOP" -b "$@" > "$WORK/frames.txt" 2> "$WORK/err.txt" || rc=$?
    check "'$*': exit $rc, want $want" test "$rc" -eq "$want"
    if [ -n "$pat" ]; then
        check "'$*': stderr matches '$pat'" grep -Eq -- "$pat" "$WORK/err.txt"
        check "'$*': the message is one line" test "$(wc -l < "$WORK/err.txt")" -eq 1
    fi
}

run_rt 0 "" -- "$TP/tp_exit" 0 50
run_rt 7 "" -- "$TP/tp_exit" 7 50
check "status text for exit 7" grep -q '\[exited with 7\]' "$WORK/frames.txt"
# a target that ends before the front end has seen it at all: its process line still gets
# the exit status (not "status unknown"), five times in a row
for i in 1 2 3 4 5; do
    run_rt 5 "" -- "$TP/tp_exit" 5 0
    check "instant target ($i): its process line says exited with 5" \
        grep -Eq '^process [0-9]+ tp_exit:.*\[exited with 5\]' <(last_frame "$WORK/frames.txt")
done
run_rt 139 "" -- "$TP/tp_crash"
check "crash reported as SIGSEGV" grep -q '\[killed by SIGSEGV' "$WORK/frames.txt"
check "crash_burn profiled before the crash" grep -q 'crash_burn' "$WORK/frames.txt"
check "output before the crash kept" grep -q 'tp_crash: before crash' "$WORK/frames.txt"

run_rt 127 "no-such-program-xyz: command not found" -- no-such-program-xyz
run_rt 127 "command not found" -- /nonexistent/dir/prog
printf 'not a program\n' > "$WORK/noexec"
chmod 644 "$WORK/noexec"
run_rt 126 "permission denied" -- "$WORK/noexec"
run_rt 126 "is a directory" -- /
run_rt 2 "unknown option" --bogus -- "$TP/tp_exit" 0
run_rt 2 "not a number from 1 to 10000" -f 0 -- "$TP/tp_exit" 0
run_rt 2 "no program given" -f 100

if [ -x "$TP/tp_static" ]; then
    run_rt 1 "statically linked" -- "$TP/tp_static"
else
    echo "note: tp_static not built (no static libc); static detection not exercised"
fi
# a script whose interpreter is fine is profiled
printf '#!/bin/sh\nexec "%s" 3 50\n' "$TP/tp_exit" > "$WORK/wrapper.sh"
chmod +x "$WORK/wrapper.sh"
run_rt 3 "" -- "$WORK/wrapper.sh"

# setuid to another user: the loader would ignore LD_PRELOAD
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
    cp "$TP/tp_exit" "$WORK/tp_setuid"
    chown nobody "$WORK/tp_setuid"
    chmod 4755 "$WORK/tp_setuid"
    run_rt 1 "setuid" -- "$WORK/tp_setuid" 0
fi
# threads that block the sampling signal cannot be sampled: said, not silently empty
"$ROCSYS_TOP" -b -d 5 --engine signal -- "$TP/tp_blockall" > "$WORK/blocked.txt"
check "blocked sampling signal reported (signal engine)" \
    grep -q '^notice: .*block the sampling signal' "$WORK/blocked.txt"
# the perf engine samples from outside: no signal to block
if "$ROCSYS_TOP" -b -d 5 --engine perf -- "$TP/tp_blockall" > "$WORK/blocked-perf.txt" 2>&1; then
    n=$(awk '$4 == "blocked_work" { n = $3 } END { print n }' "$WORK/blocked-perf.txt")
    check "blocked threads sampled by the perf engine (${n:-0} samples of blocked_work)" \
        test "${n:-0}" -ge 100
    check "no 'not sampled' notice with the perf engine" \
        bash -c "! grep -q 'block the sampling signal' '$WORK/blocked-perf.txt'"
else
    echo "note: perf engine not permitted here: $(head -1 "$WORK/blocked-perf.txt")"
fi

# standard output that cannot take the frames: the target still runs to its end
rc=0
"$ROCSYS_TOP" -b -d 5 --rows 3 -- sh -c '"$1" --seconds 1 && touch "$2"' sh "$ROCSYS_DEMO" \
    "$WORK/ended" > /dev/full 2> "$WORK/full.err" || rc=$?
check "frames to a full disk: exit 74 (got $rc)" test "$rc" -eq 74
check "frames to a full disk: one line says why (stderr: $(head -c 300 "$WORK/full.err"))" \
    grep -qx 'rocsys-top: standard output is incomplete: No space left on device' "$WORK/full.err"
check "frames to a full disk: the target ran to its end" test -e "$WORK/ended"
rc=0
"$ROCSYS_TOP" --help > /dev/full 2> "$WORK/help-full.err" || rc=$?
check "--help to a full disk: exit 74 (got $rc: $(head -c 200 "$WORK/help-full.err"))" test "$rc" -eq 74
rc=0
"$ROCSYS_TOP" --version >&- 2> "$WORK/closed.err" || rc=$?
check "--version with standard output closed: exit 74 (got $rc: $(head -c 200 "$WORK/closed.err"))" \
    test "$rc" -eq 74
set +o pipefail
"$ROCSYS_TOP" -b -d 5 --rows 3 -- "$ROCSYS_DEMO" --seconds 1 2> "$WORK/head.err" | head -n 2 > /dev/null
rc=${PIPESTATUS[0]}
set -o pipefail
check "frames read by head -n 2: exit 0 (got $rc: $(head -c 200 "$WORK/head.err"))" test "$rc" -eq 0

"$ROCSYS_TOP" --help > "$WORK/help.txt"
check "--help lists --freq" grep -q -- '--freq' "$WORK/help.txt"
check "--version" "$ROCSYS_TOP" --version
finish
