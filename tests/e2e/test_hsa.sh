#!/usr/bin/env bash
# End-to-end: the collector as an HSA tools library, against tp_hsa_harness, which plays the
# ROCr runtime's part with tables in ROCm 5.2.3's layout (6.1.2's, 6.4.3's and others' with
# TP_HSA_LAYOUT; no machine here has an AMD GPU, so dispatch timing is verified against this
# harness, not on hardware). Checked: kernel names
# from executable freeze (demangled, .kd stripped), exact dispatch counts and GPU times in the
# view, kernels.csv and the trace (every dispatch exactly once), launch->dispatch flows, async
# copies, every original completion signal completed; the tables of every known release (5.2,
# 6.1, 6.4) and of a later one of the newest ABI are read and timed; an unknown table version
# or a too-small table is declined without patching, with a notice; a second tools library before or after the collector;
# bursts of 200,000 dispatches (and HIP launches) as fast as the harness can submit them from
# several threads and queues: every one recorded exactly once, nothing dropped (the producers
# wait for the front end instead; no timing is asserted).
source "$(dirname "$0")/lib.sh"
H="$TP/tp_hsa_harness"
TOOL2="$TP/libtp_hsa_tool2.so"
CHECKER="$ROCSYS_PROGRAMS/rocsys-trace-check"
[ -x "$H" ] || skip "tp_hsa_harness not built"
ROUNDS=20

# csv_row FILE NAME: the row of kernel NAME (fields after the quoted name)
csv_row() { awk -v n="\"$2\"" 'index($0, n ",") == 1 {print substr($0, length(n) + 2)}' "$1" | cut -d, -f1-3; }

# a run without rocsys-top: no tools, the workload completes
"$H" normal 3 > "$WORK/bare.txt"
check "bare harness completes" grep -q "completed 21/21" "$WORK/bare.txt"

D=$WORK/rec
rc=0
"$ROCSYS_TOP" -b --rows 0 --record "$D" -- "$H" normal $ROUNDS > "$WORK/frames.txt" 2> "$WORK/err.txt" || rc=$?
check "exit 0 (got $rc)" test "$rc" -eq 0
check "OnLoad accepted the table" grep -q "librocsys-collector.so: OnLoad -> 1" "$D/output.log"
check "all completion signals got their value" grep -q "completed 140/140" "$D/output.log"
check "queue made with interception and profiling" grep -q "intercept_queues 1 plain_queues 0 profiling 1 copy_profiling 1" "$D/output.log"
# kernels.csv: exact counts and GPU times, sorted by percentage
check "kernels.csv header" grep -qx '"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"' "$D/kernels.csv"
check "kernels.csv: reduce_sum first" bash -c "sed -n 2p '$D/kernels.csv' | grep -q '^\"void reduce_sum<256, float>(float const\*, float\*, int)\",'"
r=$(csv_row "$D/kernels.csv" "void reduce_sum<256, float>(float const*, float*, int)")
check "reduce_sum: 40 x 7000 ns (got $r)" test "$r" = "40,280000,7000"
r=$(csv_row "$D/kernels.csv" "saxpy_c")
check "saxpy_c: 60 x 1000 ns (got $r)" test "$r" = "60,60000,1000"
r=$(csv_row "$D/kernels.csv" "vector_add(float*, float const*, float const*, int)")
check "vector_add: 20 x 2000 ns (got $r)" test "$r" = "20,40000,2000"
check "kernels.csv: no variable symbol, no unnamed kernel" bash -c "! grep -Eq 'some_global|kernel 0x' '$D/kernels.csv'"
check "copies.csv: 20 async copies of 1 MiB, 3000 ns each" grep -qx '"async","hsa",20,20971520,60000,3000,3000,3000' "$D/copies.csv"
# the batch view
F=$(last_frame "$WORK/frames.txt")
check "view: 3 kernels, 120 dispatches" grep -q "== Hot kernels: 3 kernels, 120 dispatches, GPU time 0.380 ms ==" <<< "$F"
hip=$(awk '/^== Hot kernels/ {h=1; next} /^== / {h=0} h' <<< "$F" | grep -F "vector_add(float*, float const*, float const*, int)" | head -1 | awk '{print $2, $7}')
check "view: vector_add 20 dispatches, 20 HIP launches (got $hip)" test "$hip" = "20 20"
check "view: queue idle summary" grep -Eq "^GPU0 queue 1 \(pid [0-9]+\): dispatches 120  busy [0-9.]+%  gap 1us-10us 100  gap 10us-100us 19$" <<< "$F"
# launch paths: vector_add is launched from harness_setup_launch every 4th round (5 of 20) and
# from harness_step_launch in the others; each dispatch's 2000 ns goes to its launch's path, and
# the paths add up to the kernel's 40 us
path_row() { awk -v f="$2" '/^-- launch paths of vector_add/ {h=1; next} /^(--|==) / {h=0} h && index($0, " " f " < main") {print $1, $2, $3; exit}' <<< "$1"; }
r=$(path_row "$F" harness_step_launch)
check "launch path harness_step_launch: 75% of the GPU time, 15 launches, 30 us (got $r)" test "$r" = "75.0 15 30.000"
r=$(path_row "$F" harness_setup_launch)
check "launch path harness_setup_launch: 25%, 5 launches, 10 us (got $r)" test "$r" = "25.0 5 10.000"
# gpu.folded: the stacks weighted by GPU ns, the launch paths and the dispatches no HIP launch
# made; together all the GPU time (0.380 ms)
check "gpu.folded: harness_step_launch's path, 30000 ns" \
    grep -qx '.*;main;harness_step_launch;vector_add(float\*, float const\*, float const\*, int) 30000' "$D/gpu.folded"
check "gpu.folded: harness_setup_launch's path, 10000 ns" \
    grep -qx '.*;main;harness_setup_launch;vector_add(float\*, float const\*, float const\*, int) 10000' "$D/gpu.folded"
check "gpu.folded: reduce_sum, no HIP launch, 280000 ns" \
    grep -qx '\[no HIP launch\];void reduce_sum<256, float>(float const\*, float\*, int) 280000' "$D/gpu.folded"
check "gpu.folded: the weights add up to the GPU time" \
    test "$(awk '{ s += $NF } END { print s }' "$D/gpu.folded")" = 380000
# 2000 rounds: every dispatch still meets its launch (a dispatch whose record comes first waits
# for it; a replay feeds them in time order), live and in the replay
# (the frame read is the final one, printed after the target ended and the symbols its launch
# paths need were loaded: if not, or if the paths are not there, the check says what the frame
# had: its first line, its dropped counts, its launch-path section of vector_add)
D2=$WORK/rec2000
rc=0
"$ROCSYS_TOP" -b --record "$D2" -- "$H" normal 2000 > "$WORK/f2000.txt" 2>&1 || rc=$?
F2=$(last_frame "$WORK/f2000.txt")
R2=$(last_frame <("$ROCSYS_TOP" --replay "$D2" -b 2>&1))
check "2000 rounds: exit 0 (got $rc; output's last lines: $(tail -3 "$WORK/f2000.txt" | tr '\n' ';'))" test "$rc" -eq 0
# path_diag FRAME: what a frame says about vector_add's launch paths, on one line: its first
# line, its counts of dropped records, symbols still loading, the kernel's row (HIP launches
# counted under its name), its launch-path section
path_diag() {
    awk '/^rocsys-top frame / || /^mode / || /^symbols: / {printf "%s; ", $0}
         !h && /^ .*(vector_add\(|HIP kernel #)/ {printf "kernel row: %s; ", $0}
         /^-- launch paths of vector_add/ {h = seen = 1; printf "%s ", $0; next} /^(--|==) / {h = 0}
         h {printf "%s; ", $0} END {if (!seen) printf "no launch paths of vector_add"}' <<< "$1" | tr -s ' ' ' '
}
check "2000 rounds: the frame read is the final one ($(head -1 <<< "$F2"))" \
    grep -q '^rocsys-top frame [0-9]*  elapsed [0-9.]*s  target \[exited with 0\]' <<< "$F2"
check "2000 rounds: launch paths 3000 + 1000 us of GPU time, live ($(path_row "$F2" harness_step_launch) / $(path_row "$F2" harness_setup_launch); the frame: $(path_diag "$F2"))" \
    test "$(path_row "$F2" harness_step_launch) $(path_row "$F2" harness_setup_launch)" = "75.0 1500 3000.000 25.0 500 1000.000"
check "2000 rounds: the same in the replay ($(path_row "$R2" harness_step_launch) / $(path_row "$R2" harness_setup_launch))" \
    test "$(path_row "$R2" harness_step_launch) $(path_row "$R2" harness_setup_launch)" = "75.0 1500 3000.000 25.0 500 1000.000"
# --merge keeps each rank's GPU time by launch path (two copies of the recording as ranks)
M=$WORK/merge
mkdir -p "$M" && cp -r "$D" "$M/rank-0" && cp -r "$D" "$M/rank-1"
"$ROCSYS_TOP" --merge "$M" > /dev/null 2>&1 || true
check "merged-gpu.folded: both ranks' harness_step_launch path, 30000 ns" \
    test "$(grep -c '^rank-[01];.*;main;harness_step_launch;vector_add(float\*, float const\*, float const\*, int) 30000$' "$M/merged-gpu.folded" 2>/dev/null)" = 2
check "profile.txt: vector_add's launch paths" \
    grep -Eq '^\| +75\.0 \| +15 \| +30\.000 \| harness_step_launch < main' "$D/profile.txt"
# the call tree's GPU column: the GPU time of the kernels launched under each node
# (the largest: a function may also be a node of stacks the unwinder cut short, without GPU time;
# "none": no row). Frames of every row (--rows 0): a launching function without CPU samples of
# its own is a node of 0 samples, sorted last, which a loaded run's larger tree had pushed below
# the default 40 rows.
gpu_of() { awk -v f="$2" '/^== Call tree/ {h=1; next} /^== / {h=0} h && $5 == f {n++; if ($4 > m) m = $4} END {if (n) printf "%.3f", m; else printf "none"}' <<< "$1"; }
check "call tree GPU(ms): harness_step_launch 0.030, harness_setup_launch 0.010, main 0.040 ($(gpu_of "$F" harness_step_launch) $(gpu_of "$F" harness_setup_launch) $(gpu_of "$F" main))" \
    test "$(gpu_of "$F" harness_step_launch) $(gpu_of "$F" harness_setup_launch) $(gpu_of "$F" main)" = "0.030 0.010 0.040"
R=$(last_frame <("$ROCSYS_TOP" --replay "$D" -b --rows 0 2>&1))
check "replay: the call tree's GPU column ($(gpu_of "$R" harness_step_launch))" test "$(gpu_of "$R" harness_step_launch)" = 0.030
if command -v tmux > /dev/null; then
    tmux_start gpusort 150 40 "$ROCSYS_TOP" --replay "$D"
    check "TUI: call tree with a GPU(ms) column" wait_screen gpusort 'GPU\(ms\)  FUNCTION' 10
    tmux_keys gpusort s s s
    check "TUI: sorted by GPU time" wait_screen gpusort 'sort: GPU time' 5
    check "TUI: the GPU-heaviest path open, harness_step_launch first under main" \
        bash -c "tmux -L $TMUX_SOCKET capture-pane -p -t gpusort | grep -A1 -E ' main( |$)' | grep -q '0.030 .*harness_step_launch'"
    tmux_keys gpusort 0 b
    check "TUI: the flame graph by GPU time" wait_screen gpusort '^Flame graph by GPU time' 5
    check "TUI: its frames are the launching functions" wait_screen gpusort '^harness_step_launch +harness_setup_launch' 5
    tmux_kill gpusort
fi
check "replay: the same launch paths and GPU times" \
    test "$(path_row "$R" harness_step_launch) $(path_row "$R" harness_setup_launch)" = "75.0 15 30.000 25.0 5 10.000"
# the trace: every dispatch exactly once, on its queue's track, flows from the HIP launches
if [ -x "$CHECKER" ]; then
    "$CHECKER" "$D/trace.pftrace" > "$WORK/check.txt"
    check "trace: no violations" grep -q 'violations 0' "$WORK/check.txt"
    n=$(grep -c '^slice .* GPU0 queue 1 "kernel" ' "$WORK/check.txt" || true)
    check "trace: 120 dispatch slices (got $n)" test "$n" -eq 120
    n=$(grep -c '^slice .* GPU0 queue 1 "kernel" "saxpy_c" 1000 ns' "$WORK/check.txt" || true)
    check "trace: 60 saxpy_c slices of 1000 ns (got $n)" test "$n" -eq 60
    n=$(grep -c '"hipLaunchKernel" .* flow-out' "$WORK/check.txt" || true)
    m=$(grep -c '"vector_add(float\*, float const\*, float const\*, int)" 2000 ns flow-in' "$WORK/check.txt" || true)
    check "trace: 20 launch->dispatch flows (out $n, in $m)" test "$n" -eq 20 -a "$m" -eq 20
    n=$(grep -c '^slice .* GPU async copies "copy" "async copy" 3000 ns' "$WORK/check.txt" || true)
    check "trace: 20 copy slices (got $n)" test "$n" -eq 20
fi

# csv_calls FILE NAME: the Calls column of NAME's row (names may hold commas)
csv_calls() { awk -v n="\"$2\"" 'index($0, n ",") == 1 {print substr($0, length(n) + 2)}' "$1" | cut -d, -f1; }
# json_dropped FILE: the "dropped_events" figure of session.json (events, not CPU samples: a
# sample that finds its ring full cannot wait, and is counted as dropped)
json_dropped() { grep -o '"dropped_events": [0-9]*' "$1" | grep -o '[0-9]*$'; }
BURST=200000
# a burst of plain dispatches from 4 threads, each with its own queue
D=$WORK/burst
rc=0
"$ROCSYS_TOP" --record "$D" -- "$H" rate $BURST 4 > "$WORK/burst.txt" 2>&1 || rc=$?
check "burst: exit 0 (got $rc)" test "$rc" -eq 0
check "burst: every dispatch completed once" grep -q "completed $BURST/$BURST in .* overshoot 0" "$D/output.log"
check "burst: 4 queues of the threads and the main one, all intercepted" grep -q "intercept_queues 5 plain_queues 0" "$D/output.log"
n=$(csv_calls "$D/kernels.csv" saxpy_c)
check "burst: kernels.csv has $BURST saxpy_c calls (got $n)" test "$n" = "$BURST"
n=$(json_dropped "$D/session.json")
check "burst: 0 events dropped in session.json (got $n)" test "$n" = 0
# the same through hipLaunchKernel of the stand-in HIP library: a HIP_API record on the
# submitting thread and an HSA_DISPATCH record on the async-events thread for each
D=$WORK/burst_hip
rc=0
"$ROCSYS_TOP" --record "$D" -- "$H" rate $BURST 2 hip > "$WORK/burst_hip.txt" 2>&1 || rc=$?
check "burst hip: exit 0 (got $rc)" test "$rc" -eq 0
check "burst hip: every dispatch completed once" grep -q "completed $BURST/$BURST in .* overshoot 0" "$D/output.log"
n=$(csv_calls "$D/kernels.csv" "vector_add(float*, float const*, float const*, int)")
check "burst hip: kernels.csv has $BURST vector_add calls (got $n)" test "$n" = "$BURST"
n=$(csv_calls "$D/hip_api.csv" hipLaunchKernel)
check "burst hip: hip_api.csv has $BURST hipLaunchKernel calls (got $n)" test "$n" = "$BURST"
n=$(json_dropped "$D/session.json")
check "burst hip: 0 events dropped in session.json (got $n)" test "$n" = 0

# the front end stops (SIGSTOP) for 1.5 s in the middle of a long burst: the target waits at
# most COLLECTOR_WAIT_MAX_NS, then goes on; every dispatch still completes, and what could not
# be delivered is counted as dropped events, never lost silently
D=$WORK/stalled
LONG=2000000
"$ROCSYS_TOP" --record "$D" -- "$H" rate $LONG 2 > "$WORK/stalled.txt" 2>&1 &
rtop=$!
# never leave a stopped rocsys-top behind, whatever ends this script
trap 'kill -CONT $rtop 2>/dev/null; kill $rtop 2>/dev/null; e2e_cleanup' EXIT
for i in $(seq 50); do pgrep -P $rtop -x tp_hsa_harness > /dev/null && break; sleep 0.1; done
sleep 0.3 # the burst is under way (it takes over a second)
kill -STOP $rtop
sleep 1.5
kill -CONT $rtop
rc=0
wait $rtop || rc=$?
trap e2e_cleanup EXIT
check "stalled front end: exit 0 (got $rc)" test "$rc" -eq 0
check "stalled front end: every dispatch completed once" grep -q "completed $LONG/$LONG in .* overshoot 0" "$D/output.log"
n=$(csv_calls "$D/kernels.csv" saxpy_c)
e=$(json_dropped "$D/session.json")
check "stalled front end: events dropped and counted (kernels.csv ${n:-?} + dropped ${e:-?} >= $LONG)" \
    test "${e:-0}" -gt 0 -a "${n:-0}" -lt $LONG -a $(( ${n:-0} + ${e:-0} )) -ge $LONG

# the tables of every known release (TP_HSA_LAYOUT: the harness lays them out as that release's
# runtime does, collector/hsa_layout.c), and of a later release of the newest ABI (larger
# tables, later steps: read with the newest known offsets): the collector takes the layout from
# the tables' own versions and sizes, and every dispatch and copy is timed
for layout in 5.2 6.1 6.4 newer; do
    D=$WORK/layout_$layout
    rc=0
    TP_HSA_LAYOUT=$layout "$ROCSYS_TOP" -b --record "$D" -- "$H" normal 5 > "$D.txt" 2>&1 || rc=$?
    check "layout $layout: exit 0 (got $rc)" test "$rc" -eq 0
    # the release whose slots the harness played, as it says
    rel=$(sed -n 's/^harness: layout [^ ]* (slots of ROCm \([0-9.]*\)).*/\1/p' "$D/output.log")
    check "layout $layout: the harness played a known release's slots (got '$rel')" test -n "$rel"
    if [ "$layout" = newer ]; then
        check "layout $layout: read as ROCm $rel, the newest known" grep -q "^hsa table: read as ROCm $rel: " "$D.txt"
        check "layout $layout: session.json says compatible" grep -q "\"hsa_table\": {\"status\": \"compatible\", \"release\": \"$rel\"" "$D/session.json"
    else
        check "layout $layout: the release played ($rel)" test "${rel#"$layout".}" != "$rel"
        check "layout $layout: ROCm $rel's layout recognized" grep -q "^hsa table: ROCm $rel layout (" "$D.txt"
        check "layout $layout: session.json says exact" grep -q "\"hsa_table\": {\"status\": \"exact\", \"release\": \"$rel\"" "$D/session.json"
    fi
    check "layout $layout: OnLoad accepted the table" grep -q "librocsys-collector.so: OnLoad -> 1" "$D/output.log"
    check "layout $layout: queue intercepted, profiling on" grep -q "completed 35/35 intercept_queues 1 plain_queues 0 profiling 1 copy_profiling 1" "$D/output.log"
    check "layout $layout: no notice" bash -c "! grep -q '^notice:' '$D.txt'"
    r=$(csv_row "$D/kernels.csv" "saxpy_c")
    check "layout $layout: saxpy_c 15 x 1000 ns (got $r)" test "$r" = "15,15000,1000"
    r=$(csv_row "$D/kernels.csv" "void reduce_sum<256, float>(float const*, float*, int)")
    check "layout $layout: reduce_sum 10 x 7000 ns (got $r)" test "$r" = "10,70000,7000"
    r=$(csv_row "$D/kernels.csv" "vector_add(float*, float const*, float const*, int)")
    check "layout $layout: vector_add 5 x 2000 ns (got $r)" test "$r" = "5,10000,2000"
    check "layout $layout: 5 async copies of 3000 ns" grep -qx '"async","hsa",5,5242880,15000,3000,3000,3000' "$D/copies.csv"
done

# tables the collector does not know: an ABI no release has (unknown), a core table whose major
# its root's release does not have (badversion), a table too small for the slots we need
# (badsize): declined, untouched, with a notice; the program runs as without rocsys-top
for run in "unknown normal" "5.2 badversion" "6.4 badversion" "5.2 badsize" "6.1 badsize"; do
    read -r layout mode <<< "$run"
    D=$WORK/declined_${layout}_$mode
    rc=0
    TP_HSA_LAYOUT=$layout "$ROCSYS_TOP" -b --record "$D" -- "$H" "$mode" 5 > "$D.txt" 2>&1 || rc=$?
    check "$layout $mode: exit 0 (got $rc)" test "$rc" -eq 0
    check "$layout $mode: OnLoad declined" grep -q "librocsys-collector.so: OnLoad -> 0" "$D/output.log"
    check "$layout $mode: table unchanged" grep -q "declined, table unchanged" "$D/output.log"
    check "$layout $mode: the workload still completes" grep -q "completed 35/35 intercept_queues 0 plain_queues 1" "$D/output.log"
    check "$layout $mode: no dispatch timed" test "$(wc -l < "$D/kernels.csv")" -eq 1
    check "$layout $mode: the notice says kernels are not timed, and why" \
        grep -Eq "^notice: GPU kernels not timed: the HSA runtime's API table was declined: .*(not a layout of ROCm|too small)" "$D.txt"
    check "$layout $mode: session.json says declined" grep -q '"hsa_table": {"status": "declined", "release": ""' "$D/session.json"
done

# a second tool listed before the collector (rocsys-top appends itself to HSA_TOOLS_LIB)
rc=0
HSA_TOOLS_LIB="$TOOL2" "$ROCSYS_TOP" -b --record "$WORK/t2a" -- "$H" normal 5 > /dev/null 2>&1 || rc=$?
check "tool2 first: exit 0 (got $rc)" test "$rc" -eq 0
check "tool2 first: both loaded" grep -q "mode normal tools 2 declined 0 dispatches 30 copies 5 completed 35/35" "$WORK/t2a/output.log"
check "tool2 first: its freeze hook still runs" grep -q "tool2: queue_create 0 signal_create [0-9]* freeze 1" "$WORK/t2a/output.log"
r=$(csv_row "$WORK/t2a/kernels.csv" "saxpy_c")
check "tool2 first: dispatches timed (got $r)" test "$r" = "15,15000,1000"
# ... and after it (the collector listed twice: the second OnLoad keeps the first patch), with
# ROCm 6.4's tables
rc=0
TP_HSA_LAYOUT=6.4 HSA_TOOLS_LIB="$ROCSYS_COLLECTOR $TOOL2" "$ROCSYS_TOP" -b --record "$WORK/t2b" -- "$H" normal 5 > /dev/null 2>&1 || rc=$?
check "tool2 after: exit 0 (got $rc)" test "$rc" -eq 0
check "tool2 after: all completed" grep -q "tools 3 declined 0 dispatches 30 copies 5 completed 35/35" "$WORK/t2b/output.log"
check "tool2 after: its hooks see our queue creation" grep -q "tool2: queue_create 1 signal_create [0-9]* freeze 1" "$WORK/t2b/output.log"
r=$(csv_row "$WORK/t2b/kernels.csv" "saxpy_c")
check "tool2 after: dispatches timed once (got $r)" test "$r" = "15,15000,1000"
finish
