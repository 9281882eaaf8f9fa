#!/usr/bin/env bash
# End-to-end: OpenMP. tests/programs/omp_imbalance.c runs 8 parallel regions of 3 threads in
# imbalanced(), thread i spinning (i + 1) x 10 ms of its CPU time, and prints what it measured of
# itself: each thread's work, the imbalance (100 x sum(slowest - mean) / sum(slowest)) and the
# threads' share of the region's time spent after their work (the closing barrier).
# LLVM's libomp (clang -fopenmp): rocsys-top gets the regions through OMPT (collector/ompt.c):
# omp.csv's imbalance and barrier share within 3 points of the program's own; the region named
# "omp parallel imbalanced (omp_imbalance.c:LINE)" with LINE the construct's (the program prints
# it); 8 instances of 3 threads; the Regions view and the trace have one instance per region and
# thread (24 slices); the batch frame's OpenMP section says the same. GCC's libgomp (no OMPT):
# the outlined body is named "imbalanced [omp parallel 0]" in the hot list and the gap is said
# once in the header's notice. A program without OpenMP: the collector's OMPT part never runs
# (its log) and omp.csv has no row. Each build is skipped (said) where its compiler or OpenMP
# runtime is missing (Debian: clang-14 libomp-dev; gcc).
# Waits as leaves (libomp, both sampling engines): the program's barrier mode (12 regions in
# barrier_wait(), thread i spinning (i + 1) x 10 ms of CPU time, then an explicit barrier) prints
# the threads' CPU time in the barrier as a share of their CPU time in the region's body; the
# recorded call trees end those samples in "[omp wait] explicit barrier" under the region's
# outlined function (.omp_outlined. with clang 14, FUNCTION.omp_outlined with clang 19), with none of libomp's frames above or below the leaf, and
# their share of the region's samples is within 3 points of the program's own (libomp told not
# to yield the CPU while it waits: see below).
# Tasks (tasks mode: one thread makes 30 tasks of 20 ms of CPU and waits for them; libomp runs
# them on the threads waiting in the task wait and in the barrier): their samples stay work
# (under task_work), as many as the tasks measured of their CPU time, not [omp wait] leaves.
source "$(dirname "$0")/lib.sh"
SRC=$ROCSYS_SOURCE/tests/programs/omp_imbalance.c
CHECKER="$ROCSYS_PROGRAMS/rocsys-trace-check"

# field NAME FILE: the value printed after NAME by the program
field() { awk -v k="$1" '$1 == k {print $2; exit}' "$2"; }
# csv_col COL FILE: column COL (by header name) of omp.csv's first row
csv_col() {
    awk -F, -v c="$1" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == c) k = i; next}
        NR == 2 {print $k; exit}' "$2"
}
# csv_name FILE: the region name of omp.csv's first row (quoted, may hold commas)
csv_name() { awk 'NR == 2 {sub(/^[0-9]+,"/, ""); sub(/",[^"]*$/, ""); print; exit}' "$1"; }

clang=""
# clang, else the newest clang-N on PATH (Debian installs clang-14, clang-19, ...)
for c in clang $(compgen -c clang- | grep -E '^clang-[0-9]+$' | sort -t- -k2 -rn | uniq); do
    command -v "$c" > /dev/null && { clang=$c; break; }
done
ran=0
if [ -z "$clang" ]; then
    echo "SKIP libomp: no clang (Debian: clang-14 libomp-dev)"
elif ! "$clang" -fopenmp -g -gdwarf-aranges -O1 -fno-omit-frame-pointer -o "$WORK/omp_llvm" \
    "$SRC" 2> "$WORK/clang.err"; then
    echo "SKIP libomp: $clang -fopenmp cannot build the program (Debian: libomp-dev): $(head -c 300 "$WORK/clang.err")"
else
    # -gdwarf-aranges: libdw 0.188 (Debian 12) finds the line of an address through
    # .debug_aranges, which clang does not write by default
    ran=1
    D=$WORK/llvm.rec
    rc=0
    ROCSYS_COLLECTOR_LOG=$WORK/llvm.clog timeout 120 "$ROCSYS_TOP" -b --rows 0 --record "$D" \
        -- "$WORK/omp_llvm" > "$WORK/llvm.frames" 2> "$WORK/llvm.err" || rc=$?
    check "libomp: exit status 0 (got $rc): $(tail -n 2 "$WORK/llvm.err")" test "$rc" -eq 0
    O=$D/output.log
    line=$(field pragma_line "$O"); want_imb=$(field imbalance_pct "$O"); want_bar=$(field barrier_pct "$O")
    check "libomp: the program printed its measures (line ${line:-?}, imbalance ${want_imb:-?}, barrier ${want_bar:-?})" \
        test -n "$line" -a -n "$want_imb" -a -n "$want_bar"
    check "libomp: the collector was started by the runtime (OMPT)" grep -q "OMPT: callbacks registered" "$WORK/llvm.clog"
    check "libomp: omp.csv has one region" test "$(wc -l < "$D/omp.csv")" -eq 2
    name=$(csv_name "$D/omp.csv")
    check "libomp: region named 'omp parallel imbalanced (omp_imbalance.c:$line)' (got '$name')" \
        test "$name" = "omp parallel imbalanced (omp_imbalance.c:$line)"
    check "libomp: 8 instances (got $(csv_col count "$D/omp.csv"))" test "$(csv_col count "$D/omp.csv")" = 8
    check "libomp: 3 threads (got $(csv_col threads "$D/omp.csv"))" test "$(csv_col threads "$D/omp.csv")" = 3
    imb=$(csv_col imbalance_pct "$D/omp.csv"); bar=$(csv_col barrier_pct "$D/omp.csv")
    check "libomp: imbalance $imb % within 3 points of the program's $want_imb %" within "$imb" "$want_imb" 3
    check "libomp: barrier share $bar % within 3 points of the program's $want_bar %" within "$bar" "$want_bar" 3
    # the Regions view: 8 instances on each of the 3 threads
    last_frame "$WORK/llvm.frames" > "$WORK/llvm.last"
    rows=$(awk -v n="omp parallel imbalanced (omp_imbalance.c:$line)" '/^== Regions/{r=1; getline; next} /^== /{r=0}
        r && index($0, n) && $1 == 8 {k++} END{print k+0}' "$WORK/llvm.last")
    check "libomp: Regions view: 8 instances on each of 3 threads ($rows rows)" test "$rows" -ge 3
    # each worker's region time is its work (to its arrival at the closing barrier): the Regions
    # view's total on its thread against the program's own sum of that thread's work
    while read -r _ i _ w _ tid; do
        [ "$i" = 0 ] && continue # the encountering thread's region spans the whole region
        got=$(awk -v n="omp parallel imbalanced (omp_imbalance.c:$line)" -v t="$tid" '/^== Regions/{r=1; getline; next} /^== /{r=0}
            r && index($0, n) && $9 == t {print $2; exit}' "$WORK/llvm.last")
        tol=$(awk -v w="$w" 'BEGIN{print w * 0.05 + 2}')
        check "libomp: thread $i (tid $tid): its region time ${got:-none} ms is its work, $w ms (within $tol)" \
            within "${got:-}" "$w" "$tol"
    done < <(grep '^thread ' "$O")
    sect=$(awk -v n="omp parallel imbalanced (omp_imbalance.c:$line)" '/^== OpenMP parallel regions/{r=1; getline; next} /^== /{r=0}
        r && index($0, n) {print $1, $2, $4; exit}' "$WORK/llvm.last")
    check "libomp: the OpenMP section: 8 instances, 3 threads, imbalance $imb (got '$sect')" \
        test "$sect" = "8 3 $imb"
    tree=$(grep -c "|_\[region\] omp parallel imbalanced (omp_imbalance.c:$line) " "$D/profile.txt" || true)
    other=$(grep -o '\[region\] omp parallel [^(]*' "$D/profile.txt" | grep -v 'omp parallel imbalanced $' | head -n 1 || true)
    check "libomp: call trees: the region above the code of each of 3 threads ($tree nodes${other:+; also: $other})" \
        test "$tree" -ge 3 -a -z "$other"
    if [ -x "$CHECKER" ]; then
        "$CHECKER" "$D/trace.pftrace" > "$WORK/llvm.check"
        check "libomp: trace valid" grep -q 'violations 0' "$WORK/llvm.check"
        n=$(grep -c "^slice .* thread \"region\" \"omp parallel imbalanced (omp_imbalance.c:$line)\" " "$WORK/llvm.check" || true)
        check "libomp: trace: 24 region slices (8 x 3 threads), got $n" test "$n" -eq 24
    fi
    # waits as leaves: the explicit barrier's share, with each engine
    engines=signal
    if "$ROCSYS_TOP" --engine perf -b --rows 1 -- true > /dev/null 2>&1; then
        engines="signal perf"
    else
        echo "    (the perf engine cannot run here: its wait-leaf checks skipped)"
    fi
    for engine in $engines; do
        D=$WORK/barrier-$engine.rec
        rc=0
        # KMP_USE_YIELD=0: the waiting threads spin in user space (libomp yields the CPU in
        # its barrier when there are more threads than cores): the program's CPU clock counts
        # the kernel's time in sched_yield, a sampling clock of user time only does not
        KMP_USE_YIELD=0 timeout 120 "$ROCSYS_TOP" -b --rows 0 --engine "$engine" --record "$D" \
            -- "$WORK/omp_llvm" barrier > /dev/null 2> "$WORK/barrier-$engine.err" || rc=$?
        check "$engine engine, barrier: exit status 0 (got $rc)" test "$rc" -eq 0
        bline=$(field barrier_line "$D/output.log"); own=$(field barrier_cpu_pct "$D/output.log")
        check "$engine engine, barrier: the program printed its measures" test -n "$bline" -a -n "$own"
        region="[region] omp parallel barrier_wait (omp_imbalance.c:$bline)"
        # the region's samples but those of its closing barrier (outside the body the program
        # measures: a thread late to it keeps the encountering one waiting there)
        read -r w t < <(awk -v r="$region" 'index($0, r) && !/\[omp wait\] implicit barrier [0-9]+$/ {
            n = $NF; t += n
            if ($0 ~ /omp_outlined[^;]*;\[omp wait\] explicit barrier [0-9]+$/) w += n}
            END {print w + 0, t + 0}' "$D/stacks.folded")
        got=$(awk -v w="$w" -v t="$t" 'BEGIN {if (t > 0) printf "%.2f", 100 * w / t}')
        check "$engine engine, barrier: '[omp wait] explicit barrier' leaves under .omp_outlined. in the region ($w of $t samples)" \
            test "$w" -ge 5
        check "$engine engine, barrier: their share ${got:-none} % within 3 points of the program's CPU share in the barrier, $own %" \
            within "${got:-}" "$own" 3
        check "$engine engine, barrier: no frame below an [omp wait] leaf" \
            bash -c "! grep -q '\[omp wait\][^;]*;' '$D/stacks.folded'"
        check "$engine engine, barrier: no libomp frame just above an [omp wait] leaf (cut at libomp's frames)" \
            bash -c "! grep -q 'libomp[^;]*;\[omp wait\]' '$D/stacks.folded'"
        # tasks run by threads that wait (in a task wait, in a barrier) are work, not waiting:
        # task_work()'s samples at 1000 Hz of CPU time against the CPU time the tasks measured
        D=$WORK/tasks-$engine.rec
        rc=0
        KMP_USE_YIELD=0 timeout 120 "$ROCSYS_TOP" -b --rows 0 -f 1000 --engine "$engine" --record "$D" \
            -- "$WORK/omp_llvm" tasks > /dev/null 2> "$WORK/tasks-$engine.err" || rc=$?
        check "$engine engine, tasks: exit status 0 (got $rc)" test "$rc" -eq 0
        own=$(field task_cpu_ms "$D/output.log")
        got=$(awk '/;task_work(;| [0-9]+$)/ {s += $NF} END {print s + 0}' "$D/stacks.folded")
        check "$engine engine, tasks: task_work's samples ($got ms) are the tasks' own CPU time, ${own:-?} ms (within 5 %), none swallowed by an [omp wait] leaf" \
            within "$got" "${own:-x}" "$(awk -v o="${own:-0}" 'BEGIN {print o * 0.05}')"
    done
fi

if ! command -v gcc > /dev/null; then
    echo "SKIP libgomp: no gcc"
elif ! gcc -fopenmp -g -O1 -fno-omit-frame-pointer -o "$WORK/omp_gnu" "$SRC" 2> "$WORK/gcc.err"; then
    echo "SKIP libgomp: gcc -fopenmp cannot build the program: $(head -c 300 "$WORK/gcc.err")"
else
    ran=1
    D=$WORK/gnu.rec
    rc=0
    timeout 120 "$ROCSYS_TOP" -b --rows 0 --record "$D" -- "$WORK/omp_gnu" \
        > "$WORK/gnu.frames" 2> "$WORK/gnu.err" || rc=$?
    check "libgomp: exit status 0 (got $rc)" test "$rc" -eq 0
    check "libgomp: hot list: the outlined body as 'imbalanced [omp parallel 0]'" \
        grep -q '^| imbalanced \[omp parallel 0\] ' "$D/profile.txt"
    check "libgomp: no raw '._omp_fn.' name left" bash -c "! grep -q '_omp_fn' '$D/profile.txt'"
    check "libgomp: the notice says libgomp has no OMPT" \
        grep -q "^notice: OpenMP: GCC's libgomp has no tool interface (OMPT)" "$WORK/gnu.frames"
    check "libgomp: no OpenMP section or omp.csv row (nothing measured)" test "$(wc -l < "$D/omp.csv")" -eq 1
fi

# no OpenMP: nothing of it runs
D=$WORK/none.rec
ROCSYS_COLLECTOR_LOG=$WORK/none.clog timeout 60 "$ROCSYS_TOP" -b --rows 0 --record "$D" \
    -- "$TP/tp_sleep" > /dev/null 2>&1 || true
check "no OpenMP: the collector ran" grep -q "started: pid" "$WORK/none.clog"
check "no OpenMP: its OMPT part never ran" bash -c "! grep -q OMPT '$WORK/none.clog'"
check "no OpenMP: omp.csv has its header only" test "$(wc -l < "$D/omp.csv")" -eq 1
[ "$ran" = 1 ] || skip "no OpenMP compiler (clang-14 + libomp-dev, or gcc)"
finish
