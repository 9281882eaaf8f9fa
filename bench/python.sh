#!/usr/bin/env bash
# Python targets: the handler's cost of reading Python frames, and the slowdown of a CPU-bound
# pure-Python program under rocsys-top, compared with perf record --call-graph dwarf.
#
# usage: bench/python.sh BUILD_DIR [RUNS]
#
# For each CPython chosen (default: the newest 3.8 ... 3.13 under ~/.pyenv/versions), runs
# bench/py_work.py (ITER iterations of a pure-Python arithmetic loop at a Python call depth of
# DEPTH, default 50: <module>, main, 47 py_recurse frames, py_spin) RUNS times (default 5) in
# each of four variants:
#   bare        python3 py_work.py ITER DEPTH
#   rocsys-top  BUILD_DIR/rocsys-top -b -d 10 -- python3 py_work.py ITER DEPTH (default rate,
#               1000 Hz; default timer unless BENCH_TIMER; Python frames read in the handler)
#   py-off      the same with --python off: native frames only, the same native stack
#   perf-dwarf  perf record --call-graph dwarf -F 1000 -o TMP/perf.data -- python3 py_work.py
#               ITER DEPTH
# Each round runs every interpreter in turn, and each interpreter's variants one after the
# other, rotating which goes first, so that slow drifts of the machine hit all alike. The
# iterations are calibrated once per interpreter (before the rounds) so that a bare run takes
# about BENCH_SECONDS of CPU.
#
# Printed per interpreter, medians over the rounds:
#  - the collector's median cost per sample (the handler, measured on one sample in 16; the
#    batch output's last status line, "sample cost N ns", is the whole session's median) with
#    Python frames and with --python off, and the difference: the cost of reading 50 Python
#    frames (also the median of the rounds' paired differences, and the lowest run's cost with
#    Python frames minus the lowest without: a run's median can land in a slow mode of the
#    native unwinder, see docs/performance.md);
#  - the target's own wall and CPU time (written by py_work.py itself: start-up of the
#    interpreter and of the profiler excluded) and the whole command's wall time, with their
#    ratios against bare: the slowdown under rocsys-top and under perf.
# When tp_deep is built, a native reference runs in each round too: rocsys-top -b -d 10 --
# tp_deep 1 DEPTH-4 SECONDS (one C thread whose stack is about DEPTH frames), its median cost
# per sample. See docs/performance.md, "Python".
#
# Environment: BENCH_PYTHONS="3.8 3.13" (minor versions and/or paths of python3 executables;
# default every 3.8-3.13 found), BENCH_SECONDS (CPU seconds of a bare run, default 1.5:
# the default run, 6 interpreters x 5 rounds, takes 4-5 minutes here),
# BENCH_ITER (iterations, instead of calibrating), BENCH_DEPTH (Python frames at the hot loop,
# default 50), BENCH_TIMER=auto|perf|posix (rocsys-top's --cpu-timer, default auto),
# BENCH_PERF=0 (skip perf-dwarf), BENCH_NATIVE=0 (skip the native reference), BENCH_KEEP=1
# (keep the work directory: batch frames, per-run timings, logs).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-5}
positive_int RUNS "$runs"

bench_rocsys_top
timeit=$(find_program "$build" tp_timeit)
work_py=$here/py_work.py
[[ -f $work_py ]] || die "$work_py is missing"
seconds=${BENCH_SECONDS:-1.5}
if ! [[ $seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v s="$seconds" 'BEGIN { exit !(s > 0) }'; then
    die "BENCH_SECONDS must be a positive number, not '$seconds'"
fi
depth=${BENCH_DEPTH:-50}
if ! [[ $depth =~ ^[0-9]+$ ]] || ((depth < 4 || depth > 400)); then
    die "BENCH_DEPTH must be a whole number from 4 to 400, not '$depth'"
fi
iter=${BENCH_ITER:-}
[[ -z $iter || $iter =~ ^[1-9][0-9]*$ ]] || die "BENCH_ITER must be a positive integer, not '$iter'"
timer=${BENCH_TIMER:-auto}
case $timer in auto | perf | posix) ;; *) die "BENCH_TIMER must be auto, perf or posix, not '$timer'" ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-python.XXXXXX")
if [[ ${BENCH_KEEP:-0} == 1 ]]; then
    note "keeping work directory $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi

# -- the interpreters: pys (paths) and labels (their versions)
pys=()
labels=()
add_python() { # PATH
    local v
    v=$("$1" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null) || {
        note "$1 does not run: skipped"
        return 0
    }
    pys+=("$1")
    labels+=("$v")
}
if [[ -n ${BENCH_PYTHONS:-} ]]; then
    for want in $BENCH_PYTHONS; do
        if [[ $want == */* ]]; then
            [[ -x $want ]] || die "BENCH_PYTHONS: $want is not an executable"
            add_python "$want"
        elif [[ $want =~ ^3\.[0-9]+$ ]]; then
            p=$(newest_pyenv "$want")
            [[ -n $p ]] || die "BENCH_PYTHONS: no $HOME/.pyenv/versions/$want.*/bin/python3"
            add_python "$p"
        else
            die "BENCH_PYTHONS: '$want' is neither a version like 3.8 nor a path"
        fi
    done
else
    for m in 8 9 10 11 12 13; do
        p=$(newest_pyenv "3.$m")
        if [[ -n $p ]]; then
            add_python "$p"
        else
            note "python 3.$m: not installed (no $HOME/.pyenv/versions/3.$m.*/bin/python3)"
        fi
    done
fi
((${#pys[@]})) || die "no Python interpreter found (set BENCH_PYTHONS)"
np=${#pys[@]}

# -- the variants
variants=(bare rocsys-top py-off)
if [[ ${BENCH_PERF:-1} == 0 ]]; then
    note "BENCH_PERF=0: skipping the perf-dwarf variant"
elif perf_works "$tmp"; then
    variants+=(perf-dwarf)
fi
nv=${#variants[@]}
deep=""
if [[ ${BENCH_NATIVE:-1} != 0 ]]; then
    deep=$(find_program "$build" tp_deep 2>/dev/null) || {
        deep=""
        note "tp_deep not built: no native reference (cmake --build $build --target tp_deep)"
    }
fi
native_depth=$((depth - 4)) # tp_deep: about DEPTH+4 frames a sample
native_seconds=$(awk -v s="$seconds" 'BEGIN { printf "%d", s < 1 ? 1 : s + 0.5 }')

# -- calibration: iterations for about $seconds of CPU in a bare run, per interpreter
iters=()
for ((i = 0; i < np; i++)); do
    if [[ -n $iter ]]; then
        iters[i]=$iter
        continue
    fi
    probe=2000000
    PY_BENCH_REPORT=$tmp/calib.$i "${pys[i]}" "$work_py" "$probe" "$depth" 2>/dev/null ||
        die "${pys[i]} $work_py failed"
    iters[i]=$(awk -v p="$probe" -v s="$seconds" '{ c = $2 + $3; if (c <= 0) c = 0.001;
        n = p * s / c; printf "%d\n", n < 1000 ? 1000 : n }' "$tmp/calib.$i")
done

# Run variant $1 of interpreter $2 once (round $3); leaves $tmp/V.I.R.time (wall user sys of
# the whole command), $tmp/V.I.R.report (the target's own wall user sys) and, for rocsys-top,
# $tmp/V.I.R.frames. Returns the command's status.
run_variant() {
    local v=$1 i=$2 r=$3 rc=0
    local base=$tmp/$v.$i.$r
    local cmd=()
    [[ $v == native ]] || cmd=("${pys[i]}" "$work_py" "${iters[i]}" "$depth")
    rm -f "$base.report"
    case $v in
    bare)
        PY_BENCH_REPORT=$base.report "$timeit" -o "$base.time" "${cmd[@]}" >"$base.log" 2>&1 ||
            rc=$?
        ;;
    rocsys-top | py-off)
        local py=on
        [[ $v == py-off ]] && py=off
        PY_BENCH_REPORT=$base.report "$timeit" -o "$base.time" \
            "$rocsys_top" -b -d 10 --cpu-timer "$timer" --python "$py" -- "${cmd[@]}" \
            >"$base.frames" 2>"$base.log" || rc=$?
        ;;
    perf-dwarf)
        PY_BENCH_REPORT=$base.report "$timeit" -o "$base.time" \
            perf record -q --call-graph dwarf -F 1000 -o "$tmp/perf.data" -- "${cmd[@]}" \
            >"$base.log" 2>&1 || rc=$?
        rm -f "$tmp/perf.data" "$tmp/perf.data.old"
        ;;
    native)
        "$rocsys_top" -b -d 10 --cpu-timer "$timer" -- "$deep" 1 "$native_depth" \
            "$native_seconds" >"$base.frames" 2>"$base.log" || rc=$?
        ;;
    esac
    return "$rc"
}

# The last status line's "sample cost" of $1 (a frames file), or "-".
last_cost() {
    local last
    last=$(status_lines "$1" | tail -n 1)
    field_after "$last" 'sample cost'
}

echo "rocsys-top on Python: bench/py_work.py at Python depth $depth, $runs rounds," \
    "~${seconds} s of CPU a run, --cpu-timer $timer"
machine_info
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 0; i < np; i++)); do
    echo "python ${labels[i]}: ${pys[i]}, ${iters[i]} iterations"
done
echo "variants: ${variants[*]}${deep:+ (and native: tp_deep 1 $native_depth $native_seconds under rocsys-top)}"
echo

declare -A failed=()
sum_py=()
for ((r = 1; r <= runs; r++)); do
    for ((i = 0; i < np; i++)); do
        line="round $r/$runs ${labels[i]}:"
        for ((k = 0; k < nv; k++)); do
            v=${variants[$(((k + r + i - 1) % nv))]} # rotate which variant goes first
            base=$tmp/$v.$i.$r
            if run_variant "$v" "$i" "$r" && [[ -s $base.report ]]; then
                read -r run_wall _ _ <"$base.time"
                line+=" $v $(printf '%.2f' "$run_wall")s"
                if [[ -f $base.frames ]]; then
                    c=$(last_cost "$base.frames")
                    line+=" (${c} ns)"
                    echo "$c" >"$base.cost"
                    # the Python status line: were the frames read?
                    pyline=$(grep -E '^python [0-9]' "$base.frames" | tail -n 1 || true)
                    if [[ $v == rocsys-top && $pyline != *" frames "* ]]; then
                        note "${labels[i]} round $r: rocsys-top did not read Python frames: '${pyline:-no python line}'"
                    fi
                    unread=$(field_after "$pyline" 'unreadable stacks')
                    [[ $unread != - && $unread != 0 ]] && line+=" [$unread unreadable]"
                fi
            else
                line+=" $v FAILED"
                failed[$v.$i]=1
                rm -f "$base.time" "$base.report" "$base.cost"
                note "${labels[i]} $v failed in round $r; its output:"
                tail -n 5 "$base.log" | sed 's/^/    /' >&2
            fi
        done
        echo "$line"
    done
    if [[ -n $deep ]]; then
        if run_variant native x "$r"; then
            c=$(last_cost "$tmp/native.x.$r.frames")
            echo "$c" >"$tmp/native.x.$r.cost"
            echo "round $r/$runs native: tp_deep ${c} ns"
        else
            note "native reference failed in round $r"
        fi
    fi
done
echo

# Column $4 (1 wall, 2 user, 3 sys, 0 user+sys) of the files $tmp/$1.$2.*.$3, median.
med() {
    local v=$1 i=$2 kind=$3 col=$4 f
    for f in "$tmp/$v.$i".*."$kind"; do
        [[ -s $f ]] || continue
        awk -v c="$col" '{ print (c == 0 ? $2 + $3 : $c) }' "$f"
    done | median
}
# Median of the costs of variant $1, interpreter $2 (ns; "-" when none).
med_cost() {
    local f
    for f in "$tmp/$1.$2".*.cost; do
        if [[ -s $f ]]; then grep -v '^-$' "$f" || true; fi
    done | median
}
# The lowest of the runs' costs of variant $1, interpreter $2 (ns; "-" when none).
min_cost() {
    local f
    for f in "$tmp/$1.$2".*.cost; do
        if [[ -s $f ]]; then grep -v '^-$' "$f" || true; fi
    done | sort -g | awk 'NR == 1 { print; found = 1 } END { if (!found) print "-" }'
}
# Median over the rounds of rocsys-top's cost minus py-off's, same round, interpreter $1.
paired_diff() {
    local r a b
    for ((r = 1; r <= runs; r++)); do
        [[ -s $tmp/rocsys-top.$1.$r.cost && -s $tmp/py-off.$1.$r.cost ]] || continue
        a=$(cat "$tmp/rocsys-top.$1.$r.cost") b=$(cat "$tmp/py-off.$1.$r.cost")
        [[ $a != - && $b != - ]] || continue
        awk -v a="$a" -v b="$b" 'BEGIN { print a - b }'
    done | median
}
fmt() { # a median with $2 decimals (default 3), or "-"
    awk -v a="$1" -v d="${2:-3}" 'BEGIN { if (a == "-" || a == "") print "-"; else printf "%.*f", d, a }'
}
ratio() { # a / b with 3 decimals, or "-"
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b == 0)
                                          print "-"; else printf "%.3f", a / b }'
}
diff_ns() { # a - b, or "-"
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "") print "-";
                                          else printf "%.0f", a - b }'
}

for k in "${!failed[@]}"; do
    note "${labels[${k##*.}]} ${k%.*} had failed runs: its medians use the successful ones only"
done

echo "medians over $runs rounds; ratios against bare"
echo "  target_wall_s: the target's own wall time (first line of py_work.py to the end of its work)"
echo "  cpu_s:         the target's own CPU (user+sys, getrusage in the target)"
echo "  wall_s:        the whole command (interpreter and profiler start-up and shut-down included)"
echo "  cost_ns:       the collector's median cost per sample (rocsys-top's last status line)"
row='%-8s %-11s %13s %12s %9s %9s %10s %10s %8s\n'
for ((i = 0; i < np; i++)); do
    declare -A tw=() cpu=() wall=() cost=()
    for v in "${variants[@]}"; do
        tw[$v]=$(med "$v" "$i" report 1)
        cpu[$v]=$(med "$v" "$i" report 0)
        wall[$v]=$(med "$v" "$i" time 1)
        cost[$v]=$(med_cost "$v" "$i")
    done
    echo
    # shellcheck disable=SC2059 # the format is the variable
    printf "$row" python variant target_wall_s target_ratio cpu_s cpu_ratio wall_s wall_ratio cost_ns
    for v in "${variants[@]}"; do
        # shellcheck disable=SC2059
        printf "$row" "${labels[i]}" "$v" "$(fmt "${tw[$v]}")" "$(ratio "${tw[$v]}" "${tw[bare]}")" \
            "$(fmt "${cpu[$v]}")" "$(ratio "${cpu[$v]}" "${cpu[bare]}")" "$(fmt "${wall[$v]}")" \
            "$(ratio "${wall[$v]}" "${wall[bare]}")" "$(fmt "${cost[$v]:--}" 0)"
    done
    sum_py[i]="$(fmt "${cost[rocsys-top]}" 0) $(fmt "${cost[py-off]}" 0)"
    sum_py[i]+=" $(diff_ns "${cost[rocsys-top]}" "${cost[py-off]}") $(fmt "$(paired_diff "$i")" 0)"
    sum_py[i]+=" $(diff_ns "$(min_cost rocsys-top "$i")" "$(min_cost py-off "$i")")"
    sum_py[i]+=" $(ratio "${tw[rocsys-top]}" "${tw[bare]}") $(ratio "${cpu[rocsys-top]}" "${cpu[bare]}")"
    if [[ " ${variants[*]} " == *" perf-dwarf "* ]]; then
        sum_py[i]+=" $(ratio "${tw[perf-dwarf]}" "${tw[bare]}") $(ratio "${cpu[perf-dwarf]}" "${cpu[bare]}")"
        sum_py[i]+=" $(ratio "${wall[perf-dwarf]}" "${wall[bare]}")"
    else
        sum_py[i]+=" - - -"
    fi
    sum_py[i]+=" $(ratio "${wall[rocsys-top]}" "${wall[bare]}")"
    unset tw cpu wall cost
done

echo
echo "summary (cost in ns: medians over the rounds; py_cost = with Python frames - --python off;"
echo "paired = median of the rounds' differences; lowest = lowest run with Python frames - lowest"
echo "run without (robust to runs whose median landed in a slow mode); ratios: medians against bare)"
srow='%-8s %8s %8s %8s %7s %7s %9s %9s %10s %10s %10s %10s\n'
# shellcheck disable=SC2059
printf "$srow" python cost_on cost_off py_cost paired lowest rt_target rt_cpu perf_target \
    perf_cpu perf_wall rt_wall
for ((i = 0; i < np; i++)); do
    read -r a b c d m e f g h w rw <<<"${sum_py[i]}"
    # shellcheck disable=SC2059
    printf "$srow" "${labels[i]}" "$a" "$b" "$c" "$d" "$m" "$e" "$f" "$g" "$h" "$w" "$rw"
done
if [[ -n $deep ]]; then
    echo
    echo "native reference (tp_deep 1 $native_depth $native_seconds, ~$depth native frames," \
        "one thread): median cost per sample $(fmt "$(med_cost native x)" 0) ns"
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
