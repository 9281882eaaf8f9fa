#!/usr/bin/env bash
# End-to-end: SIGTERM / SIGINT to rocsys-top are passed to the target, which ends; rocsys-top
# exits with 128+signal and leaves no process behind; -n N ends a running target.
source "$(dirname "$0")/lib.sh"

for sig in TERM INT; do
    rc=0
    # a script's background jobs start with SIGINT ignored: give rocsys-top a normal one
    env --default-signal=INT,QUIT "$ROCSYS_TOP" -b -d 2 -- "$TP/tp_sleep" 60 > "$WORK/f.txt" 2>&1 &
    pid=$!
    for i in $(seq 50); do grep -q '^rocsys-top frame' "$WORK/f.txt" && break; sleep 0.1; done
    target=$(pgrep -P $pid -x tp_sleep | head -1 || true)
    kill -$sig $pid
    wait $pid || rc=$?
    want=$((128 + $(kill -l $sig)))
    check "SIG$sig: exit $rc, want $want" test "$rc" -eq "$want"
    check "SIG$sig: the target is gone" bash -c "! kill -0 ${target:-999999} 2>/dev/null"
    check "SIG$sig: session file removed" bash -c "! ls /dev/shm/rocsys-top-$pid-* 2>/dev/null | grep -q ."
done

rc=0
start=$(date +%s)
"$ROCSYS_TOP" -b -d 2 -n 3 -- "$TP/tp_sleep" 60 > "$WORK/n.txt" || rc=$?
check "-n 3: ended early ($(( $(date +%s) - start )) s)" test $(( $(date +%s) - start )) -lt 20
check "-n 3: exit 143 (target terminated), got $rc" test "$rc" -eq 143
n=$(grep -c '^rocsys-top frame' "$WORK/n.txt")
check "-n 3: 3 or 4 frames (got $n)" test "$n" -ge 3 -a "$n" -le 4
# a front end killed with SIGKILL leaves its file; the next session sweeps it away. Other tests
# running at the same time start sessions that sweep too, so this runs with a private /dev/shm
# (a tmpfs in a private mount namespace) where only these two sessions live.
cat > "$WORK/sigkill.sh" <<'EOS'
set -u
"$ROCSYS_TOP" -b -d 2 -- "$TP/tp_sleep" 60 > /dev/null 2>&1 &
pid=$!
orphan=
for i in $(seq 50); do
    orphan=$(pgrep -P $pid -x tp_sleep | head -1 || true)
    [ -n "$orphan" ] && ls /dev/shm/rocsys-top-$pid-* >/dev/null 2>&1 && break
    sleep 0.1
done
kill -KILL $pid
wait $pid 2>/dev/null || true
[ -n "$orphan" ] && kill -KILL "$orphan" 2>/dev/null || true
ls /dev/shm/rocsys-top-$pid-* >/dev/null 2>&1 && echo left
"$ROCSYS_TOP" -b -- "$TP/tp_exit" 0 10 > /dev/null
ls /dev/shm/rocsys-top-$pid-* >/dev/null 2>&1 || echo swept
EOS
if unshare -m true 2>/dev/null; then
    out=$(TP="$TP" unshare -m bash -c 'mount -t tmpfs rocsys-shm /dev/shm && exec bash "$1"' _ \
        "$WORK/sigkill.sh")
    check "SIGKILLed session left its file" grep -qx left <<<"$out"
    check "the next session swept it" grep -qx swept <<<"$out"
else
    echo "note: no private mount namespace (not root?): SIGKILL sweep not checked"
fi
finish
