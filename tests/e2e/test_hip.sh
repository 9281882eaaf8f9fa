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

# memory: the less common memory, copy and launch entry points (2D, peer, symbol, D8/D16/D32
# sets, pitch/array/host allocations, cooperative and C++-mangled module launches, graphs):
# each recorded once, with its result passed back unchanged
rc_bare=0
"$EX/memory" > "$WORK/bare3.txt" 2>/dev/null || rc_bare=$?
D=$WORK/m
rc=0
"$ROCSYS_TOP" -b --record "$D" -- "$EX/memory" > "$WORK/frames3.txt" 2>/dev/null || rc=$?
check "memory: exit status as without rocsys-top" test "$rc" -eq "$rc_bare"
check "memory: the program saw the same results" diff "$WORK/bare3.txt" <(grep -v rocm_agent "$D/output.log")
F=$(last_frame "$WORK/frames3.txt")
napi=0
while read -r a want; do
    napi=$((napi + 1))
    check "$a: 1 call in the HIP API view" test "$(api "$F" "$a" 2)" = 1
    check "$a: in hip_api.csv" grep -q "^\"$a\",1," "$D/hip_api.csv"
    if [ "$want" != 0 ]; then
        check "$a: error code $want passed through" test "$(api "$F" "$a" 7)" = "$want"
    fi
done < "$WORK/bare3.txt"
check "memory: 26 entry points called (got $napi)" test "$napi" -eq 26
check "copies.csv: the peer copies as DtoD" grep -Eq '^"DtoD","hip",[0-9]+,' "$D/copies.csv"

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
