#!/usr/bin/env bash
# Cost of a region of the `rocsys` Python module (python/rocsys): without rocsys-top (the
# module's no-op forms) and under rocsys-top (two ctypes calls into the collector per region),
# printed side by side per form of region.
#
# usage: bench/py_regions.sh BUILD_DIR [RUNS] [PYTHON]
#
# Each run starts tests/programs/python_regions/bench.py with PYTHON (default python3) twice:
# alone (PYTHONPATH set to the build's module) with 50 bursts of 20,000 regions per form, and
# under BUILD_DIR/rocsys-top -b with 100 bursts of 500 (60 ms apart: a burst fits in the ring,
# nothing is dropped; the frames' drop count is checked). The forms: raw (the ctypes calls
# alone), region (`with rocsys.region("load")`), cached (`with r:`), profile (a call of an
# @rocsys.profile function, less the plain call). A run prints each form's median burst in ns
# per region; the last lines have the medians over the runs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS] [PYTHON]" 1 3 "$@"
runs=${2:-3}
positive_int RUNS "$runs"
python=${3:-python3}
command -v "$python" > /dev/null || die "$python not found"
bench_rocsys_top
[[ -f $build/lib/python/rocsys/__init__.py ]] || die "no rocsys module under $build/lib/python"
bench="$here/../tests/programs/python_regions/bench.py"
bench_tmpdir work bench-pyregions

machine_info
echo "python: $("$python" -c 'import sys; print(sys.version.split()[0])') ($python)"
printf '%-5s %-8s %12s %12s %8s\n' run form without under dropped
for ((r = 1; r <= runs; r++)); do
    PYTHONPATH=$build/lib/python "$python" "$bench" 50 20000 > "$work/plain.txt"
    "$rocsys_top" -b -d 50 --rows 0 --output-log "$work/out.log" -- "$python" "$bench" 100 500 \
        > "$work/frames.txt"
    grep -q '^active 1' "$work/out.log" || die "the collector did not take the calls: $(cat "$work/out.log")"
    dropped=$(grep -Eo 'dropped [0-9]+' "$work/frames.txt" | tail -1 | grep -Eo '[0-9]+')
    for form in raw region cached profile; do
        plain=$(awk -v f="$form" '$1 == f {print $2}' "$work/plain.txt")
        under=$(awk -v f="$form" '$1 == f {print $2}' "$work/out.log")
        printf '%-5s %-8s %12s %12s %8s\n' "$r" "$form" "${plain:--}" "$under" "$dropped"
        [[ -n $plain ]] && echo "$plain" >> "$work/plain.$form"
        echo "$under" >> "$work/under.$form"
    done
done
echo "median over $runs runs, ns per region (without rocsys-top / under it):"
for form in raw region cached profile; do
    printf '  %-8s %10s / %s\n' "$form" "$( [[ -s $work/plain.$form ]] && median < "$work/plain.$form" || echo -)" \
        "$(median < "$work/under.$form")"
done
