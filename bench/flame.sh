#!/usr/bin/env bash
# Flame graph: the cost of the view's steps at many distinct stacks (issue 16: "fast at
# 100,000 distinct stacks"). Builds bench/flame_draw.c against BUILD_DIR's librocsys_core.a
# and runs it: a model of DISTINCT distinct stacks shaped like tests/programs/tp_many_stacks'
# (16 functions per level), then the call tree, the merge of a function's entries, the layout
# (whole and zoomed, COLS columns), the search share and the batch text, each timed REPS times
# (median and max). See docs/performance.md.
#
# usage: bench/flame.sh BUILD_DIR [DISTINCT [COLS [REPS]]]   (defaults 100000 200 21)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [DISTINCT [COLS [REPS]]]" 1 4 "$@"
src=$(cd "$here/.." && pwd)
lib=$build/librocsys_core.a
[[ -f $lib ]] || die "$lib not found (build it: cmake --build $build --target rocsys_core)"
bench_tmpdir tmp flame
# the flags CMake used (-O2 of RelWithDebInfo, or the build type's); libraries from pkg-config
cc -std=gnu11 -O2 -I"$src" -o "$tmp/flame_draw" "$here/flame_draw.c" "$lib" \
    $(pkg-config --libs ncursesw libdw zlib) -lpthread -lstdc++ -lm ||
    die "building flame_draw failed"
machine_info
"$tmp/flame_draw" "${@:2}"
