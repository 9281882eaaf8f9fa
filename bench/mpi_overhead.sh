#!/usr/bin/env bash
# Cost of rocsys-top's MPI interposition (collector/mpi.c) per MPI call.
#
# usage: bench/mpi_overhead.sh BUILD_DIR [RUNS]
#
# bench/mpi_calls.c (built here with mpicc) makes N calls (BENCH_CALLS, default 200000) each of
# MPI_Barrier and MPI_Allreduce on MPI_COMM_SELF (calls that wait: the wait leaf is set, bytes
# and the communicator's size are read) and MPI_Iprobe (a call that does not wait), on one rank
# (mpirun -np 1), 8 and 32 frames down (the collector captures the calling stack of every
# call: the call paths), bare and under rocsys-top --record (every call becomes a record and a
# trace slice), with the in-target sampler and with the perf engine (which adds a wait record
# per waiting call). The difference of the mean CPU ns per call of the calling thread is the cost
# the collector adds to one call (goal: <= 1 us); the wall-clock difference is printed too (on
# a loaded machine it also holds the time the thread waited for a CPU, or for the front end to
# drain its ring). The in-target sampler's own cost (1000 samples/s) is in the calling
# thread's CPU time too. RUNS (default 5) alternate the variants; medians are printed with the
# ratios.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-5}
positive_int RUNS "$runs"
calls=${BENCH_CALLS:-200000}
bench_rocsys_top top
command -v mpicc > /dev/null && command -v mpirun > /dev/null || die "mpicc and mpirun needed (openmpi-bin, libopenmpi-dev)"
bench_tmpdir work mpibench
mpicc -O2 -o "$work/mpi_calls" "$here/mpi_calls.c"
mpirun=(mpirun --oversubscribe --allow-run-as-root -np 1)
variants=(bare signal perf)
"$top" --engine perf -b --rows 1 -- true > /dev/null 2>&1 || {
    note "the perf engine cannot run here: measured with the in-target sampler only"
    variants=(bare signal)
}

# one VARIANT DEPTH: "CALL cpu_ns wall_ns" lines
one() {
    case $1 in
    bare) "${mpirun[@]}" "$work/mpi_calls" "$calls" "$2" ;;
    *) "${mpirun[@]}" "$top" --record "$work/rec" --engine "$1" -- "$work/mpi_calls" "$calls" "$2" > /dev/null
       cat "$work/rec"/rank-*/output.log
       rm -rf "$work/rec" ;;
    esac
}

for ((r = 0; r < runs; r++)); do
    for d in 8 32; do
        for v in "${variants[@]}"; do
            one "$v" "$d" > "$work/out"
            for c in MPI_Barrier MPI_Allreduce MPI_Iprobe; do
                awk -v c="$c" '$1 == c {print $2}' "$work/out" >> "$work/$v.$d.$c"
                awk -v c="$c" '$1 == c {print $3}' "$work/out" >> "$work/$v.$d.$c.wall"
            done
        done
    done
done

printf "%-40s %9s %11s %9s %7s %11s\n" "call (engine, depth)" "bare" "rocsys-top" "added" \
    "ratio" "added wall"
for d in 8 32; do
    for v in "${variants[@]:1}"; do
        for c in MPI_Barrier MPI_Allreduce MPI_Iprobe; do
            b=$(median < "$work/bare.$d.$c")
            t=$(median < "$work/$v.$d.$c")
            bw=$(median < "$work/bare.$d.$c.wall")
            tw=$(median < "$work/$v.$d.$c.wall")
            awk -v n="$c ($v, $d), CPU ns/call" -v b="$b" -v t="$t" \
                -v w="$(awk -v a="$tw" -v b="$bw" 'BEGIN {print a - b}')" \
                'BEGIN { printf "%-40s %9.1f %11.1f %9.1f %7.2f %11.1f\n", n, b, t, t - b, t / b, w }'
        done
    done
done
