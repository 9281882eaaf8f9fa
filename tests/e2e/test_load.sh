#!/usr/bin/env bash
# End-to-end: right by default, under load (issue 12, item 3). With the default settings (no
# --cpu-timer, no -f), the call-tree shares stay within +-3 points of the truth the programs
# measure on their own CPU clocks while two busy loops compete for the CPUs: the demo (leaf
# self shares, 50/30/20 of its solver threads' CPU) and tp_syscall_units (inclusive shares of
# units that each end in read()s costing kernel time, 50/30/20 of the process's CPU). Checked
# in the recording's stacks.folded and in the last batch frame's Hot functions. The same runs
# with --cpu-timer perf and --cpu-timer posix are printed for the record, not checked.
source "$(dirname "$0")/lib.sh"
UNITS="$TP/tp_syscall_units"
[ -x "$UNITS" ] || skip "tp_syscall_units not built"
SECONDS_PER_RUN=${LOAD_SECONDS:-5}

# Two busy loops, stopped (by their ids) when the script exits.
load_pids=()
stop_load() {
    local p
    for p in "${load_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${load_pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap 'stop_load; e2e_cleanup' EXIT
for _ in 1 2; do
    sh -c 'while :; do :; done' &
    load_pids+=($!)
done

# folded_share FILE FN self|incl: FN's share (%) of all counts in a stacks.folded file: as the
# leaf (self) or anywhere in the stack, each stack counted once (incl).
folded_share() {
    awk -v fn="$2" -v mode="$3" '{
        c = $NF; t += c; n = split($1, a, ";")
        if (mode == "self") { if (a[n] == fn) s += c; next }
        for (i = 1; i <= n; i++) if (a[i] == fn) { s += c; break }
    } END { if (t) printf "%.1f", 100 * s / t }' "$1"
}

# truth FILE: the three measured shares the program printed ("measured CPU split A / B / C %").
truth() { sed -n 's/.*measured CPU split \([0-9.]*\) \/ \([0-9.]*\) \/ \([0-9.]*\) %.*/\1 \2 \3/p' "$1"; }

# run_case NAME MODE CHECK TIMER_ARGS -- PROGRAM ARGS: profile PROGRAM under load with the
# timer arguments (none: the default), print measured against truth for fn1..fn3 of $FNS
# (MODE self or incl), and with CHECK=1 count each share's distance from the truth.
run_case() {
    local name=$1 mode=$2 check_it=$3
    shift 3
    local targs=()
    while [ "$1" != -- ]; do targs+=("$1"); shift; done
    shift
    local d="$WORK/$name" rc=0
    mkdir -p "$d"
    "$ROCSYS_TOP" -b -d 10 -n 60 --rows 0 "${targs[@]}" --record "$d/rec" -- "$@" \
        > "$d/frames.txt" 2> "$d/err.txt" || rc=$?
    [ "$check_it" = 1 ] && check "$name: exit status 0 (got $rc)" test "$rc" -eq 0
    last_frame "$d/frames.txt" > "$d/last.txt"
    local timer
    timer=$(grep -Eo 'timer [a-z-]+' "$d/last.txt" | tail -n 1)
    local want
    read -r -a want <<< "$(truth "$d/rec/output.log")"
    if [ "${#want[@]}" -ne 3 ]; then
        fail "$name: no measured split in the target's output"
        return
    fi
    local line="$name (${timer:-timer ?}, ${targs[*]:-default}):" k fn fol frm
    for k in 0 1 2; do
        fn=${FNS[$k]}
        fol=$(folded_share "$d/rec/stacks.folded" "$fn" "$mode")
        if [ "$mode" = self ]; then frm=$(hot_self "$fn" < "$d/last.txt"); else frm=$(hot_incl "$fn" < "$d/last.txt"); fi
        line+=" $fn truth ${want[$k]} folded ${fol:-missing} frame ${frm:-missing};"
        if [ "$check_it" = 1 ]; then
            check "$name: $fn $mode ${fol:-missing}% in stacks.folded not within 3 of the truth ${want[$k]}%" \
                within "$fol" "${want[$k]}" 3
            check "$name: $fn $mode ${frm:-missing}% in the last frame not within 3 of the truth ${want[$k]}%" \
                within "$frm" "${want[$k]}" 3
        fi
    done
    echo "$line"
}

FNS=(demo_solve demo_butterfly demo_reduce)
run_case demo-default self 1 -- "$ROCSYS_DEMO" --seconds "$SECONDS_PER_RUN"
FNS=(unit_a unit_b unit_c)
run_case units-default incl 1 -- "$UNITS" --seconds "$SECONDS_PER_RUN"

# For the record: the two timers, whatever the default picks.
for timer in perf posix; do
    FNS=(demo_solve demo_butterfly demo_reduce)
    run_case "demo-$timer" self 0 --cpu-timer "$timer" -- "$ROCSYS_DEMO" --seconds "$SECONDS_PER_RUN"
    FNS=(unit_a unit_b unit_c)
    run_case "units-$timer" incl 0 --cpu-timer "$timer" -- "$UNITS" --seconds "$SECONDS_PER_RUN"
done
finish
