#!/usr/bin/env bash
# End-to-end: HIP API tracing by interposition, with programs built by hipcc (examples/hip)
# against the real libamdhip64. No machine here has an AMD GPU: every call fails (hipErrorNoDevice)
# and the kernels never run, which still exercises interposition. Checked: the program's output
# (the result of every HIP call it printed) is the same as without rocsys-top, kernel names from
# __hipRegisterFunction (demangled), launch counts, memory, stream and event calls with their
# error codes, hip_api.csv / copies.csv, HIP slices in the trace.
source "$(dirname "$0")/lib.sh"
EX="$ROCSYS_PROGRAMS/../examples/hip"
CHECKER="$ROCSYS_PROGRAMS/rocsys-trace-check"
[ -x "$EX/vector_add" ] || skip "HIP examples not built (hipcc not found)"

# api FRAME NAME FIELD: a field of NAME's row in the HIP API section (2 calls, 6 errors, 7 last)
api() { awk -v n="$2" -v f="$3" '/^== HIP API/{h=1; next} /^== /{h=0} h && $8==n {print $f; exit}' <<< "$1"; }
# hip_launches FRAME NAME: the HIP column of kernel NAME in the Hot kernels section
hip_launches() { awk -v n="$2" '/^== Hot kernels/{h=1; next} /^== /{h=0} h && index($0, n) {print $7; exit}' <<< "$1"; }
# launch_dims FRAME NAME: "GRID BLOCK" of kernel NAME in the Hot kernels section
launch_dims() { awk -v n="$2" '/^== Hot kernels/{h=1; next} /^== /{h=0} h && index($0, n) {print $8, $9; exit}' <<< "$1"; }

# vector_add: 7 direct launches
rc_bare=0
"$EX/vector_add" 7 > "$WORK/bare.txt" 2>/dev/null || rc_bare=$?
D=$WORK/va
rc=0
"$ROCSYS_TOP" -b --record "$D" -- "$EX/vector_add" 7 > "$WORK/frames.txt" 2> "$WORK/err.txt" || rc=$?
check "exit status as without rocsys-top ($rc_bare, got $rc)" test "$rc" -eq "$rc_bare"
check "the program saw the same results" diff "$WORK/bare.txt" <(grep -v rocm_agent "$D/output.log")
code=$(awk '$1=="hipLaunchKernel" {print $2; exit}' "$WORK/bare.txt")
F=$(last_frame "$WORK/frames.txt")
check "kernel name from __hipRegisterFunction, 7 HIP launches" \
    test "$(hip_launches "$F" "vector_add(float*, float const*, float const*, int)")" = 7
check "hipLaunchKernel: 7 calls" test "$(api "$F" hipLaunchKernel 2)" = 7
check "hipLaunchKernel: 7 errors, last = what the program got ($code)" \
    test "$(api "$F" hipLaunchKernel 6) $(api "$F" hipLaunchKernel 7)" = "7 $code"
check "hipMalloc: 3 calls" test "$(api "$F" hipMalloc 2)" = 3
check "hipMemcpy: 3 calls" test "$(api "$F" hipMemcpy 2)" = 3
check "hipFree: 3 calls" test "$(api "$F" hipFree 2)" = 3
check "<<<>>>: __hipPushCallConfiguration seen" test "$(api "$F" __hipPushCallConfiguration 2)" = 1
check "hipDeviceSynchronize seen" test "$(api "$F" hipDeviceSynchronize 2)" = 1
check "hip_api.csv: hipLaunchKernel 7 calls" grep -Eq '^"hipLaunchKernel",7,' "$D/hip_api.csv"
check "copies.csv: 2 HtoD copies of 4 MiB" grep -Eq '^"HtoD","hip",2,8388608,' "$D/copies.csv"
check "copies.csv: 1 DtoH copy" grep -Eq '^"DtoH","hip",1,4194304,' "$D/copies.csv"
if [ -x "$CHECKER" ]; then
    "$CHECKER" "$D/trace.pftrace" > "$WORK/check.txt"
    check "trace: no violations" grep -q 'violations 0' "$WORK/check.txt"
    n=$(grep -c ' thread "hip" "hipLaunchKernel" ' "$WORK/check.txt" || true)
    check "trace: 7 hipLaunchKernel slices on the thread (got $n)" test "$n" -eq 7
fi

# kernels: a template, a C name, streams, events, async copies
rc_bare=0
"$EX/kernels" 2 > "$WORK/bare2.txt" 2>/dev/null || rc_bare=$?
D=$WORK/k
rc=0
"$ROCSYS_TOP" -b --record "$D" -- "$EX/kernels" 2 > "$WORK/frames2.txt" 2>/dev/null || rc=$?
check "kernels: exit status as without rocsys-top" test "$rc" -eq "$rc_bare"
check "kernels: the program saw the same results" diff "$WORK/bare2.txt" <(grep -v rocm_agent "$D/output.log")
F=$(last_frame "$WORK/frames2.txt")
check "scale: 2 launches" test "$(hip_launches "$F" "scale(float*, float, int)")" = 2
check "template kernel demangled: 4 launches" \
    test "$(hip_launches "$F" "void reduce_sum<256, float>(float const*, float*, int)")" = 4
check "extern \"C\" kernel: 6 launches" test "$(hip_launches "$F" " saxpy_c")" = 6
for a in hipStreamCreate hipEventCreate hipMemsetAsync hipMemcpyAsync hipEventRecord \
    hipEventSynchronize hipStreamSynchronize hipEventDestroy hipStreamDestroy hipHostMalloc hipHostFree; do
    want=$(awk -v a="$a" '$1==a {print $2; exit}' "$WORK/bare2.txt")
    got=$(api "$F" "$a" 2)
    check "$a: 1 call (got $got)" test "$got" = 1
    if [ "$want" != 0 ]; then
        check "$a: error code $want passed through" test "$(api "$F" "$a" 7)" = "$want"
    fi
done

# memory: the less common memory, copy and launch entry points (2D, peer, symbol, array and
# hip_Memcpy2D and 3D copies, D8/D16/D32, 2D and 3D sets, the per-thread default stream (_spt)
# copies, sets and stream calls, pitch/3D/array/host allocations, stream priority, cooperative,
# multi-device, C++-mangled module and hipLaunchByPtr launches, graphs): each recorded once, with
# its result passed back unchanged
rc_bare=0
"$EX/memory" > "$WORK/bare3.txt" 2>/dev/null || rc_bare=$?
D=$WORK/m
rc=0
# all rows: more entry points than a batch view's default 40
"$ROCSYS_TOP" -b --rows 0 --record "$D" -- "$EX/memory" > "$WORK/frames3.txt" 2>/dev/null || rc=$?
check "memory: exit status as without rocsys-top" test "$rc" -eq "$rc_bare"
check "memory: the program saw the same results" diff "$WORK/bare3.txt" <(grep -v rocm_agent "$D/output.log")
F=$(last_frame "$WORK/frames3.txt")
napi=0
while read -r a want; do
    napi=$((napi + 1))
    calls=$(grep -c "^$a " "$WORK/bare3.txt")
    check "$a: $calls call(s) in the HIP API view" test "$(api "$F" "$a" 2)" = "$calls"
    check "$a: in hip_api.csv" grep -q "^\"$a\",$calls," "$D/hip_api.csv"
    if [ "$want" != 0 ]; then
        check "$a: error code $want passed through" test "$(api "$F" "$a" 7)" = "$want"
    fi
done < <(awk '!seen[$1]++' "$WORK/bare3.txt")
check "memory: 61 entry points called (got $napi)" test "$napi" -eq 61
# every copy by direction and bytes: the direction from the kind argument, the function's name
# (hipMemcpyAtoH, hipMemcpyHtoA, peer copies), hip_Memcpy2D's memory types or hipMemcpy3DParms'
# kind; bytes from count, width * height, WidthInBytes * Height or the 3D extent (sets are no
# copies). HtoD: WithStream 4096, 2D 4096 + 4096, ToSymbol 256 + 256, Param2D 4096, 3D 512,
# 2DToArray 1024, ToArray 256, HtoA 256, 2D_spt 2048, 3D_spt 512, ToSymbol_spt 128. DtoH:
# FromSymbol 256 + 256, Param2DAsync 4096, 3DAsync 128, 2DFromArray 1024 + 1024, FromArray 256,
# AtoH 256, 2DFromArray_spt 256, FromSymbol_spt 64. DtoD: peer 4096 + 4096, 2DToArrayAsync 1024,
# 2DToArray_spt 512.
check "copies.csv: 13 HtoD copies of 21632 bytes" grep -Eq '^"HtoD","hip",13,21632,' "$D/copies.csv"
check "copies.csv: 10 DtoH copies of 7616 bytes" grep -Eq '^"DtoH","hip",10,7616,' "$D/copies.csv"
check "copies.csv: 4 DtoD copies of 9728 bytes" grep -Eq '^"DtoD","hip",4,9728,' "$D/copies.csv"
check "copies.csv: no other HIP copy direction" test "$(grep -c '"hip"' "$D/copies.csv")" = 3
# launches: hipLaunchCooperativeKernel and the multi-device launch of coop on every device count
# for coop; the multi-kernel launch (coop and twice) is recorded without a kernel name and is no
# one kernel's launch, nor is the one whose list is shorter than it claims (1 entry of 1000, the
# rest unreadable: read without a fault, recorded without a name); hipExtModuleLaunchKernel (no
# module) stays the one unregistered launch
check "coop: 2 HIP launches (cooperative, multi-device)" \
    test "$(hip_launches "$F" "coop(float*)")" = 2
check "multi-kernel launch not counted for twice" test -z "$(hip_launches "$F" "twice(float*)")"
check "unregistered HIP kernel: 1 launch (hipExtModuleLaunchKernel)" \
    test "$(hip_launches "$F" "(unregistered HIP kernel)")" = 1
# hipLaunchByPtr: one launch of its host stub's kernel; grid and block stay in the runtime, so the
# live view and the replay of the trace both show N/A for them (no made-up zeros)
check "legacy: 1 HIP launch (hipLaunchByPtr)" test "$(hip_launches "$F" "legacy(float*)")" = 1
check "legacy: grid and block N/A" test "$(launch_dims "$F" "legacy(float*)")" = "N/A N/A"
"$ROCSYS_TOP" --replay "$D" -b --rows 0 > "$WORK/replay3.txt" 2>/dev/null || true
R=$(last_frame "$WORK/replay3.txt")
check "replay: legacy: 1 HIP launch, grid and block N/A" \
    test "$(hip_launches "$R" "legacy(float*)") $(launch_dims "$R" "legacy(float*)")" = "1 N/A N/A"
check "replay: coop: grid and block kept" test "$(launch_dims "$R" "coop(float*)")" = "1,1,1 64,1,1"

# launch paths: step is launched 3 times from forward and 5 times from the template
# backward<float>, both through launch_step; halve once from main. Each launch is counted for
# its own call path, live and in the replay of the recording
D=$WORK/paths
"$ROCSYS_TOP" -b --rows 0 --record "$D" -- "$EX/launch_paths" 3 5 > "$WORK/paths.txt" 2>&1 || true
# paths FRAME KERNEL: "LAUNCHES:CALLERS" per path of KERNEL (callers up to main), sorted
paths() {
    awk -v k="$2" '/^-- launch paths of / {h = index($0, "of " k ":") > 0; next} /^(--|==) / {h=0}
        h && $1 ~ /^[0-9.]+$/ { p = ""; for (i = 4; i <= NF; i++) { p = p $i; if ($i == "main") break }
                                print $2 ":" p }' <<< "$1" | sort | tr '\n' ' '
}
F=$(last_frame "$WORK/paths.txt")
want_step="3:launch_step(float*,int)<forward(float*,int,int)<main 5:launch_step(float*,int)<intbackward<float>(float*,int,int)<main "
check "step: 3 launches from forward, 5 from backward<float> ($(paths "$F" "step(float*, int)"))" \
    test "$(paths "$F" "step(float*, int)")" = "$want_step"
check "halve: 1 launch from main ($(paths "$F" "halve(float*, int)"))" \
    test "$(paths "$F" "halve(float*, int)")" = "1:main "
R=$(last_frame <("$ROCSYS_TOP" --replay "$D" -b --rows 0 2>&1))
check "replay (the trace's launch_path annotations): the same launch paths" \
    test "$(paths "$R" "step(float*, int)")$(paths "$R" "halve(float*, int)")" = "${want_step}1:main "
if command -v tmux > /dev/null; then
    tmux_start paths 140 40 "$ROCSYS_TOP" --replay "$D"
    tmux_keys paths 7
    check "TUI: Kernels view" wait_screen paths 'step\(float\*, int\)' 10
    tmux_keys paths / s t e p Enter Enter
    check "TUI: Enter lists step's launch paths" wait_screen paths 'Launch paths of step\(float\*, int\): 2 paths, 8 launches' 5
    check "TUI: the caller tree: launch_step, all 8 launches" wait_screen paths '100\.0 +8 +N/A +. launch_step\(float\*, int\)' 5
    check "TUI: below it backward<float> (5) open, forward (3)" bash -c \
        "tmux -L $TMUX_SOCKET capture-pane -p -t paths | grep -Eq '62\.5 +5 +N/A +. int backward<float>' &&
         tmux -L $TMUX_SOCKET capture-pane -p -t paths | grep -Eq '37\.5 +3 +N/A +. forward\(float'"
    tmux_keys paths v
    check "TUI: v, the whole paths: backward's, 62.5% of the launches" wait_screen paths '62\.5 +5 +N/A +launch_step\(float\*, int\) < int backward<float>' 5
    tmux_keys paths Down
    check "TUI: the selected path's stack, outermost first" wait_screen paths '^  forward\(float\*, int, int\)' 5
    tmux_keys paths BSpace
    check "TUI: Backspace back to the kernels" wait_screen paths 'Hot kernels: 2 kernels' 5
    tmux_kill paths
fi

# launch paths from Python: the Python functions that launched (forward 3, backward 5) in the
# call paths, native frames (ctypes, libffi) below them
PY=$(command -v python3 || true)
if [ -n "$PY" ]; then
    "$ROCSYS_TOP" -b --rows 0 -- "$PY" "$ROCSYS_SOURCE/tests/programs/python/hip_launch.py" 3 5 \
        > "$WORK/pylaunch.txt" 2>&1 || true
    F=$(last_frame "$WORK/pylaunch.txt")
    pylaunches=$(awk '/^-- launch paths of \(unregistered HIP kernel\)/ {h=1; next} /^(--|==) / {h=0}
        h && / launch_one < forward/ {f += $2} h && / launch_one < backward/ {b += $2} END {print f + 0, b + 0}' <<< "$F")
    check "Python: launch_one launched 3 times under forward, 5 under backward ($pylaunches)" \
        test "$pylaunches" = "3 5"
else
    echo "note: no python3: launch paths from Python not exercised"
fi

# a tight loop of 200,000 failing hipLaunchKernel calls of the real runtime: every call is in
# hip_api.csv, no event dropped (the calling thread waits for the front end when its ring is
# full; a CPU sample that finds the ring full cannot wait, and is counted as dropped)
D=$WORK/many
rc_bare=0
"$EX/vector_add" 1 > /dev/null 2>&1 || rc_bare=$?
rc=0
"$ROCSYS_TOP" --record "$D" -- "$EX/vector_add" 200000 > /dev/null 2>&1 || rc=$?
check "200000 launches: exit status as without rocsys-top ($rc_bare, got $rc)" test "$rc" -eq "$rc_bare"
n=$(awk -F, '$1=="\"hipLaunchKernel\"" {print $2}' "$D/hip_api.csv")
check "200000 launches: hip_api.csv has them all (got $n)" test "$n" = 200000
n=$(grep -o '"dropped_events": [0-9]*' "$D/session.json" | grep -o '[0-9]*$')
check "200000 launches: 0 events dropped in session.json (got $n)" test "$n" = 0
finish
