#!/usr/bin/env bash
# End-to-end: time a thread spends waiting for the device inside HIP calls (issue 18 part 3).
# tp_gpu_wait (tests/programs/gpu_wait_main.c) runs 40 rounds of 10 ms of CPU in wait_compute()
# and one hipDeviceSynchronize() of the stand-in HIP library from wait_sync(), which takes 10 ms
# spinning (as HIP's default synchronization does) or asleep (FAKEHIP_SYNC=sleep). The samples
# inside the wait must be one "[gpu wait] hipDeviceSynchronize" leaf under wait_sync, with the
# wait's true share (50 %, within 3 points) in CPU mode when it spins and in wall mode when it
# sleeps, with both engines; the header's total is the calls' time (~400 ms) with the CPU they
# burned apart; the HIP API section says the same; --replay rebuilds all of it.
source "$(dirname "$0")/lib.sh"

W=$TP/tp_gpu_wait
[ -x "$W" ] || skip "tp_gpu_wait not built"

# wait_share FRAME: the inclusive % of the [gpu wait] leaf right under wait_sync in the tree
wait_share() {
    awk '/^== Call tree/ {h=1; next} /^== / {h=0}
        h && / wait_sync( |$)/ {p=1; next}
        h && p && /\[gpu wait\] hipDeviceSynchronize/ {print $1; exit}
        h && p {p=0}' <<< "$1"
}
# totals FRAME: "WAIT CPU BLOCKED" (ms) of the header's gpu wait line
totals() { sed -n 's/^gpu wait \([0-9.]*\) ms  (CPU \([0-9.]*\) ms, blocked \([0-9.]*\) ms)$/\1 \2 \3/p' <<< "$1" | tail -1; }

for how in spin sleep; do
    mode=cpu
    [ "$how" = sleep ] && mode=wall
    for engine in auto signal; do
        R="$WORK/$how-$engine"
        rc=0
        FAKEHIP_SYNC=$how FAKEHIP_SYNC_MS=10 timeout 120 "$ROCSYS_TOP" -b --rows 40 \
            --sample "$mode" --engine "$engine" --record "$R" -- "$W" 40 > "$WORK/$how-$engine.txt" 2>&1 || rc=$?
        check "$how ($mode, $engine): exit 0 (got $rc)" test "$rc" -eq 0
        F=$(last_frame "$WORK/$how-$engine.txt")
        share=$(wait_share "$F")
        check "$how ($mode, $engine): [gpu wait] hipDeviceSynchronize under wait_sync, ${share:-missing}% within 3 of 50%" \
            within "$share" 50 3
        read -r wait cpu blocked <<< "$(totals "$F")"
        check "$how ($mode, $engine): the header's gpu wait ${wait:-missing} ms, 380-480 ms" \
            awk -v w="$wait" 'BEGIN { exit !(w != "" && w >= 380 && w < 480) }'
        if [ "$how" = spin ]; then
            check "$how: the wait burned CPU (${cpu:-?} of ${wait:-?} ms)" \
                awk -v w="$wait" -v c="$cpu" 'BEGIN { exit !(c != "" && c >= 0.9 * w) }'
        else
            check "$how: the wait was blocked (${blocked:-?} of ${wait:-?} ms)" \
                awk -v w="$wait" -v b="$blocked" 'BEGIN { exit !(b != "" && b >= 0.9 * w) }'
        fi
        check "$how ($mode, $engine): the HIP API section's wait line" \
            grep -q "^gpu wait hipDeviceSynchronize: 40 calls, " <<< "$F"
        P=$(last_frame <("$ROCSYS_TOP" --replay "$R" -b --rows 40 2>&1))
        rshare=$(wait_share "$P")
        check "$how ($engine): replay: the leaf (${rshare:-missing}%) and the totals" \
            bash -c "$(declare -f within); within '$rshare' '$share' 0.2 && [ '$(totals "$P")' = '$wait $cpu $blocked' ]"
    done
done
# a sleeping wait in CPU mode: no CPU samples in it, but its time is still in the header
FAKEHIP_SYNC=sleep FAKEHIP_SYNC_MS=10 "$ROCSYS_TOP" -b -- "$W" 40 > "$WORK/cpu-sleep.txt" 2>&1 || true
F=$(last_frame "$WORK/cpu-sleep.txt")
read -r wait cpu blocked <<< "$(totals "$F")"
check "sleep (cpu): the header's gpu wait ${wait:-missing} ms, nearly all blocked (${blocked:-?})" \
    awk -v w="$wait" -v b="$blocked" 'BEGIN { exit !(w >= 380 && b >= 0.9 * w) }'
finish
