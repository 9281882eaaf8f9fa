#!/usr/bin/env bash
# End-to-end: time a thread spends waiting for the device inside HIP calls (issue 18 part 3).
# tp_gpu_wait (tests/programs/gpu_wait_main.c) runs 40 rounds of 10 ms of CPU in wait_compute()
# and one hipDeviceSynchronize() of the stand-in HIP library from wait_sync(), which takes 10 ms
# spinning (as HIP's default synchronization does) or asleep (FAKEHIP_SYNC=sleep). The samples
# inside the wait must be one "[gpu wait] hipDeviceSynchronize" leaf under wait_sync, with the
# wait's true share (within 3 points) in CPU mode when it spins and in wall mode when it
# sleeps, with both engines; the header's total is the calls' time (~400 ms) with the CPU they
# burned apart; the HIP API section says the same; --replay rebuilds all of it. The truth is what
# the program measured of its own waits (it prints it): on a loaded machine a spinning wait is
# preempted and the shares move.
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
# truth OUTPUT_LOG: "WAIT_MS CPU_MS WALL_SHARE CPU_SHARE" of the program's own measures
truth() { sed -n 's/.* waits \([0-9.]*\) ms cpu \([0-9.]*\) ms, share \([0-9.]*\)% of the wall time, \([0-9.]*\)% of the CPU time$/\1 \2 \3 \4/p' "$1"; }
# near GOT WANT: within 5 % of WANT, plus 1 ms (clock reads around each call)
near() { awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && w != "" && d <= 0.05 * w + 1) }'; }
# between GOT LO HI: LO <= GOT <= HI + 1 ms (HI: the program's measure around the calls, which
# also holds what the thread lost to preemption just outside them)
between() { awk -v g="$1" -v l="$2" -v h="$3" 'BEGIN { exit !(g != "" && h != "" && g >= l && g <= h + 1) }'; }
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
        # the truth, as the program measured it (a spinning wait is preempted on a loaded
        # machine, and then burns less CPU than it lasts)
        read -r t_wait t_cpu t_wall_pct t_cpu_pct <<< "$(truth "$R/output.log")"
        want=$t_cpu_pct
        [ "$mode" = wall ] && want=$t_wall_pct
        share=$(wait_share "$F")
        check "$how ($mode, $engine): [gpu wait] hipDeviceSynchronize under wait_sync, ${share:-missing}% within 3 of ${want:-?}% (the program's own measure)" \
            within "$share" "${want:-x}" 3
        read -r wait cpu blocked <<< "$(totals "$F")"
        check "$how ($mode, $engine): the header's gpu wait ${wait:-missing} ms, at least the calls' 40 x 10 ms (less 5 %), at most the program's measure around them (${t_wait:-?} ms)" \
            between "$wait" 380 "$t_wait"
        check "$how ($mode, $engine): the CPU burned inside ${cpu:-missing} ms, the program's ${t_cpu:-?} ms (within 5 %)" \
            near "$cpu" "$t_cpu"
        # (how much of a spinning wait is CPU depends on the machine's load: the program's own
        # measure above is the truth; a sleeping one burns none whatever the load)
        if [ "$how" = sleep ]; then
            check "$how: the wait was blocked (${blocked:-?} of ${wait:-?} ms)" \
                awk -v w="$wait" -v b="$blocked" 'BEGIN { exit !(b != "" && b >= 0.9 * w) }'
        fi
        check "$how ($mode, $engine): the HIP API section's wait line" \
            grep -q "^gpu wait hipDeviceSynchronize: 40 calls, " <<< "$F"
        P=$(last_frame <("$ROCSYS_TOP" --replay "$R" -b --rows 40 2>&1))
        rshare=$(wait_share "$P")
        check "$how ($engine): replay: the leaf ${rshare:-missing}% (live ${share:-missing}%) and the totals $(totals "$P" | tr ' ' /) ms (live $wait/$cpu/$blocked)" \
            bash -c "$(declare -f within); within '$rshare' '$share' 0.2 && [ '$(totals "$P")' = '$wait $cpu $blocked' ]"
    done
done
# a sleeping wait in CPU mode: no CPU samples in it, but its time is still in the header
FAKEHIP_SYNC=sleep FAKEHIP_SYNC_MS=10 "$ROCSYS_TOP" -b --output-log "$WORK/cpu-sleep.log" -- "$W" 40 \
    > "$WORK/cpu-sleep.txt" 2>&1 || true
F=$(last_frame "$WORK/cpu-sleep.txt")
read -r t_wait t_cpu _ _ <<< "$(truth "$WORK/cpu-sleep.log")"
read -r wait cpu blocked <<< "$(totals "$F")"
check "sleep (cpu): the header's gpu wait ${wait:-missing} ms, the calls' ${t_wait:-?} ms, nearly all blocked (${blocked:-?})" \
    bash -c "$(declare -f between); between '$wait' 380 '$t_wait' && awk -v w='$wait' -v b='$blocked' 'BEGIN { exit !(b >= 0.9 * w) }'"
finish
