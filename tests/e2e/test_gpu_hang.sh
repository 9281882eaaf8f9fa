#!/usr/bin/env bash
# End-to-end: a GPU library that never answers neither holds rocsys-top's views back nor keeps it
# from ending (issue 25: ROCm SMI 6.1's rsmi_init loops for ever without a card, and rocsys-top
# could then be ended only with SIGKILL). A stand-in librocm_smi64 (ROCSYS_ROCM_SMI) whose
# rsmi_init never returns, or whose third busy-percent read never returns. Checked: frames come
# up and the GPU view says the library did not answer, naming the call; SIGTERM, SIGINT and q
# end rocsys-top promptly with the usual exit status and leave no target behind; a target that
# ends on its own gives its exit status; --attach-gpu likewise; a read stuck after the start
# shows the readings as stale, naming the call.
source "$(dirname "$0")/lib.sh"
LIB="$TP/libstandin-rsmi-hang.so"
[ -e "$LIB" ] || skip "the stand-in library was not built: $LIB"
export ROCSYS_ROCM_SMI="$LIB"
# every rocsys-top of this test is killed at the latest this many seconds after it started (a
# regression must fail the checks, not hang the test)
GUARD_S=120
guards=()
leftovers=() # rocsys-top and targets that a failure could leave behind: "PID NAME"
# end_leftovers: SIGKILL what is still running of them (checked by name: a pid may be reused)
end_leftovers() {
    local e
    for e in "${leftovers[@]}"; do
        set -- $e
        [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && kill -KILL "$1" 2>/dev/null || true
    done
}
trap 'for g in "${guards[@]}"; do kill "$g" 2>/dev/null || true; done; end_leftovers; e2e_cleanup' EXIT

# guard PID: SIGKILL PID after GUARD_S seconds
guard() {
    (sleep "$GUARD_S" && kill -KILL "$1" 2>/dev/null) > /dev/null 2>&1 &
    guards+=($!)
    leftovers+=("$1 rocsys-top")
}
# wait_match FILE PATTERN SECONDS: until FILE has a line matching PATTERN (extended regex)
wait_match() {
    local n=$(($3 * 10))
    for ((i = 0; i < n; i++)); do grep -Eq -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "--- $1 (waited $3 s for: $2) ---" >&2
    tail -5 "$1" >&2 || true
    return 1
}
# ended_within PID SECONDS: PID (a child of this shell) ended within SECONDS; its status in RC
ended_within() {
    local n=$(($2 * 10))
    for ((i = 0; i < n; i++)); do
        if ! kill -0 "$1" 2>/dev/null; then
            RC=0
            wait "$1" || RC=$?
            return 0
        fi
        sleep 0.1
    done
    return 1
}
# target_of PID: the pid of PID's child tp_sleep ("" if none)
target_of() { pgrep -P "$1" -x tp_sleep | head -1 || true; }
# rocsys_in SESSION: the pid of the rocsys-top running in tmux session SESSION ("" if none)
rocsys_in() {
    local pane
    pane=$(tmux -L "$TMUX_SOCKET" list-panes -t "$1" -F '#{pane_pid}' | head -1)
    pgrep -P "$pane" -x rocsys-top | head -1 || true
}
# remember PID NAME: SIGKILL it at exit if it is still running
remember() { [ -z "$1" ] || leftovers+=("$1 $2"); }
NOANSWER='GPU library did not answer \(rsmi_init after [0-9]+ s\)'

# ---- batch frames, rsmi_init never returns; SIGTERM and SIGINT end rocsys-top ----
for sig in TERM INT; do
    f="$WORK/sig$sig.txt"
    rm -f "$WORK/mark"
    # a script's background jobs start with SIGINT ignored: give rocsys-top a normal one
    STANDIN_RSMI_MARK="$WORK/mark" env --default-signal=INT,QUIT "$ROCSYS_TOP" -b -d 2 -- \
        "$TP/tp_sleep" 600 > "$f" 2> "$f.err" &
    pid=$!
    guard $pid
    check "SIG$sig: frames come up" wait_match "$f" '^rocsys-top frame' 30
    check "SIG$sig: the GPU view says the library did not answer" \
        wait_match "$f" "^gpu: unavailable: $NOANSWER" 30
    check "SIG$sig: the stand-in's rsmi_init was entered" test -e "$WORK/mark"
    frames=$(grep -c '^rocsys-top frame' "$f" || true)
    check "SIG$sig: frames keep coming ($frames, then more)" \
        wait_match "$f" "^rocsys-top frame $((frames + 1))\b" 30
    target=$(target_of $pid)
    remember "$target" tp_sleep
    check "SIG$sig: the target runs" test -n "$target"
    kill -$sig $pid
    RC=
    check "SIG$sig: rocsys-top ends within 15 s" ended_within $pid 15
    want=$((128 + $(kill -l $sig)))
    check "SIG$sig: exit status ${RC:-none}, want $want" test "${RC:-x}" = "$want"
    check "SIG$sig: the target is gone" bash -c "! kill -0 ${target:-999999} 2>/dev/null"
    kill -KILL $pid 2>/dev/null || true
done

# ---- -n: ends by itself; a target that ends on its own gives its status ----
f="$WORK/n.txt"
start=$(date +%s)
"$ROCSYS_TOP" -b -d 2 -n 3 -- "$TP/tp_sleep" 600 > "$f" 2> "$f.err" &
pid=$!
guard $pid
wait_match "$f" '^rocsys-top frame' 30 || true
remember "$(target_of $pid)" tp_sleep
RC=0
wait $pid || RC=$?
check "-n 3: ended in $(($(date +%s) - start)) s (< 60)" test $(($(date +%s) - start)) -lt 60
check "-n 3: exit 143 (target terminated), got $RC" test "$RC" -eq 143
n=$(grep -c '^rocsys-top frame' "$f" || true)
check "-n 3: 3 or 4 frames (got $n)" test "$n" -ge 3 -a "$n" -le 4

f="$WORK/exit.txt"
RC=0
timeout -s KILL $GUARD_S "$ROCSYS_TOP" -b -d 2 -- "$TP/tp_exit" 3 100 > "$f" 2> "$f.err" || RC=$?
check "target exits 3 on its own: rocsys-top exits 3, got $RC" test "$RC" -eq 3
check "target exits 3: its last frame is complete" grep -q 'tp_exit: exiting with 3' "$f"
check "target exits 3: stdout complete (ends with a newline)" test -z "$(tail -c 1 "$f")"

# ---- the display: the GPU view says so, q ends rocsys-top; so does SIGTERM ----
S=quit
tmux_start $S 120 35 "$ROCSYS_TOP" -d 2 -- "$TP/tp_sleep" 600
check "tui: display up" wait_screen $S 'elapsed' 30
tmux_keys $S 5
check "tui: the GPU view says the library did not answer" wait_screen $S "GPU: unavailable: $NOANSWER" 30
rt=$(rocsys_in $S)
remember "$rt" rocsys-top
target=$(target_of "${rt:-999999}")
remember "$target" tp_sleep
check "tui: the target runs" test -n "$target"
tmux_keys $S q
check "tui: q ends rocsys-top within 15 s" wait_file "$WORK/$S.rc" 15
check "tui: q: exit 143 (target terminated), got $(cat "$WORK/$S.rc" 2>/dev/null)" \
    test "$(cat "$WORK/$S.rc" 2>/dev/null)" = 143
check "tui: q: the target is gone" bash -c "! kill -0 ${target:-999999} 2>/dev/null"
tmux_kill $S

S=term
tmux_start $S 120 35 "$ROCSYS_TOP" -d 2 -- "$TP/tp_sleep" 600
check "tui: display up (SIGTERM)" wait_screen $S 'elapsed' 30
rt=$(rocsys_in $S)
remember "$rt" rocsys-top
remember "$(target_of "${rt:-999999}")" tp_sleep
check "tui: rocsys-top found" test -n "$rt"
kill -TERM "${rt:-999999}" 2>/dev/null || true
check "tui: SIGTERM ends rocsys-top within 15 s" wait_file "$WORK/$S.rc" 15
check "tui: SIGTERM: exit 143, got $(cat "$WORK/$S.rc" 2>/dev/null)" \
    test "$(cat "$WORK/$S.rc" 2>/dev/null)" = 143
tmux_kill $S

# ---- --attach-gpu: the dashboard comes up and ends on SIGTERM ----
f="$WORK/attach.txt"
"$ROCSYS_TOP" --attach-gpu -b -d 2 > "$f" 2> "$f.err" &
pid=$!
guard $pid
check "attach-gpu: says the library did not answer" wait_match "$f" "^gpu: unavailable: $NOANSWER" 30
kill -TERM $pid
RC=
check "attach-gpu: SIGTERM ends it within 15 s" ended_within $pid 15
check "attach-gpu: exit 0 (got ${RC:-none})" test "${RC:-x}" = 0
kill -KILL $pid 2>/dev/null || true

# ---- a read that never returns after the start: stale readings, the call named ----
f="$WORK/busy.txt"
STANDIN_RSMI_HANG=busy "$ROCSYS_TOP" --attach-gpu -b -d 5 --gpu-interval 100 > "$f" 2> "$f.err" &
pid=$!
guard $pid
check "busy: the stand-in GPU shown" wait_match "$f" 'Hanging stand-in GPU' 30
check "busy: stale, the call named" \
    wait_match "$f" '^gpu: STALE: last reading [0-9]+ s ago \(rsmi_dev_busy_percent_get did not answer\)' 30
kill -TERM $pid
RC=
check "busy: SIGTERM ends it within 15 s" ended_within $pid 15
check "busy: exit 0 (got ${RC:-none})" test "${RC:-x}" = 0
kill -KILL $pid 2>/dev/null || true
finish
