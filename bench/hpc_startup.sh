#!/usr/bin/env bash
# What the MPI, OpenMP and Kokkos parts of the collector cost a program that uses none of them:
# the collector's start-up with and without them, side by side.
#
# usage: bench/hpc_startup.sh BUILD_DIR [RUNS]
#
# The variant without them is linked here from BUILD_DIR's own object files of the collector,
# all but mpi.c, mpi_calls.c, ompt.c and kokkos.c (the MPI wrappers, the OMPT tool, the Kokkos
# Tools callbacks: nothing else calls them). bench/startup_cpu.c prints the CPU time its
# process used before main() (loading and relocating, the collector's constructors and the
# threads they start: its start-up). RUNS (default 40) rounds alternate: bare; under
# BUILD_DIR/rocsys-top with the full collector; with the variant (ROCSYS_COLLECTOR_PATH); and
# preloaded outside a session (dormant), full and variant. Prints the medians, the full/variant
# ratios and the exported symbol counts.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-40}
positive_int RUNS "$runs"
top=$build/rocsys-top
full=$build/lib/librocsys-collector.so
objdir=$build/collector/CMakeFiles/rocsys-collector.dir
[[ -x $top && -f $full ]] || die "$top or $full not found (build it: cmake --build $build)"
[[ -d $objdir ]] || die "$objdir not found: the collector's object files are needed"
work=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-hpcstart.XXXXXX")
trap 'rm -rf "$work"' EXIT
objs=()
for o in "$objdir"/*.c.o; do
    case ${o##*/} in
    mpi.c.o | mpi_calls.c.o | ompt.c.o | kokkos.c.o) ;;
    *) objs+=("$o") ;;
    esac
done
variant=$work/lib/librocsys-collector.so
mkdir -p "$work/lib"
read -ra unwind_libs <<< "$(pkg-config --libs libunwind)"
cc -shared -o "$variant" "${objs[@]}" "${unwind_libs[@]}" -pthread -ldl -lrt \
    -Wl,-z,defs -Wl,-z,nodelete -Wl,-soname,librocsys-collector.so ||
    die "cannot link the collector without mpi.c, mpi_calls.c, ompt.c, kokkos.c"
cc -O2 -o "$work/startup_cpu" "$here/startup_cpu.c"

# one VARIANT: the program's start-up CPU ns
one() {
    case $1 in
    bare) "$work/startup_cpu" ;;
    dormant_full) LD_PRELOAD=$full "$work/startup_cpu" ;;
    dormant_variant) LD_PRELOAD=$variant "$work/startup_cpu" ;;
    session_full)
        "$top" -b --rows 1 --output-log "$work/log" -- "$work/startup_cpu" > /dev/null 2>&1
        cat "$work/log" ;;
    session_variant)
        ROCSYS_COLLECTOR_PATH=$variant "$top" -b --rows 1 --output-log "$work/log" \
            -- "$work/startup_cpu" > /dev/null 2>&1
        cat "$work/log" ;;
    esac | awk '$1 == "startup_cpu_ns" {print $2}'
}

variants=(bare session_full session_variant dormant_full dormant_variant)
for ((r = 0; r < runs; r++)); do
    for v in "${variants[@]}"; do
        one "$v" >> "$work/$v"
    done
done
median() { sort -n "$1" | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "start-up CPU before main(), median of $runs runs (µs):"
for v in "${variants[@]}"; do
    [[ -s $work/$v ]] || die "$v: the program printed nothing"
    printf '  %-16s %8.1f\n' "$v" "$(awk -v m="$(median "$work/$v")" 'BEGIN {print m / 1000}')"
done
for w in session dormant; do
    awk -v a="$(median "$work/${w}_full")" -v b="$(median "$work/${w}_variant")" -v w="$w" \
        'BEGIN {printf "  %s: full / without MPI+OpenMP+Kokkos = %.3f (%+.1f µs)\n", w, a / b, (a - b) / 1000}'
done
echo "  exported symbols: full $(nm -D --defined-only "$full" | wc -l), without $(nm -D --defined-only "$variant" | wc -l)"
