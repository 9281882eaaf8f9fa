#!/usr/bin/env bash
# End-to-end: the collector's MPI wrappers with MPICH's ABI (int handles; MPI_NAME a weak alias
# of PMPI_NAME), without MPICH installed: mpich_style_main loads a library (mpich_local_ext.c)
# linked to a stand-in MPI library (tests/programs/standin_mpich.c) that checks every handle it
# gets, with dlopen RTLD_GLOBAL, or RTLD_LOCAL as Python loads an extension module (the
# library's PMPI_ functions are then outside the global scope, where the collector's MPI_
# functions are found first); it makes 5 MPI_Send of 10 doubles and 10 MPI_Barrier of 20 ms
# asleep, and prints how many calls failed and two measures of the time in MPI_Barrier: the
# program's around the calls and the stand-in library's inside its PMPI_Barrier.
# Under rocsys-top --record --sample wall, with both engines and both scopes: no call
# fails (the handles arrive intact, PMPI_ is found), mpi.csv has the exact counts, Send's bytes (400) from the
# datatype's size and the communicator's size (4) read through PMPI, MPI_Barrier's time between
# the two measures (the wrapper reads its clock inside the program's readings and outside the
# library's; its own work in between, and on a loaded machine the preemptions there, count in
# the program's measure only: on a loaded machine once 63 ms of 772), and
# "[mpi wait] MPI_Barrier" leaves under mpich_exchange(). A program without MPI gets an mpi.csv
# with only its header.
source "$(dirname "$0")/lib.sh"
P=$ROCSYS_PROGRAMS/mpich_style_main
EXT=$ROCSYS_PROGRAMS/libmpich-local-ext.so
[ -x "$P" ] && [ -e "$EXT" ] || skip "mpich_style_main not built"

# csv FILE CALL COLUMN: a column (1-based) of CALL's row of mpi.csv
csv() { awk -F, -v c="\"$2\"" -v k="$3" '$1==c {print $k}' "$1"; }

for run in signal:global signal:local perf:global perf:local; do
    engine=${run%:*} scope=${run#*:}
    if [ "$engine" = perf ] && ! "$ROCSYS_TOP" --engine perf -b --rows 1 -- true > /dev/null 2>&1; then
        echo "    (the perf engine cannot run here: its checks skipped)"
        continue
    fi
    D=$WORK/$engine-$scope
    rc=0
    timeout 60 "$ROCSYS_TOP" --record "$D" --sample wall --engine "$engine" -- "$P" "$scope" "$EXT" \
        > "$D.out" 2>&1 || rc=$?
    engine="$engine ($scope)"
    check "$engine: exit 0 (got $rc)" test "$rc" -eq 0
    check "$engine: every call returned 0 (the int handles arrived intact)" grep -q '^errors 0 ' "$D/output.log"
    C=$D/mpi.csv
    for want in MPI_Init:1 MPI_Send:5 MPI_Barrier:10 MPI_Finalize:1; do
        got=$(csv "$C" "${want%:*}" 2)
        check "$engine: ${want%:*} calls ${got:-missing} = ${want#*:}" test "${got:-x}" = "${want#*:}"
    done
    check "$engine: MPI_Send bytes $(csv "$C" MPI_Send 9) = 5 x 10 doubles" test "$(csv "$C" MPI_Send 9)" = 400
    check "$engine: MPI_Send's communicator size $(csv "$C" MPI_Send 11) = 4" test "$(csv "$C" MPI_Send 11)" = 4
    check "$engine: MPI_Barrier's communicator size $(csv "$C" MPI_Barrier 11) = 4" test "$(csv "$C" MPI_Barrier 11)" = 4
    own=$(sed -n 's/^errors 0 barrier_ns \([0-9]*\) inside_ns [0-9]*$/\1/p' "$D/output.log")
    inside=$(sed -n 's/^errors 0 barrier_ns [0-9]* inside_ns \([0-9]*\)$/\1/p' "$D/output.log")
    got=$(csv "$C" MPI_Barrier 3)
    check "$engine: MPI_Barrier ${got:-missing} ns, between the library's own ${inside:-?} ns inside the calls and the program's ${own:-?} ns around them" \
        awk -v g="${got:-x}" -v i="${inside:-y}" -v o="${own:-z}" \
        'BEGIN { exit !(g != "" && i != "" && o != "" && i >= 200000000 && i <= g && g <= o) }'
    check "$engine: [mpi wait] MPI_Barrier leaves under mpich_exchange" \
        grep -q 'mpich_exchange;\[mpi wait\] MPI_Barrier [0-9]*$' "$D/stacks.folded"
done

rc=0
"$ROCSYS_TOP" --record "$WORK/nompi" -- "$TP/tp_exit" 0 50 > /dev/null 2>&1 || rc=$?
check "a program without MPI: exit 0 (got $rc)" test "$rc" -eq 0
check "a program without MPI: mpi.csv has only its header" test "$(wc -l < "$WORK/nompi/mpi.csv")" -eq 1
finish
