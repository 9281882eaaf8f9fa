#!/usr/bin/env bash
# End-to-end: `import rocsys`, the Python module of user regions (python/rocsys). rocsys-top puts
# the build's module first on the target's PYTHONPATH (the program's own entries after it), and
# tests/programs/python_regions/regions.py, run with `rocsys-top -b --record` on the oldest and
# the newest CPython found and on /usr/bin/python3, gets its exact counts in the Regions
# section of the frames and in profile.txt: `with rocsys.region()`, @rocsys.profile functions,
# methods and classmethods, @rocsys.profile("name"), @rocsys.region("name"), nested regions, regions left by
# exceptions, a non-ASCII name, one name on two threads (a row per thread), marks; the slices in
# trace.pftrace and the nesting in stacks.folded. Outside rocsys-top (every interpreter found,
# also 2.7) the module imports, does nothing and does not even load ctypes; it stays inactive
# when only the stubs of librocsys-user.so or a dormant collector (--no-follow) are there.
source "$(dirname "$0")/lib.sh"
PROG="$ROCSYS_SOURCE/tests/programs/python_regions/regions.py"
MOD=$(cd "$(dirname "$ROCSYS_TOP")/lib/python" 2>/dev/null && pwd || true)
CHECKER="$ROCSYS_PROGRAMS/rocsys-trace-check"
USERLIB="$(dirname "$ROCSYS_TOP")/lib/librocsys-user.so"
[ -f "$PROG" ] || skip "workload missing: $PROG"
check "the build has the module ($MOD/rocsys/__init__.py)" test -f "$MOD/rocsys/__init__.py"
[ -f "$MOD/rocsys/__init__.py" ] || { finish; exit 1; }

# -- the interpreters: every CPython 3 found, as "VERSION PATH" sorted by version (one path per
# executable), and Python 2 for the import check only
found=()
cands=("$PYENV_DIR"/versions/3.*/bin/python3 $(system_pythons) /usr/bin/python3)
[ -z "${ROCSYS_PYTHONS:-}" ] || mapfile -t cands < <(for p in $ROCSYS_PYTHONS; do command -v "$p" || true; done)
for py in "${cands[@]}"; do
    [ -x "$py" ] || continue
    v=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null) || continue
    found+=("$v $py")
done
[ "${#found[@]}" -gt 0 ] || skip "no python3 found (pyenv 3.x, /usr/bin/python3.N, /usr/bin/python3)"
mapfile -t found < <(printf '%s\n' "${found[@]}" | sort -V -k1,1 | awk '!seen[$2]++')
newest=${found[-1]}
if ! printf '%s\n' "${found[@]}" | awk '{split($1, v, "."); if (v[1] == 3 && v[2] >= 8) ok = 1}
        END {exit !ok}'; then
    skip "no python3 of 3.8 or later found (found: $(printf '%s, ' "${found[@]}"))"
fi
# the full runs: the oldest and the newest, and the system's python3
full=("${found[0]#* }" "${newest#* }")
[ -x /usr/bin/python3 ] && [ -z "${ROCSYS_PYTHONS:-}" ] && full+=(/usr/bin/python3)
mapfile -t full < <(printf '%s\n' "${full[@]}" | awk '!seen[$0]++')
echo "interpreters: $(printf '%s; ' "${found[@]}")full runs: ${full[*]}"

# a module of the program's own, on its PYTHONPATH
mkdir -p "$WORK/usermods"
echo 'VALUE = 42' > "$WORK/usermods/rsusermod.py"

# -- outside rocsys-top: the module does nothing, the program runs the same
for entry in "${found[@]}"; do
    v=${entry%% *}; py=${entry#* }
    out=$(PYTHONPATH="$MOD" "$py" -c 'import rocsys, sys; print(rocsys.active, "ctypes" in sys.modules)' 2>&1)
    check "$v: import outside rocsys-top: inactive, ctypes not loaded (got: $out)" test "$out" = "False False"
    PYTHONPATH="$MOD:$WORK/usermods" REGIONS_USER_MODULE=rsusermod "$py" "$PROG" \
        > "$WORK/plain.out" 2> "$WORK/plain.err" || true
    check "$v: regions.py runs without rocsys-top" grep -q '^regions done$' "$WORK/plain.out"
    check "$v: profile returns the function itself" grep -q '^inactive: profile returns the function$' "$WORK/plain.out"
    check "$v: no ctypes" grep -q '^inactive: ctypes not imported$' "$WORK/plain.out"
    check "$v: the program's PYTHONPATH entry works" grep -q '^user module OK$' "$WORK/plain.out"
    check "$v: exceptions go through regions" grep -q '^exceptions propagated 9$' "$WORK/plain.out"
    check "$v: nothing on stderr ($(head -c 300 "$WORK/plain.err"))" test ! -s "$WORK/plain.err"
    # a stale session variable (no collector), or only librocsys-user.so's stubs to find
    out=$(ROCSYS_SESSION=stale PYTHONPATH="$MOD" "$py" -c 'import rocsys; print(rocsys.active)' 2>&1)
    check "$v: ROCSYS_SESSION without a collector: inactive (got: $out)" test "$out" = False
    if [ -f "$USERLIB" ]; then
        out=$(ROCSYS_SESSION=stale LD_PRELOAD="$USERLIB" PYTHONPATH="$MOD" "$py" -c \
            'import rocsys; rocsys.mark("m"); print(rocsys.active)' 2>&1)
        check "$v: librocsys-user.so's stubs are not taken for the collector (got: $out)" test "$out" = False
    fi
done
for py2 in "$PYENV_DIR"/versions/2.*/bin/python /usr/bin/python2.7; do
    [ -x "$py2" ] || continue
    out=$(PYTHONPATH="$MOD" "$py2" -c 'import rocsys, sys; print(rocsys.active); rocsys.mark("x")
with rocsys.region("r"): pass' 2>&1) || true
    check "$py2: imports and does nothing (got: $out)" test "$out" = False
done

# -- the environment rocsys-top gives the target: the module's directory, then the program's
out=$(env -u PYTHONPATH "$ROCSYS_TOP" -b -n 20 --output-log "$WORK/env1.log" -- \
    sh -c 'echo "PYTHONPATH=$PYTHONPATH"' > /dev/null; cat "$WORK/env1.log")
check "PYTHONPATH is the module's directory alone (got: $out)" test "$out" = "PYTHONPATH=$MOD"
out=$(PYTHONPATH="$WORK/usermods:/nonexistent" "$ROCSYS_TOP" -b -n 20 --output-log "$WORK/env2.log" -- \
    sh -c 'echo "PYTHONPATH=$PYTHONPATH"' > /dev/null; cat "$WORK/env2.log")
check "PYTHONPATH keeps the program's entries after the module's (got: $out)" \
    test "$out" = "PYTHONPATH=$MOD:$WORK/usermods:/nonexistent"

# -- under rocsys-top
# run NAME PYTHON: regions.py under rocsys-top: frames in $WORK/NAME.txt, the last one in
# $WORK/NAME.last, the program's output in $WORK/NAME.log, a recording in $WORK/NAME.rec
run() {
    local name=$1 py=$2 rc=0
    PYTHONPATH="$WORK/usermods" REGIONS_USER_MODULE=rsusermod "$ROCSYS_TOP" -b -d 5 -n 1200 \
        --rows 0 --cpu-timer perf --output-log "$WORK/$name.log" --record "$WORK/$name.rec" \
        -- "$py" "$PROG" > "$WORK/$name.txt" || rc=$?
    check "$name: exit 0 (got $rc)" test "$rc" -eq 0
    last_frame "$WORK/$name.txt" > "$WORK/$name.last"
}
# regions_rows NAME: the rows of the Regions section of NAME's last frame
regions_rows() { awk '/^== Regions/{r=1; getline; next} /^== /{r=0} r && NF' "$WORK/$1.last"; }
# region_rows NAME REGION: REGION's rows, with the name cut off (COUNT ... TID)
region_rows() {
    regions_rows "$1" | awk -v rg="$2" \
        '{n=$0; for (k=0; k<9; k++) sub(/^ *[^ ]+ +/, "", n); if (n==rg) print $1, $2, $3, $4, $5, $6, $7, $8, $9}'
}
# region_field NAME REGION COLUMN: a column (1 = COUNT ... 8 = EXIT, 9 = TID) of REGION's row
region_field() { region_rows "$1" "$2" | awk -v c="$3" 'NR==1 {print $c}'; }

for py in "${full[@]}"; do
    v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    n="py$v"
    [ -e "$WORK/$n.txt" ] && n="$n-$(basename "$py")"
    run "$n" "$py"
    L="$WORK/$n.log"
    check "$n: rocsys active, the build's module first on sys.path" \
        grep -qxF "rocsys active True file $MOD/rocsys/__init__.py" "$L"
    check "$n: the program's PYTHONPATH entry works" grep -qx 'user module OK' "$L"
    check "$n: the program finished" grep -qx 'regions done' "$L"
    check "$n: exceptions go through regions" grep -qx 'exceptions propagated 9' "$L"
    check "$n: a generator function is left as it is, with a warning" \
        grep -q "rocsys: gen_values is a generator or coroutine function" "$L"
    pid=$(regions_rows "$n" | awk '$NF == "load" {print $9; exit}')
    for rc in load:25 solve:15 Solver.step:12 Solver.create:3 'named step:7' decorated:6 outer:10 \
        inner:20 raises:5 failing:4 'größe ✓:2'; do
        r=${rc%:*}; c=${rc##*:}
        got=$(region_rows "$n" "$r")
        check "$n: [$r] one row, count $c, on the main thread (got: ${got:-none})" \
            test "$(echo "$got" | awk 'NF {print $1, $9}')" = "$c $pid"
        check "$n: [$r] in profile.txt with count $c" \
            grep -Eq "^\| $r +\| +$pid \| +$c \|" "$WORK/$n.rec/profile.txt"
    done
    min=$(region_field "$n" load 4)
    check "$n: each load region holds its 5 ms sleep (min $min ms)" \
        awk -v m="$min" 'BEGIN{exit !(m >= 5.0 && m < 1000)}'
    tids=$(sed -n 's/^worker tids //p' "$L")
    got=$(region_rows "$n" worker | awk '{print $1, $9}' | sort | tr '\n' ' ')
    want=$(for t in $tids; do echo "30 $t"; done | sort | tr '\n' ' ')
    check "$n: [worker] 30 on each thread (want: $want got: $got)" test -n "$tids" -a "$got" = "$want"
    check "$n: balanced: nothing open, no unbalanced pop" \
        grep -q "0 open, 0 closed at exit, unbalanced pops 0, too deep 0" "$WORK/$n.last"
    check "$n: 3 marks" grep -q "marks 3, sampling on" "$WORK/$n.last"
    F="$WORK/$n.rec/stacks.folded"
    check "$n: stacks.folded: samples under [region] outer;[region] inner" \
        grep -q ';\[region\] outer;\[region\] inner;' "$F"
    check "$n: stacks.folded: [region] inner only ever under [region] outer" \
        awk '/\[region\] inner;/ && !/;\[region\] outer;\[region\] inner;/ {bad++} END {exit bad > 0}' "$F"
    if [ -x "$CHECKER" ]; then
        "$CHECKER" "$WORK/$n.rec/trace.pftrace" > "$WORK/$n.check"
        check "$n: trace valid" grep -q 'violations 0' "$WORK/$n.check"
        check "$n: trace: 25 load slices" \
            test "$(grep -c '^slice .* thread "region" "load" ' "$WORK/$n.check")" -eq 25
        check "$n: trace: 60 worker slices" \
            test "$(grep -c '^slice .* thread "region" "worker" ' "$WORK/$n.check")" -eq 60
        check "$n: trace: 3 marks" test "$(grep -c '"mark" "checkpoint"' "$WORK/$n.check")" -eq 3
    fi
done

# -- a Python process rocsys-top does not profile (--no-follow child): the collector is there
# but dormant, and the module stays inactive
py=${full[-1]}
"$ROCSYS_TOP" -b -n 1200 --no-follow --output-log "$WORK/nf.log" -- \
    sh -c '"$0" -c "import rocsys; print(\"active\", rocsys.active)"' "$py" > /dev/null || true
check "--no-follow child: module inactive ($(head -c 200 "$WORK/nf.log"))" grep -qx 'active False' "$WORK/nf.log"
finish
