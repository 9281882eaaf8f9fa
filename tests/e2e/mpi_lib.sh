# Shared by the MPI truth tests (sourced after lib.sh): reading what the ranks measured of
# themselves and what rocsys-top wrote per rank, running a job and the checks both tests make.
# truth FILE RANK KEY: the value after KEY on the rank's MPITRUTH line
truth() { awk -v r="$2" -v k="$3" '$1=="MPITRUTH" && $3==r { for (i=4;i<NF;i++) if ($i==k) print $(i+1) }' "$1" | head -1; }
# csv FILE CALL COLUMN: a column (1-based) of CALL's row of mpi.csv
csv() { awk -F, -v c="\"$2\"" -v k="$3" '$1==c {print $k}' "$1"; }
# pct PART WHOLE: 100 x PART / WHOLE
pct() { awk -v p="$1" -v w="$2" 'BEGIN { if (w > 0) printf "%.3f", 100 * p / w }'; }

# mpi_need_tools: skip the test where Open MPI's launcher or compiler wrapper is missing
mpi_need_tools() {
    local c
    for c in mpirun mpicc; do
        command -v "$c" > /dev/null || skip "$c missing (scripts/deps: openmpi-bin libopenmpi-dev)"
    done
}

# mpi_run DIR TRUTH CMD...: run the job CMD recording into DIR (its output in DIR.out, its exit
# status in rc), then append the ranks' output.log (their MPITRUTH lines) to TRUTH
mpi_run() {
    local d=$1 t=$2
    shift 2
    rc=0
    "$@" > "$d.out" 2>&1 || rc=$?
    cat "$d"/rank-*/output.log >> "$t" 2> /dev/null ||
        echo "    no rank's output.log in $d; mpirun said: $(tail -n 5 "$d.out" | tr '\n' ' ')"
}

# mpi_check_merge DIR TRUTH: `--merge DIR`'s ranks table (RANK HOST PID CPU% SAMPLES GPU_MS GPU%
# MPI% MPI_TOP ...): each rank's MPI% within 3 points of the rank's own, and the top MPI call
# of the rank that waits most in MPI_Barrier by its own measure
mpi_check_merge() {
    local d=$1 t=$2 r got own b most=0 most_ns=0 rows
    rc=0
    "$ROCSYS_TOP" --merge "$d" > "$d.merge.out" 2>&1 || rc=$?
    check "--merge exit 0 (got $rc)" test "$rc" -eq 0
    rows=$(awk '/^ *RANK  HOST/ {t=1; next} t && NF >= 13' "$d/merged-profile.txt")
    for r in 0 1 2 3; do
        got=$(awk -v r="$r" '$1==r {print $8}' <<< "$rows")
        own=$(pct "$(truth "$t" "$r" mpi_ns)" "$(truth "$t" "$r" app_ns)")
        check "--merge rank $r: MPI% ${got:-missing}, the rank's own ${own:-?}% (within 3)" \
            within "$got" "${own:-x}" 3
        b=$(truth "$t" "$r" barrier_ns)
        [ -n "$b" ] && [ "$b" -gt "$most_ns" ] && { most=$r; most_ns=$b; }
    done
    if awk -v b="$most_ns" -v m="$(truth "$t" "$most" mpi_ns)" 'BEGIN { exit !(b > m - b) }'; then
        check "--merge rank $most (waits most): MPI_TOP is MPI_Barrier (most of its MPI time, by its own measure)" \
            test "$(awk -v r="$most" '$1==r {print $9}' <<< "$rows")" = MPI_Barrier
    fi
}

# mpi_check_live DIR: `--replay DIR --live`'s batch frame (kept in DIR.live.out) lists the
# MPI calls
mpi_check_live() {
    local d=$1
    rc=0
    timeout 60 "$ROCSYS_TOP" --replay "$d" --live -b --rows 30 > "$d.live.out" 2>&1 < /dev/null || rc=$?
    check "--replay --live: exit 0 (got $rc)" test "$rc" -eq 0
    check "--replay --live: the MPI section lists MPI_Barrier" grep -q '^ .*wait  MPI_Barrier$' "$d.live.out"
}

# mpi_perf_engine DIR: the test's run_job and check_job with the perf engine (samples taken
# from outside, paired with the collector's records by time) where it can run
mpi_perf_engine() {
    if "$ROCSYS_TOP" --engine perf -b --rows 1 -- true > /dev/null 2>&1; then
        run_job "$1" perf
        check_job "$1" "perf engine"
    else
        echo "    (the perf engine cannot run here: its checks skipped)"
    fi
}
