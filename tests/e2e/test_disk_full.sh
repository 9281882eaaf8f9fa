#!/usr/bin/env bash
# End-to-end: a recording whose disk fills up (a 48 KiB tmpfs as DIR; a disk another program
# fills mid-run) or whose directory is removed mid-run is never taken for a complete one: the
# target runs to its end undisturbed, the header says the recording stopped, rocsys-top exits 74
# with one line naming the file and the reason, what was written stays readable, and --replay
# says the recording is incomplete.
# The file systems are tmpfs mounts in a private mount namespace (the script re-runs itself
# under unshare -m).
if [ "${ROCSYS_DISK_NS:-}" != 1 ]; then
    : "${ROCSYS_TOP:?run through ctest}"
    [ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for unshare -m and mount (uid $(id -u))"; exit 77; }
    if ! msg=$(unshare -m sh -c 'mount -t tmpfs -o size=64k none /mnt' 2>&1); then
        echo "SKIP: cannot mount a tmpfs in a private mount namespace: $msg"
        exit 77
    fi
    exec env ROCSYS_DISK_NS=1 unshare -m bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
CHECKER="$ROCSYS_PROGRAMS/rocsys-trace-check"
trap 'umount -l "$WORK/small" "$WORK/mid" 2> /dev/null; e2e_cleanup' EXIT

# -- a full disk: 48 KiB for the whole recording
mkdir -p "$WORK/small"
mount -t tmpfs -o size=48k none "$WORK/small"
rc=0
"$ROCSYS_TOP" --record "$WORK/small/rec" -b -d 10 --rows 3 -- "$ROCSYS_DEMO" --seconds 4 \
    > "$WORK/full.out" 2> "$WORK/full.err" || rc=$?
check "full disk: exit 74, not the target's 0 (got $rc)" test "$rc" -eq 74
check "full disk: one line on stderr says which file and why (stderr: $(head -c 400 "$WORK/full.err"))" \
    grep -q '^rocsys-top: the recording is incomplete: [a-z_.]*: No space left on device$' "$WORK/full.err"
check "full disk: the target ran to its end" grep -q 'rocsys-demo: done' "$WORK/full.out"
check "full disk: no session.json claims a complete recording" \
    bash -c "! grep -q '\"complete\": true' '$WORK/small/rec/session.json' 2>/dev/null"
if [ -s "$WORK/small/rec/trace.pftrace" ]; then
    "$CHECKER" "$WORK/small/rec/trace.pftrace" > "$WORK/check-full.txt" 2>&1 || true
    check "full disk: the trace is readable up to where it stops" grep -q 'violations 0' "$WORK/check-full.txt"
fi
rc=0
"$ROCSYS_TOP" --replay "$WORK/small/rec" -b --rows 3 > "$WORK/replay-full.txt" 2>&1 || rc=$?
check "full disk: --replay shows what there is (exit $rc)" test "$rc" -eq 0 -o "$rc" -eq 1
if [ "$rc" -eq 0 ]; then
    check "full disk: --replay says the recording is incomplete" \
        grep -Eq '^notice: .*(no session.json|killed|incomplete)' "$WORK/replay-full.txt"
fi

# -- the disk fills up while the target runs (another program takes the last of it), once the
# trace holds samples by its own count (rocsys-trace-check): 2 s after the start on an idle
# machine, 6.5 s with the suite and two busy loops beside it (a fixed 2 s filled the disk before
# anything was written: output.log was the file that failed); the demo runs long enough for that
mkdir -p "$WORK/mid"
mount -t tmpfs -o size=1m none "$WORK/mid"
"$ROCSYS_TOP" --record "$WORK/mid/rec" -b -d 10 --rows 3 -- "$ROCSYS_DEMO" --seconds 20 \
    > "$WORK/mid.out" 2> "$WORK/mid.err" &
pid=$!
held=0
for ((i = 0; i < 600 && held <= 100; i++)); do
    sleep 0.1
    held=$({ "$CHECKER" "$WORK/mid/rec/trace.pftrace" 2> /dev/null || true; } |
        sed -n 's/.*samples \([0-9]*\).*/\1/p' | head -n 1)
    held=${held:-0}
done
check "disk full mid-run: the trace held samples before the disk filled ($held)" test "$held" -gt 100
dd if=/dev/zero of="$WORK/mid/filler" bs=4k > /dev/null 2>&1 || true
rc=0
wait "$pid" || rc=$?
check "disk full mid-run: exit 74 (got $rc)" test "$rc" -eq 74
check "disk full mid-run: one line says which file and why (stderr: $(head -c 400 "$WORK/mid.err"))" \
    grep -q '^rocsys-top: the recording is incomplete: [a-z_.]*: No space left on device$' "$WORK/mid.err"
check "disk full mid-run: the header says the recording stopped, while the target runs ($(grep -m 1 '^notice: RECORDING' "$WORK/mid.out" || echo 'no notice'))" \
    awk '/^rocsys-top frame /{ running = /target \[running\]/ }
        running && /^notice: RECORDING STOPPED: trace.pftrace: No space left on device/{ f = 1 }
        END{ exit !f }' "$WORK/mid.out"
check "disk full mid-run: the target ran to its end" grep -q 'rocsys-demo: done' "$WORK/mid.out"
"$CHECKER" "$WORK/mid/rec/trace.pftrace" > "$WORK/check-mid.txt" 2>&1 || true
check "disk full mid-run: the trace written before is readable" grep -q 'violations 0' "$WORK/check-mid.txt"
samples=$(sed -n 's/.*samples \([0-9]*\).*/\1/p' "$WORK/check-mid.txt" | head -1)
check "disk full mid-run: it holds the samples of before (${samples:-0})" test "${samples:-0}" -gt 100

# -- the recording directory removed while the target runs (its files live on unlinked;
# session.json, made at the end, cannot be)
"$ROCSYS_TOP" --record "$WORK/gone" --no-tui -- "$ROCSYS_DEMO" --seconds 3 \
    > "$WORK/gone.out" 2> "$WORK/gone.err" &
pid=$!
# (once rocsys-top has made it and opened its files: its start takes over 1.5 s on a loaded
# machine, and a directory removed before would be made afresh)
for ((i = 0; i < 300; i++)); do [ -e "$WORK/gone/trace.pftrace" ] && break; sleep 0.1; done
sleep 0.5
rm -rf "$WORK/gone"
rc=0
wait "$pid" || rc=$?
check "directory removed: exit 74 (got $rc)" test "$rc" -eq 74
check "directory removed: one line says so" \
    grep -q '^rocsys-top: the recording is incomplete: session.json: No such file or directory$' "$WORK/gone.err"
# (a read-only remount cannot be tried: the kernel refuses it, EBUSY, while files are open for
# writing, which a running recording always has)

# -- a recording that worked says so
rc=0
"$ROCSYS_TOP" --record "$WORK/ok" --no-tui -- "$ROCSYS_DEMO" --seconds 1 > /dev/null 2>&1 || rc=$?
check "a complete recording: exit 0 (got $rc)" test "$rc" -eq 0
check "a complete recording: session.json says complete, nothing incomplete" \
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d['complete'] is True and d['incomplete_files'] == []))" "$WORK/ok/session.json"
finish
