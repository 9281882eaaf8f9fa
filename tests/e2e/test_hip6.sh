#!/usr/bin/env bash
# End-to-end: the HIP 6.x entry points (issue 26 part 3), on this machine's stand-in HIP library.
# tp_hip6 (tests/programs/hip6_main.c) calls every entry point of fakehip6_api.h by the name the
# 6.x headers make a program call (hipGetDevicePropertiesR0600, the _spt forms, the C names of
# hip_ext.h, the 5.3-6.4 additions); the link binds them to the stand-in's versioned symbols
# (NAME@hip_6.0 ...), as against the real libamdhip64.so.6. The collector's unversioned
# definitions must still interpose on every one: each entry point's calls, errors and last
# error in the HIP API view and hip_api.csv are what the program got (it prints every result),
# and each launch entry point's kernel has its launches on the program's call path. A call made
# through the address hipGetProcAddress gave (hipMemGetInfo) is counted as a direct one.
source "$(dirname "$0")/lib.sh"

P=$TP/tp_hip6
API_H=$ROCSYS_SOURCE/tests/programs/fakehip6_api.h
[ -x "$P" ] || skip "tp_hip6 not built"

# api FRAME NAME FIELD: a field of NAME's row in the HIP API section (2 calls, 6 errors, 7 last)
api() { awk -v n="$2" -v f="$3" '/^== HIP API/{h=1; next} /^== /{h=0} h && $8==n {print $f; exit}' <<< "$1"; }
# paths PROFILE KERNEL: "LAUNCHES:CALLERS" per launch path of KERNEL in profile.txt (callers up
# to main), sorted (profile.txt has every kernel's paths, up to 10 kernels: the batch frame
# shows fewer)
paths() {
    awk -v k="$2" '/^== Kernel / {h = index($0, "== Kernel " k ":") == 1; next} /^(==|$)/ {h=0}
        h && $2 ~ /^[0-9.]+$/ { p = ""; for (i = 8; i <= NF; i++) { p = p $i; if ($i == "main") break }
                                print $4 ":" p }' "$1" | sort | tr '\n' ' '
}

# the rows: "NAME VERSION LAUNCH"
rows=$(sed -n 's/^ *X(\([A-Za-z0-9_]*\), "\(hip_[0-9.]*\)", .*, \([0-2])\) *\\\{0,1\}$/\1 \2 \3/p' "$API_H" | tr -d ')')
nrows=$(wc -l <<< "$rows")
check "fakehip6_api.h: rows read ($nrows)" test "$nrows" -ge 50
nlaunch=$(awk '$3 != 0' <<< "$rows" | wc -l)
check "at most 10 launch rows, the kernels profile.txt lists ($nlaunch)" test "$nlaunch" -le 10

# the program's references are versioned, as a 6.x-built program's are
refs=$(readelf --dyn-syms -W "$P" | awk '$7 == "UND" {print $8}')
while read -r name ver _; do
    check "tp_hip6 references $name@$ver" grep -qx "$name@$ver" <<< "$refs"
done <<< "$rows"

rc_bare=0
"$P" > "$WORK/bare.txt" 2> /dev/null || rc_bare=$?
D=$WORK/rec
rc=0
"$ROCSYS_TOP" -b --rows 0 --record "$D" -- "$P" > "$WORK/frames.txt" 2> "$WORK/err.txt" || rc=$?
check "exit status as without rocsys-top ($rc_bare, got $rc)" test "$rc" -eq "$rc_bare"
check "the program saw the same results" diff "$WORK/bare.txt" "$D/output.log"
F=$(last_frame "$WORK/frames.txt")
check "the program called hipMemGetInfo through hipGetProcAddress's address" \
    test "$(tail -n 2 "$WORK/bare.txt" | cut -d' ' -f1 | tr '\n' ' ')" = "hipGetProcAddress hipMemGetInfo "
check "hipGetProcAddress: 1 call in the HIP API view (got $(api "$F" hipGetProcAddress 2))" \
    test "$(api "$F" hipGetProcAddress 2)" = 1
while read -r name ver launch; do
    calls=$(grep -c "^$name " "$WORK/bare.txt")
    errors=$(grep -c "^$name [^0]" "$WORK/bare.txt" || true)
    last=$(awk -v n="$name" '$1 == n && $2 != 0 {l = $2} END {print l + 0}' "$WORK/bare.txt")
    check "$name@$ver: $calls call(s) in the HIP API view (got $(api "$F" "$name" 2))" \
        test "$(api "$F" "$name" 2)" = "$calls"
    check "$name@$ver: $errors error(s), last $last (got $(api "$F" "$name" 6), $(api "$F" "$name" 7))" \
        test "$(api "$F" "$name" 6) $(api "$F" "$name" 7)" = "$errors $last"
    check "$name@$ver: hip_api.csv has $calls call(s)" grep -q "^\"$name\",$calls," "$D/hip_api.csv"
    if [ "$launch" != 0 ]; then
        got=$(paths "$D/profile.txt" "k_$name")
        check "$name: kernel k_$name launched $calls time(s) from call_rows < main (got '$got')" \
            test "$got" = "$calls:call_rows<main "
    fi
done <<< "$rows"
finish
