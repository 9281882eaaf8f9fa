#!/usr/bin/env bash
# End-to-end: the files rocsys-top makes are the user's alone and cannot be redirected: a
# recording directory 0700 with files 0600, a symbolic link planted in it refused (the file it
# points to untouched), a directory of another user refused, and the output log in TMPDIR
# removed after a clean run, kept and named after a failed one.
source "$(dirname "$0")/lib.sh"

umask 022
rc=0
"$ROCSYS_TOP" --record "$WORK/rec" --no-tui -- "$ROCSYS_DEMO" --seconds 1 > /dev/null 2>&1 || rc=$?
check "a recording: exit 0 (got $rc)" test "$rc" -eq 0
check "the recording directory is 0700" test "$(stat -c %a "$WORK/rec")" = 700
modes=$(stat -c %a "$WORK/rec"/* | sort -u | tr '\n' ' ')
check "its files are 0600 ($modes)" test "$modes" = "600 "

# a link planted where a file of the recording goes
mkdir -m 700 "$WORK/planted"
echo "precious" > "$WORK/victim"
ln -s "$WORK/victim" "$WORK/planted/trace.pftrace"
rc=0
"$ROCSYS_TOP" --record "$WORK/planted" --no-tui -- "$ROCSYS_DEMO" --seconds 1 > /dev/null \
    2> "$WORK/planted.err" || rc=$?
check "a planted link: exit 1 (got $rc)" test "$rc" -eq 1
check "a planted link: one line" test "$(wc -l < "$WORK/planted.err")" -eq 1
check "a planted link: the file it points to is untouched" test "$(cat "$WORK/victim")" = precious

# a directory of another user
if id nobody > /dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    mkdir "$WORK/theirs"
    chown nobody "$WORK/theirs"
    rc=0
    "$ROCSYS_TOP" --record "$WORK/theirs" --no-tui -- "$ROCSYS_DEMO" --seconds 1 > /dev/null \
        2> "$WORK/theirs.err" || rc=$?
    check "another user's directory: exit 1 (got $rc)" test "$rc" -eq 1
    check "another user's directory: one line says so" \
        grep -q 'belongs to user .*: refused' "$WORK/theirs.err"
    check "another user's directory: nothing written in it" test -z "$(ls -A "$WORK/theirs")"
else
    echo "SKIP another user's directory: needs root and the user nobody"
fi

# the output log of a run without --record: in TMPDIR, gone after a clean run (no -n: the
# run ends when the target does; with -n 1 a loaded machine could print the frame first, and
# rocsys-top would then end the target itself: status 143, a run that did not end cleanly)
mkdir -p "$WORK/tmp"
TMPDIR="$WORK/tmp" "$ROCSYS_TOP" -b -- "$TP/tp_exit" 0 100 > /dev/null 2>&1 || true
check "clean run: its output log is removed" test -z "$(ls -A "$WORK/tmp")"
rc=0
TMPDIR="$WORK/tmp" "$ROCSYS_TOP" -b -- "$TP/tp_exit" 3 100 > /dev/null 2> "$WORK/fail.err" || rc=$?
check "failed run: rocsys-top exits with the target's 3 (got $rc)" test "$rc" -eq 3
log=$(ls "$WORK/tmp"/rocsys-top-*.log 2> /dev/null | head -n 1)
check "failed run: its output log is kept" test -n "$log"
check "failed run: and named on stderr" grep -q "the target's output is in ${log:-none}" "$WORK/fail.err"
check "failed run: the log is 0600" test "$(stat -c %a "${log:-/}" 2> /dev/null)" = 600
finish
