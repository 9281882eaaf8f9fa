#!/usr/bin/env bash
# End-to-end truth test of the MPI interposition (issue 30 part 1): a 4-rank Open MPI job of
# tests/programs/mpi_imbalance.c (built here with mpicc) under `mpirun rocsys-top --record`,
# with both sampling engines. Rank r burns (r + 1) x 100 ms of CPU per step, then waits for the
# others in MPI_Barrier; each rank times its own MPI calls with clock_gettime and prints them
# with its exact call counts. Per rank:
#  - DIR/rank-r/mpi.csv: the exact call counts, Sendrecv's bytes, and MPI_Barrier's and all
#    calls' share of the MPI span (AppPercentage) within 3 points of what the rank measured;
#  - the call tree has "[mpi wait] MPI_Barrier" leaves under exchange() (the code that called
#    it), and none of Open MPI's frames below them;
#  - `--merge DIR`'s ranks table carries each rank's MPI% (within 3 points of the rank's own)
#    and rank 0's top MPI call; `--replay` of a rank lists its calls per call path (exact
#    counts from main > exchange); `--replay DIR --live`'s batch frame lists the MPI calls;
#  - the same from Python (mpi4py, 2 ranks of mpi_imbalance.py): the barrier's share within 3
#    points of the rank's own measure, the leaves under the Python function that called it;
#  - a plain user (nobody) can run the same job;
#  - with MPICH too where Debian's mpich is installed beside Open MPI (mpicc.mpich,
#    mpiexec.mpich; scripts/deps): the same checks of each rank's recording.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mpi_lib.sh" # truth, csv, pct, mpi_run, mpi_check_*
mpi_need_tools
SRC="$(cd "$(dirname "$0")/../programs" && pwd)/mpi_imbalance.c"
P=$WORK/mpi_imbalance
mpicc -g -O1 -fno-omit-frame-pointer -o "$P" "$SRC" || { fail "mpicc $SRC"; finish; }
chmod 755 "$WORK" "$P"
STEPS=3

# run_job DIR ENGINE [RUNNER...]: the 4-rank job of $P recorded into DIR, started by LAUNCH;
# its output in DIR.out
LAUNCH=(mpirun --oversubscribe --allow-run-as-root -np 4)
run_job() {
    local d=$1 engine=$2
    shift 2
    mpi_run "$d" "$d.out" "$@" timeout -k 10 240 "${LAUNCH[@]}" \
        "$ROCSYS_TOP" --record "$d" --engine "$engine" -- "$P" "$STEPS" 100
}

# check_job DIR WHAT: the checks of one recorded job
check_job() {
    local d=$1 what=$2
    check "$what: mpirun exit 0 (got $rc)" test "$rc" -eq 0
    check "$what: each rank's summary has its MPI line" \
        test "$(grep -c '^MPI: [0-9.]*% of the MPI span' "$d.out")" -eq 4
    for r in 0 1 2 3; do
        local c=$d/rank-$r/mpi.csv app mpi bar
        app=$(truth "$d.out" "$r" app_ns)
        mpi=$(truth "$d.out" "$r" mpi_ns)
        bar=$(truth "$d.out" "$r" barrier_ns)
        check "$what rank $r: the program printed its measures" test -n "$app" -a -n "$mpi"
        check "$what rank $r: mpi.csv written" test -s "$c"
        for call in MPI_Init MPI_Barrier MPI_Sendrecv MPI_Allreduce MPI_Finalize; do
            local want got
            want=$(truth "$d.out" "$r" "$call")
            got=$(csv "$c" "$call" 2)
            check "$what rank $r: $call calls ${got:-missing} = the program's ${want:-?}" \
                test "${got:-x}" = "${want:-y}"
        done
        local bytes
        bytes=$(csv "$c" MPI_Sendrecv 9)
        check "$what rank $r: MPI_Sendrecv bytes ${bytes:-missing} = $(truth "$d.out" "$r" sendrecv_bytes)" \
            test "${bytes:-x}" = "$(truth "$d.out" "$r" sendrecv_bytes)"
        local bshare own_b all own_all
        bshare=$(csv "$c" MPI_Barrier 13)
        own_b=$(pct "$bar" "$app")
        check "$what rank $r: MPI_Barrier ${bshare:-missing}% of the MPI span, the rank's own ${own_b:-?}% (within 3)" \
            within "$bshare" "${own_b:-x}" 3
        all=$(awk -F, 'NR > 1 {s += $13} END {printf "%.3f", s}' "$c")
        own_all=$(pct "$mpi" "$app")
        check "$what rank $r: all MPI calls ${all}% of the MPI span, the rank's own ${own_all:-?}% (within 3)" \
            within "$all" "${own_all:-x}" 3
        check "$what rank $r: Waits column says MPI_Barrier waits" test "$(csv "$c" MPI_Barrier 12)" = 1
    done
    # rank 0 works least: it waits most in the barrier, sampled as "[mpi wait] MPI_Barrier"
    check "$what: rank 0's call tree has [mpi wait] MPI_Barrier leaves under exchange" \
        grep -q 'exchange;\[mpi wait\] MPI_Barrier [0-9]*$' "$d/rank-0/stacks.folded"
    check "$what: no frame below an [mpi wait] leaf" \
        bash -c "! grep -q '\[mpi wait\][^;]*;' '$d/rank-0/stacks.folded'"
}

D=$WORK/signal
run_job "$D" signal
check_job "$D" "signal engine"

# --merge: each rank's MPI% and the top call of the rank that waits most (rank 0: it works least)
mpi_check_merge "$D" "$D.out"

# --replay of one rank: the MPI view's calls per call path (root first)
"$ROCSYS_TOP" --replay "$D/rank-0" -b > "$WORK/replay0.out" 2>&1 < /dev/null
for call in MPI_Barrier MPI_Sendrecv MPI_Allreduce; do
    check "--replay rank 0: $call from main > exchange, $STEPS calls" \
        grep -q "^$call from .*main > exchange: $STEPS calls," "$WORK/replay0.out"
done
check "--replay rank 0: MPI_Init from main, 1 call" grep -q '^MPI_Init from .*main: 1 calls,' "$WORK/replay0.out"

# --replay DIR --live (the ranks' directories): the MPI view's batch section
mpi_check_live "$D"
mpi_perf_engine "$WORK/perf"

# Python (mpi4py): 2 ranks of tests/programs/mpi_imbalance.py
PY=/usr/bin/python3
if "$PY" -c 'import mpi4py' 2> /dev/null; then
    D=$WORK/python
    rc=0
    timeout 240 mpirun --oversubscribe --allow-run-as-root -np 2 "$ROCSYS_TOP" --record "$D" -- \
        "$PY" "$(dirname "$SRC")/mpi_imbalance.py" > "$D.out" 2>&1 || rc=$?
    check "python: mpirun exit 0 (got $rc)" test "$rc" -eq 0
    for r in 0 1; do
        line=$(grep -h "^PYMPI rank $r " "$D/rank-$r/output.log")
        own=$(awk '{print 100 * $5 / $7}' <<< "$line")
        got=$(csv "$D/rank-$r/mpi.csv" MPI_Barrier 13)
        check "python rank $r: MPI_Barrier calls = 3" test "$(csv "$D/rank-$r/mpi.csv" MPI_Barrier 2)" = 3
        check "python rank $r: MPI_Barrier ${got:-missing}% of the MPI span, the rank's own ${own:-?}% (within 3)" \
            within "$got" "${own:-x}" 3
    done
    check "python: rank 0's [mpi wait] MPI_Barrier leaves under the Python function step()" \
        grep -q 'step (mpi_imbalance.py:[0-9]*);.*\[mpi wait\] MPI_Barrier [0-9]*$' "$D/rank-0/stacks.folded"
else
    echo "    (no mpi4py for $PY: the Python checks skipped; scripts/deps installs python3-mpi4py)"
fi

# a plain user (where the build is in a directory a plain user can reach: not the Debian 13
# chroot's /root/build-rocsys; test_nonroot installs its own tree for that)
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null &&
    ! "${as_nobody[@]}" test -x "$ROCSYS_TOP" -a -x "$P"; then
    echo "    (the plain-user job is skipped: nobody cannot run $ROCSYS_TOP or $P from where they are)"
elif [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    mkdir -p "$WORK/nobody-home" && chmod 777 "$WORK/nobody-home"
    run_job "$WORK/nobody-home/rec" signal setpriv --reuid=nobody --regid=nogroup --clear-groups \
        env HOME="$WORK/nobody-home" TMPDIR="$WORK/nobody-home"
    check "plain user: mpirun exit 0 (got $rc)" test "$rc" -eq 0
    for r in 0 1 2 3; do
        check "plain user rank $r: MPI_Barrier calls = $STEPS" \
            test "$(csv "$WORK/nobody-home/rec/rank-$r/mpi.csv" MPI_Barrier 2)" = "$STEPS"
    done
fi

# MPICH (Debian's mpich beside Open MPI: its own compiler wrapper and launcher; the PMPI
# interposition of its int handles, with its library's own frames below the wait leaves).
# Debian 13's MPICH 4.2 (UCX inside) once hung the job (a rank's sampling handler waited for
# libunwind's cache lock, held by a thread waiting for the loader lock the interrupted code held)
# and then crashed it (UCX's own dlclose hook unmapped objects our loader snapshot still listed).
if command -v mpicc.mpich > /dev/null && command -v mpiexec.mpich > /dev/null; then
    P=$WORK/mpi_imbalance_mpich
    if mpicc.mpich -g -O1 -fno-omit-frame-pointer -o "$P" "$SRC" 2> "$WORK/mpich.err"; then
        check "MPICH: the program uses libmpich" bash -c "ldd '$P' | grep -q libmpich"
        LAUNCH=(mpiexec.mpich -n 4)
        run_job "$WORK/mpich" signal
        check_job "$WORK/mpich" "MPICH"
    else
        fail "MPICH: mpicc.mpich cannot build $SRC: $(head -c 300 "$WORK/mpich.err")"
    fi
else
    echo "    (no MPICH (mpicc.mpich, mpiexec.mpich): its checks skipped; scripts/deps installs mpich libmpich-dev)"
fi
finish
