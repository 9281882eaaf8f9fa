#!/usr/bin/env bash
# End-to-end: the real HIP 6.x runtime without a device (Debian sid's libamdhip64.so.6, 6.4.3;
# run there by the sid test bed, scripts/chroot-test --suite sid --host-build). A host program,
# tests/programs/hip6_host.c, is built here with the C compiler against the installed 6.x
# headers, plainly and with HIP_API_PER_THREAD_DEFAULT_STREAM (the _spt forms); it calls each
# family of entry points once by the name the headers give it and prints "NAME RESULT" per call.
# Checked, for both builds: its references are the runtime's versioned symbols (the 6.x headers'
# hipGetDevicePropertiesR0600@hip_6.0; hipLaunchKernel_spt with per-thread streams); under
# rocsys-top its exit status and its printed results are those of the bare run; each call is in
# the HIP API view under the symbol the program referenced, with its calls, errors and last
# error as the program saw them, and in hip_api.csv with its calls; the launches' path is
# launch_all < main (profile.txt). Coverage: every C entry point the headers declare (gcc
# -aux-info of hip_runtime_api.h) that the runtime exports is in collector/protocol_hip.h's
# ROCSYS_HIP_API_LIST, except the ones docs/architecture.md lists (HIP_UNCOUNTED below), and the
# collector library defines every entry of that list: a HIP with new entry points fails here
# until they are added. Also collector/hip_abi.h's 6.x mirrors against these headers
# (tests/unit/test_hip_layout.cpp built with the C++ compiler). Skipped where the installed HIP
# headers are not 6.x or later (Debian 12: 5.2; its HIP is covered by test_hip) or no compiler.
source "$(dirname "$0")/lib.sh"
SRC=$ROCSYS_SOURCE/tests/programs/hip6_host.c
[ -f "$SRC" ] || skip "program missing: $SRC"
ver_h=""
for d in /usr/include /opt/rocm/include; do
    [ -f "$d/hip/hip_version.h" ] && { ver_h=$d/hip/hip_version.h; break; }
done
[ -n "$ver_h" ] || skip "no HIP headers (hip/hip_version.h; Debian: libamdhip64-dev)"
major=$(awk '$1 == "#define" && $2 == "HIP_VERSION_MAJOR" {print $3; exit}' "$ver_h")
minor=$(awk '$1 == "#define" && $2 == "HIP_VERSION_MINOR" {print $3; exit}' "$ver_h")
[ -n "$major" ] || skip "no HIP_VERSION_MAJOR in $ver_h"
[ "$major" -ge 6 ] || skip "the installed HIP headers are $major.$minor ($ver_h): this test needs 6.x (the sid test bed: scripts/chroot-test --suite sid --host-build build)"
command -v cc > /dev/null || skip "no C compiler (cc)"
echo "HIP headers $major.$minor ($ver_h)"
inc=${ver_h%/hip/hip_version.h}
libdir=""
[ "$inc" = /usr/include ] || libdir=-L${inc%/include}/lib

# api FRAME NAME FIELD: a field of NAME's row in the HIP API section (2 calls, 6 errors, 7 last)
api() { awk -v n="$2" -v f="$3" '/^== HIP API/{h=1; next} /^== /{h=0} h && $8==n {print $f; exit}' <<< "$1"; }
# lacks PATTERN TEXT: no line of TEXT matches PATTERN
lacks() { ! grep -q -- "$1" <<< "$2"; }
# results FILE: the program's "NAME RESULT" lines
results() { grep -E '^hip[A-Za-z0-9_]* -?[0-9]+$' "$1" || true; }

# hip_abi.h's mirrors of the 6.x types against these headers
if command -v c++ > /dev/null; then
    out=$(c++ -D__HIP_PLATFORM_AMD__ -I"$ROCSYS_SOURCE" -I"$inc" -o "$WORK/hip_layout" \
        "$ROCSYS_SOURCE/tests/unit/test_hip_layout.cpp" 2>&1) || true
    check "test_hip_layout.cpp builds against the $major.$minor headers${out:+: $out}" test -x "$WORK/hip_layout"
    if [ -x "$WORK/hip_layout" ]; then
        out=$("$WORK/hip_layout" 2>&1) && rc=0 || rc=$?
        check "hip_abi.h's mirrors match the $major.$minor headers (exit $rc): $(tail -n 3 <<< "$out" | tr '\n' ' ')" test "$rc" -eq 0
    fi
else
    echo "SKIP hip_abi.h against the $major.$minor headers: no C++ compiler (c++)"
fi

# coverage: the headers' C entry points that the runtime exports, against the collector's list
HIP_UNCOUNTED="__hipGetPCH" # docs/architecture.md says why
lib=$(cc $libdir -print-file-name=libamdhip64.so)
lib=$(readlink -f "$lib")
if [ -f "$lib" ] && cc -D__HIP_PLATFORM_AMD__ -I"$inc" -aux-info "$WORK/aux.txt" -fsyntax-only \
    -x c - <<< '#include <hip/hip_runtime_api.h>' 2> "$WORK/aux.err"; then
    sed -n 's|^/\* [^ ]*/hip/[^ ]* \*/ extern .*[ *]\([A-Za-z_][A-Za-z0-9_]*\) (.*|\1|p' "$WORK/aux.txt" |
        sort -u > "$WORK/declared"
    readelf --dyn-syms -W "$lib" | awk '$4 == "FUNC" && $7 != "UND" {sub(/@.*/, "", $8); print $8}' |
        sort -u > "$WORK/exported"
    sed -n '/define ROCSYS_HIP_API_LIST/,/clang-format on/p' "$ROCSYS_SOURCE/collector/protocol_hip.h" |
        grep -o 'X([0-9]*, [A-Za-z0-9_]*' | awk '{print $2}' | sort -u > "$WORK/listed"
    readelf --dyn-syms -W "$ROCSYS_COLLECTOR" | awk '$4 == "FUNC" && $7 != "UND" {sub(/@.*/, "", $8); print $8}' |
        sort -u > "$WORK/wrapped"
    tr ' ' '\n' <<< "$HIP_UNCOUNTED" | sort -u > "$WORK/uncounted"
    comm -12 "$WORK/declared" "$WORK/exported" > "$WORK/entry"
    n_entry=$(wc -l < "$WORK/entry")
    check "the $major.$minor headers declare C entry points the runtime exports ($n_entry, $(basename "$lib"))" \
        test "$n_entry" -ge 400
    missing=$(comm -23 "$WORK/entry" "$WORK/listed" | comm -23 - "$WORK/uncounted" | tr '\n' ' ')
    check "every one is in ROCSYS_HIP_API_LIST but $HIP_UNCOUNTED (not counted: ${missing:-none})" \
        test -z "$missing"
    unwrapped=$(comm -23 "$WORK/listed" "$WORK/wrapped" | tr '\n' ' ')
    check "the collector defines every entry point of the list (missing: ${unwrapped:-none})" \
        test -z "$unwrapped"
    unexported=$(comm -23 "$WORK/declared" "$WORK/exported" | grep '^hip' | tr '\n' ' ' || true)
    echo "declared but not exported by $(basename "$lib") (a program cannot link them): ${unexported:-none}"
else
    check "the $major.$minor headers' declarations read (gcc -aux-info; $lib): $(head -c 300 "$WORK/aux.err")" false
fi

for variant in plain spt; do
    P=$WORK/hip6_host_$variant
    defs=()
    [ "$variant" = plain ] || defs=(-DHIP_API_PER_THREAD_DEFAULT_STREAM)
    out=$(cc -g -O1 -fno-omit-frame-pointer "${defs[@]}" -I"$inc" -o "$P" "$SRC" $libdir -lamdhip64 2>&1) || true
    check "$variant: hip6_host.c builds against the $major.$minor headers${out:+: $out}" test -x "$P"
    [ -x "$P" ] || continue
    refs=$(readelf --dyn-syms -W "$P" | awk '$7 == "UND" && $8 ~ /^hip/ {print $8}')
    unversioned=$(grep -v @ <<< "$refs" | tr '\n' ' ' || true)
    check "$variant: every HIP reference is versioned (${unversioned:-all})" test -z "$unversioned"
    check "$variant: the headers make it call hipGetDevicePropertiesR0600@hip_6.0" \
        grep -qx 'hipGetDevicePropertiesR0600@hip_6.0' <<< "$refs"
    if [ "$variant" = spt ]; then
        check "spt: hipLaunchKernel_spt referenced" grep -q '^hipLaunchKernel_spt@' <<< "$refs"
    else
        check "plain: no _spt reference" lacks '_spt@' "$refs"
    fi

    rc_bare=0
    "$P" > "$WORK/bare-$variant.txt" 2> /dev/null || rc_bare=$?
    results "$WORK/bare-$variant.txt" > "$WORK/bare-$variant.res"
    ncalls=$(wc -l < "$WORK/bare-$variant.res")
    check "$variant: the bare run printed its results ($ncalls calls, exit $rc_bare)" test "$ncalls" -ge 30
    D=$WORK/rec-$variant
    rc=0
    timeout 120 "$ROCSYS_TOP" -b --rows 0 --record "$D" -- "$P" > "$WORK/frames-$variant.txt" \
        2> "$WORK/err-$variant.txt" || rc=$?
    check "$variant: exit status as without rocsys-top ($rc_bare, got $rc)" test "$rc" -eq "$rc_bare"
    results "$D/output.log" > "$WORK/prof-$variant.res"
    check "$variant: the program got the same results under rocsys-top" \
        diff "$WORK/bare-$variant.res" "$WORK/prof-$variant.res"
    F=$(last_frame "$WORK/frames-$variant.txt")
    # each entry point: the symbol the program referenced, its calls, errors and last result
    while read -r name; do
        sym=""
        for s in "$name" "${name}_spt" "${name}R0600" "${name}_sptR0600"; do
            grep -q "^$s@" <<< "$refs" && { sym=$s; break; }
        done
        check "$variant: $name is one of the program's references" test -n "$sym"
        [ -n "$sym" ] || continue
        want_calls=$(awk -v n="$name" '$1 == n' "$WORK/bare-$variant.res" | wc -l)
        want_errs=$(awk -v n="$name" '$1 == n && $2 != 0' "$WORK/bare-$variant.res" | wc -l)
        want_last=$(awk -v n="$name" '$1 == n {r = $2} END {print r}' "$WORK/bare-$variant.res")
        got="$(api "$F" "$sym" 2) $(api "$F" "$sym" 6) $(api "$F" "$sym" 7)"
        if [ "$want_errs" -eq 0 ]; then
            check "$variant: $sym: $want_calls calls, no errors (got calls/errors: ${got% *})" \
                test "${got% *}" = "$want_calls 0"
        else
            check "$variant: $sym: $want_calls calls, $want_errs errors, last $want_last (got $got)" \
                test "$got" = "$want_calls $want_errs $want_last"
        fi
        check "$variant: hip_api.csv: $sym, $want_calls calls" \
            grep -q "^\"$sym\",$want_calls," "$D/hip_api.csv"
    done < <(awk '!seen[$1]++ {print $1}' "$WORK/bare-$variant.res")
    # the launches: every launch path of every kernel is launch_all < main
    paths=$(awk '/^== Kernel / {h=1; next} /^(==|$)/ {h=0} h && $2 ~ /^[0-9.]+$/ {
            p = ""; for (i = 8; i <= NF; i++) { if ($i == "<") continue; p = p (p == "" ? "" : " < ") $i; if ($i == "main") break }
            print $4 ": " p }' "$D/profile.txt")
    launches=$(awk -F': ' '{n += $1} END {print n + 0}' <<< "$paths")
    want=$(awk '$1 == "hipLaunchKernel"' "$WORK/bare-$variant.res" | wc -l)
    check "$variant: kernel launches recorded with their path ($launches, at least the $want of hipLaunchKernel)" \
        test "$launches" -ge "$want" -a "$want" -ge 1
    others=$(grep -v ': launch_all < main$' <<< "$paths" || true)
    check "$variant: every launch path is launch_all < main ($(tr '\n' ';' <<< "$paths"))" \
        test -z "$others"
done
finish
