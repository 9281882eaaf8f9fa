#!/usr/bin/env bash
# Target slowdown under rocsys-top, compared with perf record --call-graph dwarf.
#
# usage: bench/overhead.sh BUILD_DIR [RUNS]
#
# Runs tp_bench_work (a fixed amount of CPU-bound work in 2 threads) RUNS times (default 5) in
# each of three variants, alternating the variants within each round (and rotating which one
# goes first) so that slow drifts of the machine (thermal, frequency, other load) hit all of
# them alike:
#   bare        tp_bench_work ITER
#   rocsys-top-posix  BUILD_DIR/rocsys-top -b -d 10 --cpu-timer posix -- tp_bench_work ITER
#               (1000 Hz; POSIX CPU-time timers, kernel-tick resolution)
#   rocsys-top-perf   the same with --cpu-timer perf (per-thread perf events: cycles, else
#               task-clock; an interrupt per sample)
# (--cpu-timer auto, the default, picks perf on bare metal and posix under a hypervisor.)
#   rocsys-top-record the posix variant with --record DIR (every writer on: the Perfetto
#               trace, text profiles, output log), for the cost of recording; the front
#               end's own CPU with and without recording is compared too (the collector
#               does the same work either way: recording is all in the front end)
#   rocsys-top-outside  --engine perf: no sampling in the target; per-CPU perf events opened
#               by rocsys-top copy registers and 8 KiB of stack per sample, unwound in the
#               front end (the same rate and stack size as perf-dwarf below)
#   perf-dwarf  perf record --call-graph dwarf -F 1000 -o DIR/perf.data -- tp_bench_work ITER
# and prints the medians and the ratios against bare, then the collector's sample cost and
# drops from rocsys-top's last frame. See docs/performance.md.
#
# Environment: BENCH_ITER (work units per thread; default: tp_bench_work's own, ~3 s here),
# BENCH_KEEP=1 keeps the work directory (frames, logs, per-run timings).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-5}
positive_int RUNS "$runs"

work=$(find_program "$build" tp_bench_work)
timeit=$(find_program "$build" tp_timeit)
iter=${BENCH_ITER:-}
iter_args=()
if [[ -n $iter ]]; then
    [[ $iter =~ ^[1-9][0-9]*$ ]] || die "BENCH_ITER must be a positive integer, not '$iter'"
    iter_args=("$iter")
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-bench.XXXXXX")
if [[ ${BENCH_KEEP:-0} == 1 ]]; then
    note "keeping work directory $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi

# Which variants can run here.
variants=(bare)
rocsys_top=$build/rocsys-top
if [[ -x $rocsys_top ]]; then
    variants+=(rocsys-top-posix rocsys-top-record rocsys-top-perf rocsys-top-outside)
else
    note "$rocsys_top not found: skipping the rocsys-top variant"
fi
if perf_works "$tmp"; then
    variants+=(perf-dwarf)
fi

# Run one variant once (round $2); leaves $tmp/$1.$2.time (wall user sys of the whole command)
# and $tmp/$1.$2.report (the target's own wall user sys). Returns the command's status.
run_variant() {
    local v=$1 r=$2 rc=0
    local base=$tmp/$v.$r
    rm -f "$base.report"
    case $v in
    bare)
        TP_BENCH_REPORT=$base.report "$timeit" -o "$base.time" \
            "$work" "${iter_args[@]}" >"$base.log" 2>&1 || rc=$?
        ;;
    rocsys-top-posix)
        TP_BENCH_REPORT=$base.report "$timeit" -o "$base.time" \
            "$rocsys_top" -b -d 10 --cpu-timer posix -- "$work" "${iter_args[@]}" \
            >"$tmp/frames-posix.$r.txt" 2>"$base.log" || rc=$?
        ;;
    rocsys-top-record)
        TP_BENCH_REPORT=$base.report "$timeit" -o "$base.time" \
            "$rocsys_top" -b --record "$tmp/rec.$r" -d 10 --cpu-timer posix -- \
            "$work" "${iter_args[@]}" >"$tmp/frames-record.$r.txt" 2>"$base.log" || rc=$?
        rm -rf "$tmp/rec.$r"
        ;;
    rocsys-top-perf)
        TP_BENCH_REPORT=$base.report "$timeit" -o "$base.time" \
            "$rocsys_top" -b -d 10 --cpu-timer perf -- "$work" "${iter_args[@]}" \
            >"$tmp/frames.$r.txt" 2>"$base.log" || rc=$?
        ;;
    rocsys-top-outside)
        TP_BENCH_REPORT=$base.report "$timeit" -o "$base.time" \
            "$rocsys_top" -b -d 10 --engine perf -- "$work" "${iter_args[@]}" \
            >"$tmp/frames-outside.$r.txt" 2>"$base.log" || rc=$?
        ;;
    perf-dwarf)
        TP_BENCH_REPORT=$base.report "$timeit" -o "$base.time" \
            perf record -q --call-graph dwarf -F 1000 -o "$tmp/perf.data" -- \
            "$work" "${iter_args[@]}" >"$base.log" 2>&1 || rc=$?
        rm -f "$tmp/perf.data" "$tmp/perf.data.old"
        ;;
    esac
    return "$rc"
}

echo "rocsys-top overhead benchmark: tp_bench_work ${iter:-(default iterations)}, $runs rounds"
machine_info
echo "variants: ${variants[*]}"
echo

declare -A failed=()
nv=${#variants[@]}
for ((r = 1; r <= runs; r++)); do
    line="round $r/$runs:"
    for ((k = 0; k < nv; k++)); do
        v=${variants[$(((k + r - 1) % nv))]} # rotate which variant goes first
        if run_variant "$v" "$r" && [[ -s $tmp/$v.$r.report ]]; then
            read -r run_wall _ _ <"$tmp/$v.$r.time"
            line+=" $v $(printf '%.2f' "$run_wall")s"
        else
            line+=" $v FAILED"
            failed[$v]=1
            rm -f "$tmp/$v.$r.time" "$tmp/$v.$r.report" # failed runs do not count
            note "$v failed in round $r; its output:"
            tail -n 5 "$tmp/$v.$r.log" | sed 's/^/    /' >&2
        fi
    done
    echo "$line"
done
echo

# Column $2 (1 wall, 2 user, 3 sys, 0 user+sys) of the per-run files $tmp/$1.*.$3, median.
med() {
    local v=$1 col=$2 kind=$3 f
    for f in "$tmp/$v".*."$kind"; do
        [[ -s $f ]] || continue
        awk -v c="$col" '{ print (c == 0 ? $2 + $3 : $c) }' "$f"
    done | median
}

# Median of the successful runs of each variant.
declare -A wall=() cpu=() twall=() total=()
for v in "${variants[@]}"; do
    if [[ -n ${failed[$v]:-} ]]; then
        note "$v had failed runs: its medians use the successful ones only"
    fi
    wall[$v]=$(med "$v" 1 time)
    cpu[$v]=$(med "$v" 0 report)
    twall[$v]=$(med "$v" 1 report)
    total[$v]=$(med "$v" 0 time)
done

# A median as printed in the table: 3 decimals, or "-".
fmt() {
    awk -v a="$1" 'BEGIN { if (a == "-" || a == "") print "-"; else printf "%.3f", a }'
}

# a / b with 3 decimals, or "-".
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b == 0)
                                          print "-"; else printf "%.3f", a / b }'
}

echo "medians over $runs rounds; ratios against bare"
echo "  wall_s:        the whole command (profiler start-up and shut-down included)"
echo "  cpu_s:         the target's own CPU (user+sys, all threads, getrusage in the target)"
echo "  target_wall_s: the target's own wall time (start of its main to its exit)"
echo "  total_cpu_s:   user+sys of the command and its children (target + profiler)"
row='%-16s %11s %10s %10s %9s %13s %12s %12s %11s\n'
# shellcheck disable=SC2059 # the format is the variable
printf "$row" variant 'wall_s(med)' 'cpu_s(med)' wall_ratio cpu_ratio target_wall_s \
    target_ratio total_cpu_s total_ratio
for v in "${variants[@]}"; do
    # shellcheck disable=SC2059
    printf "$row" "$v" "$(fmt "${wall[$v]}")" "$(fmt "${cpu[$v]}")" \
        "$(ratio "${wall[$v]}" "${wall[bare]}")" "$(ratio "${cpu[$v]}" "${cpu[bare]}")" \
        "$(fmt "${twall[$v]}")" "$(ratio "${twall[$v]}" "${twall[bare]}")" \
        "$(fmt "${total[$v]}")" "$(ratio "${total[$v]}" "${total[bare]}")"
done

# Median over rounds of the front end's CPU % in the last frame of $tmp/$1.ROUND.txt.
front_end_median() {
    local r last vals=()
    for ((r = 1; r <= runs; r++)); do
        [[ -s $tmp/$1.$r.txt ]] || continue
        last=$(status_lines "$tmp/$1.$r.txt" | tail -n 1)
        [[ -n $last ]] && vals+=("$(field_after "$last" 'front end')")
    done
    ((${#vals[@]})) || return 0
    printf '%s\n' "${vals[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

if [[ " ${variants[*]} " == *" rocsys-top-record "* ]]; then
    echo
    echo "recording cost (rocsys-top-record against rocsys-top-posix, same sampler):" \
        "target_wall $(ratio "${twall[rocsys-top-record]}" "${twall[rocsys-top-posix]}")," \
        "wall $(ratio "${wall[rocsys-top-record]}" "${wall[rocsys-top-posix]}")," \
        "total_cpu $(ratio "${total[rocsys-top-record]}" "${total[rocsys-top-posix]}")"
    # The front end's CPU (% of one core since its start, from each run's last frame): the
    # difference is what recording costs; on a machine the target keeps busy it can slow the
    # target by at most that share of one core divided by the number of CPUs.
    fe_live=$(front_end_median frames-posix)
    fe_rec=$(front_end_median frames-record)
    if [[ -n $fe_live && -n $fe_rec ]]; then
        ncpu=$(nproc)
        echo "front end CPU (median over rounds, % of one core): live $fe_live, recording $fe_rec;" \
            "recording adds $(awk -v a="$fe_rec" -v b="$fe_live" 'BEGIN { printf "%.2f", a - b }') % of a core," \
            "at most $(awk -v a="$fe_rec" -v b="$fe_live" -v n="$ncpu" 'BEGIN { d = (a - b) / n; printf "%.2f", d < 0 ? 0 : d }') % of the target's wall time on $ncpu busy CPUs"
    fi
fi

# The collector's figures from rocsys-top's last frame of the last successful round, per
# sampler.
for kind in posix perf; do
    [[ " ${variants[*]} " == *" rocsys-top-$kind "* ]] || continue
    file=frames-posix
    [[ $kind == perf ]] && file=frames
    last=""
    for ((r = runs; r >= 1; r--)); do
        if [[ -s $tmp/$file.$r.txt ]]; then
            last=$(status_lines "$tmp/$file.$r.txt" | tail -n 1)
            [[ -n $last ]] && break
        fi
    done
    echo
    if [[ -z $last ]]; then
        note "no 'sample cost' line in rocsys-top-$kind's batch output: collector figures unavailable"
    else
        echo "rocsys-top-$kind last frame (round $r): samples $(field_after "$last" 'samples')," \
            "dropped $(field_after "$last" 'dropped')," \
            "sample cost $(field_after "$last" 'sample cost') ns," \
            "front end $(field_after "$last" 'front end')% cpu"
        echo "  status line: $last"
    fi
done
auto=$("$rocsys_top" -b --rows 1 -- "$work" 1 2>/dev/null | grep -Eo 'timer [a-z-]+' | tail -n 1)
echo
echo "--cpu-timer auto picks on this machine: ${auto:-?} ($(grep -qw hypervisor /proc/cpuinfo && echo 'hypervisor present' || echo 'bare metal'))"
