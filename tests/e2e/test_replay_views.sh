#!/usr/bin/env bash
# End-to-end: --replay DIR rebuilds the GPU-side views from a recording's trace, and they agree
# with the files the same recording wrote: the Kernels view (names, calls, total/min/max GPU
# time) with kernels.csv and its queue summary with the live view, for the HSA harness; the HIP
# API view (calls, total and max time) with hip_api.csv, its errors with what the program
# printed and its copies with copies.csv, for the hipcc-built example; the Regions view with
# profile.txt's regions table (nested regions, regions open at exit, ROCTx start/stop ranges).
# A range holding none of the run's events leaves every view saying it has no data; the
# replayed TUI shows the Kernels view. (GPU gauges: tests/e2e/test_gpu.sh, which has the
# fabricated sysfs.)
source "$(dirname "$0")/lib.sh"
H="$TP/tp_hsa_harness"
UR="$TP/ur_regions"
IX="$TP/ur_interop"
EX="$ROCSYS_PROGRAMS/../examples/hip"
[ -x "$H" ] && [ -x "$UR" ] && [ -x "$IX" ] || skip "test programs not built"

# section FILE TITLE: the lines of a batch frame's section whose title starts with TITLE,
# without the title and the column header
section() { awk -v t="== $2" 'index($0, t) == 1 {s=1; getline; next} /^== /{s=0} s && NF' "$1"; }
# strip N: drop the first N blank-separated fields of each line (the rest: a name with spaces)
strip() { awk -v n="$1" '{s=$0; for (k=0; k<n; k++) sub(/^ *[^ ]+ +/, "", s); print s}'; }
# csv NAME FILE: the fields after the quoted name of NAME's row in a rocprof-style CSV
csv() { awk -v n="\"$1\"" 'index($0, n ",") == 1 {print substr($0, length(n) + 2)}' "$2"; }
# ns_of US: microseconds with 3 decimals as integer nanoseconds
ns_of() { awk -v v="$1" 'BEGIN{printf "%.0f", v * 1000}'; }
# ms_eq A B [A B ...]: pairs of millisecond values, each equal to the microsecond
ms_eq() {
    while [ $# -ge 2 ]; do
        awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(a!="" && b!="" && d<0.0015)}' || return 1
        shift 2
    done
}

# ---- (a) kernels: the HSA harness ----
D=$WORK/hsa
rc=0
"$ROCSYS_TOP" -b --rows 0 --record "$D" -- "$H" normal 20 > "$WORK/hsa.live" 2>&1 || rc=$?
check "hsa: recorded (exit $rc)" test "$rc" -eq 0
rc=0
"$ROCSYS_TOP" --replay "$D" -b --rows 0 > "$WORK/hsa.txt" 2> "$WORK/hsa.err" || rc=$?
check "hsa replay: exit 0 (got $rc)" test "$rc" -eq 0
section "$WORK/hsa.txt" "Hot kernels" | awk '/^-- launch paths of /{exit} {print}' |
    grep -v '^GPU[0-9]* queue' > "$WORK/hsa.rows"
nk=$(($(wc -l < "$D/kernels.csv") - 1))
check "hsa replay: $nk kernels as in kernels.csv (got $(wc -l < "$WORK/hsa.rows"))" \
    test "$(wc -l < "$WORK/hsa.rows")" -eq "$nk"
check "hsa: kernels.csv has kernels" test "$nk" -ge 1
while IFS= read -r line; do
    name=$(sed 's/^"\(.*\)",[^"]*$/\1/' <<< "$line")
    IFS=, read -r calls total _ _ min max _ <<< "$(csv "$name" "$D/kernels.csv")"
    row=$(paste -d'|' <(strip 9 < "$WORK/hsa.rows") "$WORK/hsa.rows" | awk -F'|' -v n="$name" '$1==n {print $2; exit}')
    read -r _ rcalls rtotal _ rmin rmax _ <<< "$row"
    check "hsa replay: [$name] calls $calls (got ${rcalls:-none})" test "${rcalls:-x}" = "$calls"
    check "hsa replay: [$name] total $total ns (got ${rtotal:-none} us)" test "$(ns_of "${rtotal:-0}")" = "$total"
    check "hsa replay: [$name] min $min max $max ns (got ${rmin:-none} ${rmax:-none} us)" \
        test "$(ns_of "${rmin:-0}") $(ns_of "${rmax:-0}")" = "$min $max"
done < <(tail -n +2 "$D/kernels.csv")
launches=$(strip 0 < "$WORK/hsa.rows" | awk '{n+=$7} END{print n+0}')
hipcalls=$(csv hipLaunchKernel "$D/hip_api.csv" | cut -d, -f1)
check "hsa replay: HIP launches of the kernels ($launches) = hipLaunchKernel calls in hip_api.csv (${hipcalls:-none})" \
    test "$launches" = "${hipcalls:-x}"
live_q=$(last_frame "$WORK/hsa.live" | grep '^GPU[0-9]* queue' || true)
check "hsa replay: queue busy % and idle gaps as the live view" \
    test "$(grep '^GPU[0-9]* queue' "$WORK/hsa.txt")" = "$live_q" -a -n "$live_q"
check "hsa replay: async copies as copies.csv" \
    bash -c "grep -q '\"async\",\"hsa\",20,20971520,60000,' '$D/copies.csv' && grep -q '^copies async (hsa): 20, 20.0 MiB, 60.000 us total' '$WORK/hsa.txt'"
check "hsa replay: no GPU gauges recorded, said so" grep -q '^gpu: no GPU data in this recording$' "$WORK/hsa.txt"
check "hsa replay: no regions, said so" grep -q '^no region data in this recording$' "$WORK/hsa.txt"

# ---- (e) a range with none of the run's events: every view says it has no data ----
run=$(sed -n 's/.* of \([0-9.]*\) s$/\1/p' "$WORK/hsa.txt" | head -1)
from=$(awk -v r="${run:-0}" 'BEGIN{printf "%.3f", r + 10}')
rc=0
"$ROCSYS_TOP" --replay "$D" -b --rows 0 --range "$from:$(awk -v f="$from" 'BEGIN{print f + 1}')" \
    > "$WORK/none.txt" || rc=$?
check "empty range: exit 0 (got $rc)" test "$rc" -eq 0
check "empty range: no kernels" grep -q '^== Hot kernels: 0 kernels, 0 dispatches' "$WORK/none.txt"
check "empty range: no queue line" bash -c "! grep -q '^GPU[0-9]* queue' '$WORK/none.txt'"
for what in kernel 'HIP API' region GPU; do
    check "empty range: '$what' says no data" grep -q "no $what data in this recording between $from s" "$WORK/none.txt"
done
check "empty range: no HIP calls" grep -q '^== HIP API: 0 calls' "$WORK/none.txt"

# ---- (b) HIP API: the hipcc-built example against the real libamdhip64 ----
if [ -x "$EX/kernels" ]; then
    D=$WORK/hip
    "$ROCSYS_TOP" -b --record "$D" -- "$EX/kernels" 2 > /dev/null 2>&1 || true
    check "hip: recorded" test -s "$D/hip_api.csv"
    rc=0
    "$ROCSYS_TOP" --replay "$D" -b --rows 0 > "$WORK/hip.txt" || rc=$?
    check "hip replay: exit 0 (got $rc)" test "$rc" -eq 0
    section "$WORK/hip.txt" "HIP API" | grep -Ev '^(copies|gpu wait) ' > "$WORK/hip.rows"
    n=$(($(wc -l < "$D/hip_api.csv") - 1))
    check "hip replay: $n entry points as in hip_api.csv (got $(wc -l < "$WORK/hip.rows"))" \
        test "$(wc -l < "$WORK/hip.rows")" -eq "$n" -a "$n" -ge 5
    # every row: calls, total and max time as hip_api.csv; errors as the program printed
    while read -r _ calls total _ max errors _ api; do
        IFS=, read -r ccalls ctotal _ _ _ cmax _ <<< "$(csv "$api" "$D/hip_api.csv")"
        check "hip replay: $api calls $calls = ${ccalls:-none}" test "$calls" = "${ccalls:-x}"
        check "hip replay: $api total $total us = ${ctotal:-none} ns" test "$(ns_of "$total")" = "${ctotal:-x}"
        check "hip replay: $api max $max us = ${cmax:-none} ns" test "$(ns_of "$max")" = "${cmax:-x}"
        printed=$(awk -v a="$api" '$1==a {for (i=2; i<=NF; i++) if ($i ~ /^-?[0-9]+$/ && $i != 0) e++} END{print e+0}' "$D/output.log")
        if grep -q "^$api " "$D/output.log"; then
            check "hip replay: $api errors $errors = failures the program printed ($printed)" test "$errors" = "$printed"
        fi
    done < "$WORK/hip.rows"
    # copies by direction, as copies.csv
    while IFS=, read -r dir src calls _ total _; do
        us=$(awk -v t="$total" 'BEGIN{printf "%.3f", t / 1000}')
        check "hip replay: $calls $dir copies ($src), $us us, as copies.csv" \
            grep -q "^copies $dir ($src): $calls, .*, $us us total" "$WORK/hip.txt"
    done < <(tail -n +2 "$D/copies.csv" | tr -d '"')
    check "hip replay: copies.csv has a row" test "$(wc -l < "$D/copies.csv")" -ge 2
    check "hip replay: launches of saxpy_c as the program made them" \
        test "$(section "$WORK/hip.txt" "Hot kernels" | awk '$NF=="saxpy_c" {print $7}')" = \
        "$(grep -c '^hipLaunchKernel saxpy_c ' "$D/output.log")"
else
    echo "note: HIP examples not built (hipcc not found): HIP API replay not checked"
fi

# ---- (d) regions: nested, open at exit, ROCTx start/stop ranges vs profile.txt ----
for mode in nest open roctx; do
    D=$WORK/reg-$mode
    prog=$UR
    [ "$mode" = roctx ] && prog=$IX
    "$ROCSYS_TOP" -b -d 5 --rows 0 --record "$D" -- "$prog" "$mode" > /dev/null 2>&1 || true
    "$ROCSYS_TOP" --replay "$D" -b --rows 0 > "$WORK/reg-$mode.txt" || fail "regions $mode: replay failed"
    # profile.txt: | REGION | TID | COUNT | TOTAL | MEAN | MIN | MAX | STDDEV | EXIT |
    awk -F'|' '/^\| REGION /{t=1; next} t && /^\|/ {for (i=2; i<=10; i++) {gsub(/^ +| +$/, "", $i)}
        print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\t" $8 "\t" $9 "\t" $10; next} t {t=0}' \
        "$D/profile.txt" > "$WORK/reg-$mode.prof"
    section "$WORK/reg-$mode.txt" "Regions" > "$WORK/reg-$mode.rows"
    np=$(wc -l < "$WORK/reg-$mode.prof")
    check "regions $mode: profile.txt has regions ($np)" test "$np" -ge 1
    check "regions $mode: as many rows replayed ($(wc -l < "$WORK/reg-$mode.rows"))" \
        test "$(wc -l < "$WORK/reg-$mode.rows")" -eq "$np"
    while IFS=$'\t' read -r name tid count total mean min max sd exit_n; do
        row=$(paste -d'|' <(strip 9 < "$WORK/reg-$mode.rows") "$WORK/reg-$mode.rows" | awk -F'|' -v n="$name" -v t="$tid" '{split($2, f, " ")} $1==n && f[9]==t {print $2; exit}')
        read -r rcount rtotal rmean rmin rmax rsd _ rexit _ <<< "$row"
        check "regions $mode: [$name] tid $tid replayed" test -n "$row"
        check "regions $mode: [$name] count $count (got ${rcount:-none})" test "${rcount:-x}" = "$count"
        check "regions $mode: [$name] total/min/max $total/$min/$max ms (got ${rtotal:-none}/${rmin:-none}/${rmax:-none})" \
            ms_eq "$rtotal" "$total" "$rmin" "$min" "$rmax" "$max"
        check "regions $mode: [$name] mean/stddev $mean/$sd ms (got ${rmean:-none}/${rsd:-none})" \
            ms_eq "$rmean" "$mean" "$rsd" "$sd"
        check "regions $mode: [$name] closed at exit $exit_n (got ${rexit:-none})" test "${rexit:-x}" = "$exit_n"
    done < "$WORK/reg-$mode.prof"
done
check "regions nest: 20 marks replayed" grep -q 'marks 20,' "$WORK/reg-nest.txt"

# ---- the TUI: the Kernels view of the replayed harness run ----
if command -v tmux > /dev/null; then
    S=kern
    tmux_start $S 160 40 "$ROCSYS_TOP" --replay "$WORK/hsa"
    tmux_keys $S 7
    check "TUI: Kernels view of the recording" wait_screen $S 'Hot kernels: 3 kernels' 10
    check "TUI: saxpy_c listed" wait_screen $S 'saxpy_c' 5
    check "TUI: the queue's idle summary" wait_screen $S 'GPU0 queue 1 \(pid [0-9]+\): dispatches 120' 5
    tmux_keys $S 5
    check "TUI: GPU view says the recording has no GPU data" wait_screen $S 'no GPU data in this recording' 5
    tmux_keys $S q
    check "TUI: q quits" wait_file "$WORK/$S.rc" 5
else
    echo "note: tmux missing, TUI check skipped"
fi
finish
