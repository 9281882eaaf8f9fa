# shellcheck shell=bash
# Helpers shared by the benchmark scripts (sourced, not run). Bash.

# Print a message on stderr and exit 1.
die() {
    echo "$(basename "$0"): $*" >&2
    exit 1
}

# bench_args ARGS MIN MAX "$@": the command line every benchmark takes, BUILD_DIR first.
# -h/--help prints the script's header comment; a wrong argument count prints "usage: SCRIPT
# ARGS" (both exit 2). Sets build to BUILD_DIR's absolute path (dies when it is not one).
bench_args() {
    local args=$1 min=$2 max=$3
    shift 3
    if [[ ${1:-} == -h || ${1:-} == --help ]]; then
        awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
        exit 2
    fi
    if (($# < min || $# > max)); then
        echo "usage: $0 $args" >&2
        exit 2
    fi
    build=$(cd "$1" 2>/dev/null && pwd) || die "no such build directory: $1"
}

# bench_rocsys_top [VAR]: VAR (default rocsys_top) set to BUILD_DIR's rocsys-top, or die.
# Needs bench_args first (build).
bench_rocsys_top() {
    local var=${1:-rocsys_top}
    [[ -x $build/rocsys-top ]] || die "$build/rocsys-top not found (build it: cmake --build $build)"
    printf -v "$var" '%s' "$build/rocsys-top"
}

# bench_tmpdir VAR NAME: VAR set to a new directory ${TMPDIR:-/tmp}/rocsys-NAME.XXXXXX, removed
# when the script exits.
bench_tmpdir() {
    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-$2.XXXXXX")
    printf -v "$1" '%s' "$dir"
    # shellcheck disable=SC2064 # the path is fixed now
    trap "rm -rf '$dir'" EXIT
}

# positive_int NAME VALUE: die unless VALUE is a whole number >= 1.
positive_int() {
    [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 must be a whole number >= 1 (got '$2')"
}

# Print a note on stderr.
note() {
    echo "$(basename "$0"): $*" >&2
}

# Path of a program built from tests/programs (tp_NAME) under the build dir, or die.
find_program() {
    local build=$1 name=$2 d
    for d in "$build/tests" "$build/tests/programs" "$build"; do
        if [[ -x $d/$name ]]; then
            echo "$d/$name"
            return 0
        fi
    done
    die "$name not found under $build (build it: cmake --build $build --target $name)"
}

# build_hip_calls BUILD OUT: bench/hip_calls.c built as OUT against the HSA harness's stand-in
# HIP library (tests/programs/fakehip.c: a call that returns at once); dies when not built.
build_hip_calls() {
    local harness fakehip
    harness=$(find_program "$1" tp_hsa_harness)
    fakehip=$(dirname "$harness")/libtp_fakehip.so
    [[ -f $fakehip ]] || die "$fakehip not found"
    cc -O2 -o "$2" "$(dirname "${BASH_SOURCE[0]}")/hip_calls.c" -L"$(dirname "$fakehip")" \
        -ltp_fakehip -Wl,-rpath,"$(dirname "$fakehip")"
}

# Median of the numbers on stdin (one per line; blank lines ignored); prints "-" if none.
median() {
    sort -g | awk 'NF { v[n++] = $1 }
        END {
            if (n == 0) { print "-"; exit }
            if (n % 2) printf "%.10g\n", v[(n - 1) / 2]
            else printf "%.10g\n", (v[n / 2 - 1] + v[n / 2]) / 2
        }'
}

# The number after KEY in LINE (KEY is an extended regex, e.g. 'sample cost'); "-" if absent.
# The first match counts. Accepts integers and decimals; a % or unit after the number is
# ignored.
field_after() {
    local line=$1 key=$2 v
    v=$(grep -oE "${key}[: =]*[0-9]+(\.[0-9]+)?" <<<"$line" | head -n 1 |
        grep -oE '[0-9]+(\.[0-9]+)?$' || true)
    echo "${v:--}"
}

# The status lines of a batch-mode output file: the header line of each frame ("mode ...",
# with the samples, the sampling cost: "sample cost" (signal engine) or "unwind" (perf engine)
# and the front end's CPU). One per frame, oldest first.
status_lines() {
    grep -E '^mode ' "$1" || true
}

# newest_pyenv MINOR (e.g. 3.12): the newest ~/.pyenv/versions/MINOR.*/bin/python3, or nothing
newest_pyenv() {
    ls -d "$HOME"/.pyenv/versions/"$1".*/bin/python3 2>/dev/null | sort -V | tail -n 1 || true
}

# A one-line description of the machine, for the results header.
machine_info() {
    local cpu
    cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
    echo "machine: ${cpu:-unknown cpu}, $(nproc) cpus, kernel $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"
}

# perf_works TMPDIR: whether `perf record` works here (for the perf-dwarf variant); when it
# does not, a note says why
perf_works() {
    local tmp=$1 ok=0
    if ! command -v perf >/dev/null 2>&1; then
        note "perf is not installed: skipping the perf-dwarf variant"
        ok=1
    elif ! perf record -q -o "$tmp/probe.data" -- true >"$tmp/probe.log" 2>&1; then
        note "perf record does not work here (see below): skipping the perf-dwarf variant"
        sed 's/^/    /' "$tmp/probe.log" >&2
        ok=1
    fi
    rm -f "$tmp/probe.data" "$tmp/probe.log"
    return $ok
}
