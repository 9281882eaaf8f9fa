#!/usr/bin/env bash
# Rolling traces (--keep): the Perfetto writer's CPU time per sample with and without them.
# Builds bench/keep_write.c against BUILD_DIR's librocsys_core.a and runs it: SAMPLES samples
# (10 stacks, 2 threads, 1 ms apart in trace time) written as a plain trace, with --keep 64K,
# --keep 2s, --keep 60s and --keep 1h, the runs alternating REPS times; prints the median CPU ns per
# sample of each (user + system), the trace's size, the chunks dropped, the ratio to the plain
# trace and the extra CPU per chunk. See docs/performance.md.
#
# usage: bench/keep.sh BUILD_DIR [SAMPLES [REPS]]   (defaults 2000000 5)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [SAMPLES [REPS]]" 1 3 "$@"
src=$(cd "$here/.." && pwd)
lib=$build/librocsys_core.a
[[ -f $lib ]] || die "$lib not found (build it: cmake --build $build --target rocsys_core)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-keep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -std=gnu11 -O2 -g -I"$src" -o "$tmp/keep_write" "$here/keep_write.c" "$lib" \
    $(pkg-config --libs ncursesw libdw zlib) -lpthread -lstdc++ -lm ||
    die "building keep_write failed"
machine_info
"$tmp/keep_write" "$tmp" "${@:2}"
