#!/usr/bin/env bash
# test_hsa_layout.cpp compiled against the headers of each ROCm release found under
# $ROCSYS_HSA_HEADERS: one extracted package root per release, named by the release as in
# collector/hsa_layout.c (DIR/6.1.2/usr/include/hsa/hsa_api_trace.h; scripts/hsa-headers DIR
# extracts Debian's libhsa-runtime-dev of every release the table knows). Each must be picked as
# exactly its own row, with every offset the header's.
# Usage: hsa_layout_releases.sh CXX SOURCE_DIR LIBROCSYS_HSA_LAYOUT WORK_DIR
# Exit 0: every release found checked out; 1: one did not; 77 (skipped): no headers found.
set -u
cxx=$1 src=$2 lib=$3 work=$4
dir=${ROCSYS_HSA_HEADERS:-}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    echo "ROCSYS_HSA_HEADERS is not a directory: no other release's headers to check (skipped)"
    exit 77
fi
mkdir -p "$work"
known=$(sed -n 's/^ *{"\([0-9][0-9.]*\)",.*/\1/p' "$src/collector/hsa_layout.c")
checked=0 bad=0
for root in "$dir"/*/; do
    release=$(basename "$root")
    inc="$root/usr/include"
    [ -f "$inc/hsa/hsa_api_trace.h" ] || continue
    bin="$work/test_hsa_layout_$release"
    # the release's headers first: the installed ones (if any) are not looked at
    if ! "$cxx" -std=c++17 -DAMD_INTERNAL_BUILD -DROCSYS_EXPECT_RELEASE="\"$release\"" \
        -I"$inc" -I"$src" -I"$src/tests/unit" "$src/tests/unit/test_hsa_layout.cpp" "$lib" \
        -o "$bin"; then
        echo "ROCm $release: test_hsa_layout.cpp does not build against its headers"
        bad=1
        continue
    fi
    echo "== ROCm $release ($inc)"
    "$bin" || bad=1
    checked=$((checked + 1))
done
for r in $known; do
    [ -f "$dir/$r/usr/include/hsa/hsa_api_trace.h" ] || echo "ROCm $r: no headers under $dir: not checked"
done
if [ "$checked" -eq 0 ]; then
    echo "no release's headers under $dir (skipped)"
    exit 77
fi
exit $bad
