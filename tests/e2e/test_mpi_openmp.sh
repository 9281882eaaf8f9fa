#!/usr/bin/env bash
# End-to-end "done when" of issue 30: a 4-rank MPI + OpenMP job (tests/programs/mpi_omp.c,
# built here with mpicc and clang -fopenmp: LLVM's libomp) under `mpirun rocsys-top -b --record`,
# with both sampling engines. Each step, every rank runs one parallel region of 2 threads whose
# thread i works (i + 1) x 30 ms (imbalanced), then works rank x 40 ms alone, then waits for
# the others in MPI_Barrier. Each rank prints what it measured of itself (MPITRUTH: its time in
# MPI_Barrier and in all MPI calls, the MPI span, its calls, the region's line and imbalance).
# Checked against that, per rank:
#  - which rank waits in which MPI call and for how long: mpi.csv's MPI_Barrier calls (exact),
#    time and share of the MPI span (within 3 points), in the live batch frame's MPI section
#    too; the call tree's "[mpi wait] MPI_Barrier" leaves under exchange();
#  - which OpenMP region is imbalanced: omp.csv and the live frame's OpenMP section name
#    "omp parallel step_region (mpi_omp.c:LINE)", its instances and threads (exact) and its
#    imbalance (within 3 points); the call tree's "[omp wait] implicit barrier" leaves under
#    step_region (the encountering thread waiting for the slower one);
#  - `--merge`: each rank's MPI% (within 3 points), the top MPI call of the rank that waits
#    most; `--replay DIR --live`: the MPI section lists MPI_Barrier, the Ranks section the
#    region.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mpi_lib.sh" # truth, csv, pct, mpi_run, mpi_check_*
mpi_need_tools
clang=""
for c in clang $(compgen -c clang- | grep -E '^clang-[0-9]+$' | sort -t- -k2 -rn | uniq); do
    command -v "$c" > /dev/null && { clang=$c; break; }
done
[ -n "$clang" ] || skip "no clang (Debian: clang-14 libomp-dev)"
SRC=$ROCSYS_SOURCE/tests/programs/mpi_omp.c
P=$WORK/mpi_omp
# -gdwarf-aranges: libdw 0.188 (Debian 12) finds a line through .debug_aranges
OMPI_CC=$clang MPICH_CC=$clang mpicc -fopenmp -g -gdwarf-aranges -O1 -fno-omit-frame-pointer \
    -o "$P" "$SRC" 2> "$WORK/cc.err" ||
    skip "mpicc with $clang -fopenmp cannot build $SRC (Debian: libomp-dev): $(head -c 300 "$WORK/cc.err")"
STEPS=4

# run_job DIR ENGINE: the 4-rank job recorded into DIR, each rank's batch frames in DIR.frames.R
run_job() {
    local d=$1 engine=$2
    # KMP_USE_YIELD=0: a thread waiting in libomp's barrier spins in user space (libomp yields
    # the CPU there when there are more threads than cores, and a sampling clock of user time
    # only does not see the kernel's time in sched_yield)
    mpi_run "$d" "$d.truth" env KMP_USE_YIELD=0 timeout 120 mpirun --oversubscribe --allow-run-as-root -np 4 -x KMP_USE_YIELD sh -c \
        'exec "$0" -b --rows 0 --engine "$1" --record "$2" -- "$3" "$4" 30 40 > "$2.frames.$OMPI_COMM_WORLD_RANK"' \
        "$ROCSYS_TOP" "$engine" "$d" "$P" "$STEPS"
}

# check_job DIR WHAT: the checks of one job
check_job() {
    local d=$1 what=$2 r most=0 most_ns=0
    check "$what: mpirun exit 0 (got $rc)" test "$rc" -eq 0
    for r in 0 1 2 3; do
        local t=$d.truth c=$d/rank-$r/mpi.csv o=$d/rank-$r/omp.csv live app bar line imb
        app=$(truth "$t" "$r" app_ns); bar=$(truth "$t" "$r" barrier_ns)
        line=$(truth "$t" "$r" omp_line); imb=$(truth "$t" "$r" omp_imbalance_pct)
        check "$what rank $r: the program printed its measures" test -n "$app" -a -n "$bar" -a -n "$line"
        [ -n "$bar" ] && [ "$bar" -gt "$most_ns" ] && { most=$r; most_ns=$bar; }
        # MPI: which call, how long
        for call in MPI_Barrier MPI_Allreduce; do
            check "$what rank $r: $call calls $(csv "$c" "$call" 2) = the program's $(truth "$t" "$r" "$call")" \
                test "$(csv "$c" "$call" 2)" = "$(truth "$t" "$r" "$call")"
        done
        local ms own_ms share own
        ms=$(awk -v n="$(csv "$c" MPI_Barrier 3)" 'BEGIN {printf "%.1f", n / 1e6}')
        own_ms=$(awk -v n="$bar" 'BEGIN {printf "%.1f", n / 1e6}')
        share=$(csv "$c" MPI_Barrier 13); own=$(pct "$bar" "$app")
        check "$what rank $r: waits ${ms} ms in MPI_Barrier (the rank's own ${own_ms} ms), ${share:-?}% of the MPI span, the rank's own ${own:-?}% (within 3)" \
            within "$share" "${own:-x}" 3
        live=$(last_frame "$d.frames.$r")
        local lshare
        lshare=$(awk '/^== MPI:/ {m=1; next} /^== / {m=0} m && $NF == "MPI_Barrier" {print $2; exit}' <<< "$live")
        check "$what rank $r: live frame: MPI_Barrier ${lshare:-missing}% of the MPI span (within 3 of ${own:-?})" \
            within "$lshare" "${own:-x}" 3
        # OpenMP: which region is imbalanced
        local name="omp parallel step_region (mpi_omp.c:$line)" row
        row=$(awk -F, -v n="\"$name\"" '$2 == n {print $3, $4, $8}' "$o")
        check "$what rank $r: omp.csv: '$name', $STEPS instances of 2 threads (got '${row% *}')" \
            test "${row% *}" = "$STEPS 2"
        check "$what rank $r: omp.csv: imbalance ${row##* }% within 3 points of the rank's own $imb%" \
            within "${row##* }" "${imb:-x}" 3
        row=$(awk -v n="$name" '/^== OpenMP parallel regions/ {m=1; next} /^== / {m=0}
            m && index($0, n) {print $1, $2, $4; exit}' <<< "$live")
        check "$what rank $r: live frame's OpenMP section: $STEPS instances, 2 threads, imbalance within 3 of $imb% (got '$row')" \
            bash -c "test '${row% *}' = '$STEPS 2' && awk -v v='${row##* }' -v e='$imb' 'BEGIN{d=v-e; if(d<0)d=-d; exit !(v!=\"\" && d<=3)}'"
        check "$what rank $r: [omp wait] implicit barrier leaves under step_region" \
            grep -q ';step_region;\[omp wait\] implicit barrier [0-9]*$' "$d/rank-$r/stacks.folded"
    done
    check "$what: rank $most (waits most by its own measure) has [mpi wait] MPI_Barrier leaves under exchange" \
        grep -q ';exchange;\[mpi wait\] MPI_Barrier [0-9]*$' "$d/rank-$most/stacks.folded"
    check "$what: no frame below a wait leaf" \
        bash -c "! cat '$d'/rank-*/stacks.folded | grep -q '\[\(mpi\|omp\) wait\][^;]*;'"
}

D=$WORK/signal
run_job "$D" signal
check_job "$D" "signal engine"

# --merge: each rank's MPI% and the top call of the rank that waits most
mpi_check_merge "$D" "$D.truth"

# --replay DIR --live: the ranks' MPI calls and the region across the ranks
mpi_check_live "$D"
check "--replay --live: the Ranks section compares the ranks in the region step_region" \
    grep -q '^== Ranks: 4 ranks.*REGION: omp parallel step_region (mpi_omp.c:' "$D.live.out"

mpi_perf_engine "$WORK/perf"
finish
