#!/usr/bin/env bash
# End-to-end: Python targets. For each CPython found (pyenv 3.8-3.13 under ~/.pyenv/versions
# and the system's /usr/bin/python3.N of 3.8-3.13: Debian's, whose libpython is linked into the
# stripped executable, 3.11 on Debian 12, 3.13 on Debian 13;
# the missing ones are reported as SKIP lines), rocsys-top --record on the workloads in
# tests/programs/python:
#  - split.py: f_a/f_b/f_c burn 50/30/20 % (measured by the program): the Hot functions view's
#    SELF%, summed over each function's rows ([python] split.py:LINE, one row per line), and
#    the leaf counts of stacks.folded match the program's numbers within 3 points; the rows'
#    lines lie inside each function; the interpreter's own native frames (libpython, the python
#    executable, _PyEval_EvalFrameDefault) are hidden; the program's output is kept;
#  - shapes.py: 500-deep recursion, threads (each burn function on its own tid, the one the
#    program printed), a generator under its consumer, a coroutine under the coroutine awaiting
#    it and under asyncio's event loop, exceptions raised 3 frames below the handler, zlib's
#    native deflate under the Python function calling zlib.compress, a Python qsort comparison
#    function called back from libc's qsort (Python > native > Python on one stack), a lambda,
#    a nested function and a method with their qualnames (3.11+; co_name before), non-ASCII
#    function names (UTF-8), units ending in a system call, and a child Python program started
#    with subprocess (its function on the child's pid);
#  - --python native shows _PyEval_EvalFrameDefault again, next to the Python frames;
#  - 3.12+ -X perf: the trampolines are in native stacks (--python off) and hidden otherwise;
# and, once, the TUI in tmux shows a Python function in the call tree and the hot functions.
# Python frames in stacks.folded are "qualname (file.py:LINE)".
source "$(dirname "$0")/lib.sh"
PYDIR="$ROCSYS_SOURCE/tests/programs/python"
[ -f "$PYDIR/split.py" ] && [ -f "$PYDIR/shapes.py" ] || skip "Python workloads missing in $PYDIR"

# -- the interpreters: "PATH LABEL" pairs; ROCSYS_PYTHONS="python3.14 /usr/bin/python3.15 ..."
# names the ones to run instead (e.g. inside the sid chroot: scripts/chroot-python)
interps=()
labels=()
for py in ${ROCSYS_PYTHONS:-}; do
    if p=$(command -v "$py") && "$p" -c 'import sys' 2>/dev/null; then
        interps+=("$p")
        labels+=("$(basename "$p")-$("$p" -c 'import platform; print(platform.python_version())')")
    else
        echo "SKIP python $py: not found"
    fi
done
for v in 8 9 10 11 12 13; do
    [ -z "${ROCSYS_PYTHONS:-}" ] || break
    py=$(ls -d "$PYENV_DIR"/versions/3."$v".*/bin/python3 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$py" ] && "$py" -c 'import sys' 2>/dev/null; then
        interps+=("$py")
        labels+=("$(basename "$(dirname "$(dirname "$py")")")")
    else
        echo "SKIP python 3.$v: not installed (no $PYENV_DIR/versions/3.$v.*/bin/python3)"
    fi
done
if [ -z "${ROCSYS_PYTHONS:-}" ]; then
    sys_found=0
    while read -r py; do
        v=${py##*python3.}
        [ "$v" -ge 8 ] || { echo "SKIP python $py: not a supported version"; continue; }
        interps+=("$py")
        labels+=("system-3.$v")
        sys_found=1
    done < <(system_pythons)
    [ "$sys_found" -eq 1 ] || echo "SKIP python system-3.N: no /usr/bin/python3.N of 3.8 or later"
fi
[ "${#interps[@]}" -gt 0 ] || skip "no Python interpreter found"

# -- reading stacks.folded: lines "THREADNAME-TID;outermost;...;leaf COUNT"; a Python frame is
# "qualname (file.py:LINE)". Frame patterns are EREs matched against one whole frame (anchor
# them); they reach awk through the environment (no escape processing). Bytes, not characters.
AWK_LIB='
function parse(line) {
    cnt = line; sub(/.* /, "", cnt); st = line; sub(/ [0-9]+$/, "", st)
    nf = split(st, fr, ";"); thread = fr[1]; tid = thread; sub(/.*-/, "", tid)
    tname = thread; sub(/-[0-9]+$/, "", tname)
    return nf
}
function ispy(f) { return f ~ / \([^;()]*:[0-9]+\)$/ }
'
fawk() { LC_ALL=C awk "$AWK_LIB$1" "${@:2}"; }
# pyf NAME FILE: the ERE of a Python frame of function NAME (an ERE itself) in FILE
pyf() { printf '^%s \\(%s:[0-9]+\\)$' "$1" "${2//./\\.}"; }
# has_frame FOLDED ERE: some stack has a frame matching
has_frame() {
    P1=$2 fawk '{n=parse($0); for (i=2;i<=n;i++) if (fr[i] ~ ENVIRON["P1"]) {ok=1; exit}} END{exit !ok}' "$1" 2>/dev/null
}
# in_order FOLDED ERE...: some stack has frames matching the EREs in this order (root first,
# others between them allowed)
in_order() {
    local f=$1; shift
    PATS=$(printf '%s\n' "$@") fawk 'BEGIN{np=split(ENVIRON["PATS"], p, "\n"); if (p[np]=="") np--}
        {n=parse($0); k=1; for (i=2;i<=n && k<=np;i++) if (fr[i] ~ p[k]) k++; if (k>np) {ok=1; exit}}
        END{exit !ok}' "$f"
}
# adjacent FOLDED ERE...: some stack has frames matching the EREs one right after the other
adjacent() {
    local f=$1; shift
    PATS=$(printf '%s\n' "$@") fawk 'BEGIN{np=split(ENVIRON["PATS"], p, "\n"); if (p[np]=="") np--}
        {n=parse($0); for (i=2;i+np-1<=n;i++) {for (k=1;k<=np && fr[i+k-1] ~ p[k];k++); if (k>np) {ok=1; exit}}}
        END{exit !ok}' "$f"
}
# max_run FOLDED ERE: the longest run of consecutive frames matching, over all stacks
max_run() {
    P1=$2 fawk '{n=parse($0); r=0; for (i=2;i<=n;i++) {if (fr[i] ~ ENVIRON["P1"]) {if (++r>m) m=r} else r=0}}
        END{print m+0}' "$1"
}
# tids_of FOLDED ERE: the distinct tids of stacks with a frame matching (space separated)
tids_of() {
    P1=$2 fawk '{n=parse($0); for (i=2;i<=n;i++) if (fr[i] ~ ENVIRON["P1"]) {t[tid]=1; break}}
        END{s=""; for (x in t) s=s (s==""?"":" ") x; print s}' "$1"
}
# tnames_of FOLDED ERE: the distinct thread names of stacks with a frame matching
tnames_of() {
    P1=$2 fawk '{n=parse($0); for (i=2;i<=n;i++) if (fr[i] ~ ENVIRON["P1"]) {t[tname]=1; break}}
        END{s=""; for (x in t) s=s (s==""?"":" ") x; print s}' "$1"
}
# leaf_share FOLDED ERE: % of all samples whose leaf frame matches
leaf_share() {
    P1=$2 fawk '{n=parse($0); all+=cnt; if (fr[n] ~ ENVIRON["P1"]) m+=cnt}
        END{if (all>0) printf "%.1f\n", 100*m/all; else print ""}' "$1"
}
# leaf_is FOLDED ERE: some stack's leaf frame matches
leaf_is() { P1=$2 fawk '{n=parse($0); if (fr[n] ~ ENVIRON["P1"]) {ok=1; exit}} END{exit !ok}' "$1"; }
# all_under FOLDED ERE ANCESTOR: stacks with a frame matching ERE exist, and in each of them a
# frame matching ANCESTOR comes before (rootward of) the first such frame
all_under() {
    P1=$2 P2=$3 fawk '{n=parse($0); a=0
        for (i=2;i<=n;i++) {if (fr[i] ~ ENVIRON["P2"]) a=1; if (fr[i] ~ ENVIRON["P1"]) {seen++
            if (!a) {bad++; if (bad <= 3) print "    not under it: " substr($0, 1, 600) > "/dev/stderr"}
            break}}}
        END{exit !(seen>0 && bad==0)}' "$1"
}
# native_after FOLDED ERE: some stack has a frame matching, followed later by a native frame
native_after() {
    P1=$2 fawk '{n=parse($0); a=0; for (i=2;i<=n;i++) {if (fr[i] ~ ENVIRON["P1"]) a=1; else if (a && !ispy(fr[i])) {ok=1; exit}}}
        END{exit !ok}' "$1"
}
# show FOLDED [ERE]: print (to stderr) up to 4 stacks with a frame matching, the heaviest
# first, abbreviated to the thread, the 6 frames before the first match and up to 12 from it;
# or, if none matches (or no ERE), the 6 heaviest stacks' last 14 frames
show() {
    local tab
    tab=$(printf '\t')
    {
        if [ -n "$2" ] && has_frame "$1" "$2"; then
            echo "    --- stacks with a frame matching $2 (abbreviated):"
            P1=$2 fawk '{n=parse($0); for (i=2;i<=n;i++) if (fr[i] ~ ENVIRON["P1"]) break
                if (i>n) next
                s=thread; lo=(i-6>2)?i-6:2; if (lo>2) s=s ";..."
                hi=(i+11<n)?i+11:n; for (k=lo;k<=hi;k++) s=s ";" fr[k]; if (hi<n) s=s ";...(" n-1 " frames)"
                print cnt "\t" s}' "$1" | sort -t"$tab" -k1,1nr | head -n 4 | sed 's/^/    /' || true
        else
            if [ -n "$2" ]; then
                echo "    --- no stack has a frame matching $2; the heaviest stacks (abbreviated):"
            else
                echo "    --- the heaviest stacks (abbreviated):"
            fi
            fawk '{n=parse($0); s=thread; lo=(n-13>2)?n-13:2; if (lo>2) s=s ";..."
                for (k=lo;k<=n;k++) s=s ";" fr[k]; print cnt "\t" s}' "$1" 2>/dev/null |
                sort -t"$tab" -k1,1nr | head -n 6 | sed 's/^/    /' || true
        fi
    } >&2
}
# py_gate TAG RUN FOLDED: are there Python frames at all? If not, one failure (with the
# heaviest stacks) instead of one per check
py_gate() {
    if has_frame "$3" ' \([^;()]*\.py:[0-9]+\)$'; then return 0; fi
    fail "$1 $2: no Python frame \"qualname (file.py:LINE)\" in stacks.folded at all; $2 checks skipped"
    show "$3" ""
    return 1
}
# fcheck DESCRIPTION FOLDED SHOW-ERE COMMAND...: check, showing the matching stacks on failure
fcheck() {
    local d=$1 f=$2 s=$3; shift 3
    if "$@"; then pass; else fail "$d"; show "$f" "$s"; fi
}

# hot_sum FRAMEFILE FUNCTION FILE: SELF% summed over FUNCTION's rows in the Hot functions
# section located in [python] FILE:LINE
hot_sum() {
    LC_ALL=C awk -v fn="$2" -v file="$3" '/^== Hot functions/{h=1; next} /^== /{h=0}
        h && $4==fn && $5=="[python]" && index($6, file ":")==1 {s+=$1; n++}
        END{if (n) printf "%.1f\n", s}' "$1"
}
# hot_lines FRAMEFILE FUNCTION FILE: the LINEs of FUNCTION's rows, space separated
hot_lines() {
    LC_ALL=C awk -v fn="$2" -v file="$3" '/^== Hot functions/{h=1; next} /^== /{h=0}
        h && $4==fn && $5=="[python]" && index($6, file ":")==1 {l=$6; sub(/.*:/, "", l); s=s " " l}
        END{print s}' "$1"
}
# def_range PYFILE FUNCTION: "FIRST LAST" lines of a top-level function (def line to body end)
def_range() {
    awk -v fn="$2" 'b && /^[^ \t#]/ {print s, e; b=0; exit} b && NF {e=NR}
        $0 ~ "^def " fn "\\(" {s=NR; e=NR; b=1} END{if (b) print s, e}' "$1"
}
# hot_native_self FRAMEFILE MODULE-ERE: SELF% summed over native rows whose module matches,
# then the 6 heaviest of them
hot_native_self() {
    P1=$2 LC_ALL=C awk '/^== Hot functions/{h=1; next} /^== /{h=0}
        h && $1 ~ /^[0-9.]+$/ && $5 ~ ENVIRON["P1"] {s+=$1; r=r " " $4 "(" $5 ")=" $1}
        END{printf "%.1f%s\n", s, r}' "$1" | cut -d' ' -f1-7
}

# same A B [C]: A is not empty, equals B, and differs from C (when given)
same() { [ -n "$1" ] && [ "$1" = "$2" ] && { [ $# -lt 3 ] || [ "$1" != "$3" ]; }; }

# run TAG RECNAME OPTS... -- PROGRAM...: rocsys-top -b --record $WORK/TAG.RECNAME; frames in
# .txt, the last frame in .last; checks exit 0. A run is capped at 180 s (-n 360 at -d 5), a
# guard against a hang only: the programs do a fixed amount of work, and shapes.py's took over
# 40 s on a loaded machine
run() {
    local tag=$1 name=$2 rc=0; shift 2
    local out="$WORK/$tag.$name"
    "$ROCSYS_TOP" -b -d 5 -n 360 --rows 0 --record "$out.rec" "$@" > "$out.txt" 2> "$out.err" || rc=$?
    check "$tag $name: exit 0 (got $rc)" test "$rc" -eq 0
    [ "$rc" -eq 0 ] || { echo "    --- stderr:" >&2; tail -n 5 "$out.err" | sed 's/^/    /' >&2 || true; }
    last_frame "$out.txt" > "$out.last"
    [ -s "$out.rec/stacks.folded" ] || { fail "$tag $name: no $out.rec/stacks.folded"; return 1; }
}

# test_split TAG PYTHON: shares of f_a/f_b/f_c in Hot functions and stacks.folded
test_split() {
    local tag=$1 py=$2 exe
    run "$tag" split --cpu-timer perf -- "$py" "$PYDIR/split.py" 2.5 || return 0
    local out="$WORK/$tag.split" F="$WORK/$tag.split.rec/stacks.folded"
    check "$tag split: program's output in output.log" grep -q '^split done' "$out.rec/output.log"
    local shares
    shares=$(grep '^split process shares:' "$out.rec/output.log" || true)
    [ -n "$shares" ] || { fail "$tag split: no shares printed by the program"; return 0; }
    py_gate "$tag" split "$F" || return 0
    local fn want got lines range bad
    for fn in f_a f_b f_c; do
        want=$(awk -v fn="$fn" '{for (i=1;i<NF;i++) if ($i==fn) print $(i+1)}' <<< "$shares")
        got=$(hot_sum "$out.last" "$fn" split.py)
        if within "$got" "$want" 3; then pass; else
            fail "$tag split: Hot functions $fn SELF% (summed over its rows) ${got:-missing} not within 3 of $want (program)"
            echo "    --- Hot functions rows of the last frame:" >&2
            awk '/^== Hot functions/{h=1} /^== /&&!/Hot functions/{h=0} h' "$out.last" | head -n 14 | sed 's/^/    /' >&2 || true
        fi
        got=$(leaf_share "$F" "$(pyf "$fn" split.py)")
        fcheck "$tag split: stacks.folded leaf share of $fn ${got:-missing}% not within 3 of $want (program)" \
            "$F" "$(pyf "$fn" split.py)" within "$got" "$want" 3
        range=$(def_range "$PYDIR/split.py" "$fn")
        lines=$(hot_lines "$out.last" "$fn" split.py)
        bad=$(for l in $lines; do [ "$l" -ge "${range% *}" ] && [ "$l" -le "${range#* }" ] || echo "$l"; done)
        check "$tag split: $fn rows' lines (${lines# }) inside its body (lines $range)" \
            same "${lines:+y}${bad:+n}" y
    done
    fcheck "$tag split: no _PyEval_EvalFrameDefault without --python native" "$F" '^_PyEval_EvalFrameDefault$' \
        bash -c '! grep -q "_PyEval_EvalFrameDefault" "$1"' _ "$F"
    exe=$(basename "$(readlink -f "$py")")
    got=$(hot_native_self "$out.last" "^(libpython|${exe//./\\.}(\\+|\$))")
    # rows of the interpreter's own code (no Python frame above them) come from its start-up and
    # the time between the functions: at most 1 %, or what the program measured outside its
    # three functions where that is more (a busy machine makes start-up cost more CPU: 1.1 %
    # beside a CI run, with 2-3 % outside)
    local outside
    outside=$(awk '{s = 0; for (i = 1; i < NF; i++) if ($i ~ /^f_[abc]$/) s += $(i+1)
        printf "%.1f", 100 - s}' <<< "$shares")
    check "$tag split: interpreter's native rows (libpython, $exe) hidden: ${got} (bound: 1.0 or the program's $outside % outside f_a, f_b, f_c)" \
        awk -v v="${got%% *}" -v o="$outside" 'BEGIN{exit !(v+0 <= 1.0 || v+0 <= o+0)}'
}

# test_shapes TAG PYTHON MINOR: the nested structure of every shape in stacks.folded
test_shapes() {
    local tag=$1 py=$2 minor=$3
    run "$tag" shapes --cpu-timer perf -- "$py" "$PYDIR/shapes.py" all 0.2 || return 0
    local out="$WORK/$tag.shapes" F="$WORK/$tag.shapes.rec/stacks.folded" L="$WORK/$tag.shapes.rec/output.log"
    check "$tag shapes: the program finished (shapes done)" grep -q '^shapes done' "$L"
    if ! grep -q '^shapes done' "$L"; then
        echo "    --- output.log tail:" >&2; tail -n 5 "$L" | sed 's/^/    /' >&2 || true
    fi
    py_gate "$tag" shapes "$F" || return 0
    check "$tag shapes: <module> frame" has_frame "$F" "$(pyf '<module>' shapes.py)"

    # recursion
    local run_len
    run_len=$(max_run "$F" "$(pyf recurse shapes.py)")
    check "$tag recursion: shape finished" grep -q '^shape recursion done' "$L"
    fcheck "$tag recursion: a stack with >= 100 consecutive recurse frames (longest run: $run_len)" \
        "$F" "$(pyf recurse shapes.py)" test "$run_len" -ge 100
    # (not all 500 on one stack: Python frames per sample are capped, and native ones too)
    fcheck "$tag recursion: the work at the bottom is in recurse (a stack's leaf)" \
        "$F" "$(pyf recurse shapes.py)" leaf_is "$F" "$(pyf recurse shapes.py)"

    # threads: each burn function on the tid the program printed, three different tids
    local fn want got tids=() mainname names
    mainname=$(tnames_of "$F" "$(pyf '<module>' shapes.py)")
    for fn in thread_burn_a thread_burn_b thread_burn_c; do
        want=$(awk -v fn="$fn" '$1=="thread" && $2==fn {print $4}' "$L")
        got=$(tids_of "$F" "$(pyf "$fn" shapes.py)")
        tids+=("$got")
        fcheck "$tag threads: $fn only on its thread's tid ${want:-?} (stacks on tids: ${got:-none})" \
            "$F" "$(pyf "$fn" shapes.py)" same "$want" "$got"
        names=$(tnames_of "$F" "$(pyf "$fn" shapes.py)")
        if [ "$minor" -ge 14 ]; then # 3.14 names OS threads after Thread.name (gh-59705)
            check "$tag threads: $fn's thread named after its Thread ($names)" \
                grep -q '^Thread-[0-9]' <<< "$names"
        else
            check "$tag threads: $fn's thread named like the main thread ($names vs $mainname)" \
                same "$names" "$mainname"
        fi
    done
    check "$tag threads: three different tids (${tids[*]})" \
        test "$(printf '%s\n' "${tids[@]}" | grep -c .)" -eq 3 -a "$(printf '%s\n' "${tids[@]}" | sort -u | grep -c .)" -eq 3

    # generator
    fcheck "$tag generator: gen_values present" "$F" "$(pyf gen_values shapes.py)" \
        has_frame "$F" "$(pyf gen_values shapes.py)"
    fcheck "$tag generator: gen_values under consume_generator" "$F" "$(pyf gen_values shapes.py)" \
        in_order "$F" "$(pyf consume_generator shapes.py)" "$(pyf gen_values shapes.py)"

    # asyncio
    local co
    co=$(pyf co_work shapes.py)
    fcheck "$tag asyncio: co_work present" "$F" "$co" has_frame "$F" "$co"
    fcheck "$tag asyncio: co_work under co_main (awaited directly)" "$F" "$co" \
        in_order "$F" "$(pyf co_main shapes.py)" "$co"
    fcheck "$tag asyncio: co_work under asyncio's event loop (a frame of base_events.py/events.py)" "$F" "$co" \
        in_order "$F" '^[^;]* \((base_)?events\.py:[0-9]+\)$' "$co"

    # exceptions: raised 3 frames below the handler
    fcheck "$tag exceptions: exc_raise present" "$F" "$(pyf exc_raise shapes.py)" \
        has_frame "$F" "$(pyf exc_raise shapes.py)"
    fcheck "$tag exceptions: exc_catcher;exc_level1;exc_level2;exc_raise" "$F" "$(pyf exc_raise shapes.py)" \
        adjacent "$F" "$(pyf exc_catcher shapes.py)" "$(pyf exc_level1 shapes.py)" \
        "$(pyf exc_level2 shapes.py)" "$(pyf exc_raise shapes.py)"

    # zlib: libz's native frames under compress_work
    local cw libz='^(deflate.*|longest_match|fill_window|adler32.*|crc32.*|_tr_.*|libz\.so.*)$'
    cw=$(pyf compress_work shapes.py)
    fcheck "$tag zlib: compress_work followed by native frames (zlib's)" "$F" "$cw" native_after "$F" "$cw"
    # (within the zlib shape: imports at start may run libz too, e.g. a crc32)
    grep -F ";shape_zlib (shapes.py:" "$F" > "$F.zlib" || true
    fcheck "$tag zlib: every stack of shape_zlib with a libz frame (deflate*, libz.so+0x...) has compress_work above it" \
        "$F" "$libz" all_under "$F.zlib" "$libz" "$cw"

    # ctypes: Python > qsort (libc) > Python comparison function
    fcheck "$tag ctypes: sort_with_qsort ... qsort (libc) ... py_compare on one stack" "$F" "$(pyf py_compare shapes.py)" \
        in_order "$F" "$(pyf sort_with_qsort shapes.py)" '^(__)?(qsort|msort).*$' "$(pyf py_compare shapes.py)"

    # lambda, nested function, method: qualnames on 3.11+, co_name before
    local lam
    lam=$(pyf '([^ ;]*\.)?<lambda>' shapes.py)
    fcheck "$tag lambda: <lambda> (or shape_lambda.<locals>.<lambda>) under shape_lambda" "$F" "$lam" \
        in_order "$F" "$(pyf shape_lambda shapes.py)" "$lam"
    if [ "$minor" -ge 11 ]; then
        fcheck "$tag nested: outer.<locals>.inner right under outer" "$F" "$(pyf '(outer\.<locals>\.)?inner' shapes.py)" \
            adjacent "$F" "$(pyf outer shapes.py)" "$(pyf 'outer\.<locals>\.inner' shapes.py)"
        fcheck "$tag method: Accumulator.churn" "$F" "$(pyf '([^ ;]*\.)?churn' shapes.py)" \
            adjacent "$F" "$(pyf shape_method shapes.py)" "$(pyf 'Accumulator\.churn' shapes.py)"
    else
        fcheck "$tag nested: inner right under outer (co_name before 3.11)" "$F" "$(pyf '(outer\.<locals>\.)?inner' shapes.py)" \
            adjacent "$F" "$(pyf outer shapes.py)" "$(pyf inner shapes.py)"
        fcheck "$tag method: churn (co_name before 3.11)" "$F" "$(pyf '([^ ;]*\.)?churn' shapes.py)" \
            adjacent "$F" "$(pyf shape_method shapes.py)" "$(pyf churn shapes.py)"
    fi

    # non-ASCII names, as UTF-8 bytes, in stacks.folded and the Hot functions view
    for fn in 'größe_berechnen' 'λ_arbeit'; do
        fcheck "$tag nonascii: $fn in stacks.folded" "$F" "$(pyf '[^ ;]*' shapes.py)" \
            has_frame "$F" "$(pyf "$fn" shapes.py)"
        check "$tag nonascii: $fn in Hot functions" \
            env LC_ALL=C awk -v fn="$fn" '/^== Hot functions/{h=1; next} /^== /{h=0} h && $4==fn {ok=1} END{exit !ok}' "$out.last"
    done

    # units ending in a system call
    fcheck "$tag syscall: syscall_unit followed by a native frame (the write)" "$F" "$(pyf syscall_unit shapes.py)" \
        native_after "$F" "$(pyf syscall_unit shapes.py)"

    # the child Python program: its function on the child's pid, not the parent's
    local cpid ppid
    cpid=$(awk '$1=="child" && $2=="pid" {print $3}' "$L")
    ppid=$(awk '$1=="parent" && $2=="pid" {print $3}' "$L")
    got=$(tids_of "$F" "$(pyf child_burn child.py)")
    fcheck "$tag child: child_burn on the child's main thread (tid = pid ${cpid:-?}; stacks on: ${got:-none}; parent pid ${ppid:-?})" \
        "$F" "$(pyf child_burn child.py)" same "$cpid" "$got" "${ppid:-x}"
    fcheck "$tag child: child_burn under the child's <module>" "$F" "$(pyf child_burn child.py)" \
        adjacent "$F" "$(pyf '<module>' child.py)" "$(pyf child_burn child.py)"

    fcheck "$tag shapes: no _PyEval_EvalFrameDefault without --python native" "$F" '^_PyEval_EvalFrameDefault$' \
        bash -c '! grep -q "_PyEval_EvalFrameDefault" "$1"' _ "$F"
}

# eval_frame_shown FOLDED: the interpreter's evaluation frame is in some stack: named, or (a
# stripped interpreter, Debian's 3.14+: the loop's body is an unnamed fragment) the executable's
# or libpython's address right above split.py's <module>
eval_frame_shown() {
    has_frame "$1" '^_PyEval_EvalFrameDefault$' ||
        adjacent "$1" '^(python3\.[0-9]+|libpython3\.[0-9]+\.so[.0-9]*)@0x[0-9a-f]+$' "$(pyf '<module>' split.py)"
}

# test_native TAG PYTHON: --python native shows the interpreter's frames again
test_native() {
    local tag=$1 py=$2
    run "$tag" native --cpu-timer perf --python native -- "$py" "$PYDIR/split.py" 0.6 || return 0
    local F="$WORK/$tag.native.rec/stacks.folded"
    fcheck "$tag --python native: _PyEval_EvalFrameDefault (or a stripped interpreter's unnamed evaluation frame right above <module>) in stacks.folded" \
        "$F" "$(pyf f_a split.py)" eval_frame_shown "$F"
    fcheck "$tag --python native: Python frames still there (f_a)" "$F" '^_PyEval_EvalFrameDefault$' \
        has_frame "$F" "$(pyf f_a split.py)"
}

# test_xperf TAG PYTHON MINOR: 3.12+ -X perf: its trampolines ("py::NAME:FILE", perf-PID.map)
# are in the native stacks without Python frames (--python off: the control, so that the next
# check cannot pass for want of trampolines) and hidden where the Python frames are read
test_xperf() {
    local tag=$1 py=$2 minor=$3
    [ "$minor" -ge 12 ] || return 0
    run "$tag" xperf-off --python off -- "$py" -X perf "$PYDIR/split.py" 0.6 || return 0
    check "$tag -X perf --python off: trampolines (py::f_a) in the native stacks" \
        grep -q 'py::f_a:' "$WORK/$tag.xperf-off.rec/stacks.folded"
    run "$tag" xperf -- "$py" -X perf "$PYDIR/split.py" 0.6 || return 0
    local F="$WORK/$tag.xperf.rec/stacks.folded"
    fcheck "$tag -X perf: Python frames (f_a)" "$F" "$(pyf f_a split.py)" has_frame "$F" "$(pyf f_a split.py)"
    fcheck "$tag -X perf: trampolines hidden (no py:: frame)" "$F" 'py::' bash -c '! grep -q "py::" "$1"' _ "$F"
}

for k in "${!interps[@]}"; do
    py=${interps[$k]} tag=${labels[$k]}
    minor=$("$py" -c 'import sys; print(sys.version_info[1])')
    echo "--- $tag: $py (3.$minor)"
    t0=$SECONDS
    test_split "$tag" "$py"
    test_shapes "$tag" "$py" "$minor"
    test_native "$tag" "$py"
    test_xperf "$tag" "$py" "$minor"
    echo "    ($tag took $((SECONDS - t0)) s; $failures failures so far)"
done

# -- the TUI, with the first interpreter found
if command -v tmux > /dev/null; then
    py=${interps[0]}
    S=pytui
    tmux_start $S 150 45 "$ROCSYS_TOP" -d 5 -- "$py" "$PYDIR/split.py" 3
    check "TUI: call tree shows f_a ($py)" wait_screen $S ' f_a ' 15
    tmux_keys $S 2
    check "TUI: hot functions: f_a at [python] split.py:LINE" wait_screen $S 'f_a +\[python\] split\.py:[0-9]+' 5
    tmux_keys $S q
    check "TUI: q quits" wait_file "$WORK/$S.rc" 8
    rc=$(cat "$WORK/$S.rc" 2>/dev/null || echo none)
    check "TUI: exit status 0 or 143 (got $rc)" test "$rc" = 0 -o "$rc" = 143
    tmux_kill $S
else
    echo "SKIP python TUI: tmux is not installed"
fi
finish
