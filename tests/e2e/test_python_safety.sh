#!/usr/bin/env bash
# Python targets are never harmed or misnamed: a program's own SIGSEGV handler (faulthandler)
# still gets its faults and the program dies as it would bare; frames pushed and popped at
# 10 kHz sampling never give a wrong name; an unsupported interpreter gets a notice and native
# frames; --python off reads nothing. Versions absent from the machine are skipped, visibly.
source "$(dirname "$0")/lib.sh"
SRC="$ROCSYS_SOURCE/tests/programs/python_safety"
# first_py MINOR...: the first installed interpreter of these versions (pyenv's, then the system's)
first_py() { find_python "$@"; }
pys=()
for v in 3.8 3.13; do
    [ -z "${ROCSYS_PYTHONS:-}" ] || break # ROCSYS_PYTHONS: the interpreters named there instead
    if p=$(first_py "$v"); then pys+=("$p"); else echo "SKIP python $v: not installed"; fi
done
for p in ${ROCSYS_PYTHONS:-}; do
    if p=$(command -v "$p"); then pys+=("$p"); else echo "SKIP python $p: not found"; fi
done
[ ${#pys[@]} -gt 0 ] || skip "no CPython 3.8 or 3.13 here"

for py in "${pys[@]}"; do
    case $py in "$PYENV_DIR"/*) tag=$(basename "$(dirname "$(dirname "$py")")") ;; *) tag=system-$(basename "$py") ;; esac
    # a genuine segfault with faulthandler on: same status, faulthandler's report on stderr
    code='import ctypes; print("before", flush=True); ctypes.string_at(0)'
    set +e
    bare=0; "$py" -X faulthandler -c "$code" > "$WORK/bare.out" 2>&1 || bare=$?
    prof=0; "$ROCSYS_TOP" -b -n 20 --output-log "$WORK/fh.log" -- "$py" -X faulthandler -c "$code" \
        > "$WORK/fh.frames" 2>&1 || prof=$?
    set -e
    check "$tag faulthandler: exit status $prof equals the bare run's $bare" test "$prof" -eq "$bare"
    check "$tag faulthandler: its report reached the program's stderr" \
        grep -q 'Fatal Python error: Segmentation fault' "$WORK/fh.log"
    check "$tag faulthandler: output before the crash kept" grep -q '^before' "$WORK/fh.log"

    # churn at 10 kHz: every Python frame of churn.py carries one of its function names
    R="$WORK/$tag.churn"
    set +e
    "$ROCSYS_TOP" -b -d 5 -n 60 -f 10000 --cpu-timer perf --record "$R" -- "$py" "$SRC/churn.py" 2 \
        > "$WORK/$tag.churn.frames" 2>&1; rc=$?
    set -e
    check "$tag churn: exit 0 (got $rc)" test "$rc" -eq 0
    check "$tag churn: output complete" grep -q '^churn done' "$R/output.log"
    names=$(grep -o '[^;]* (churn\.py:[0-9]*)' "$R/stacks.folded" | sed 's/ (.*//' | sort -u | tr '\n' ' ')
    bad=$(printf '%s\n' $names | grep -Ev '^(<module>|<listcomp>|<genexpr>|main|tiny|thrower|catcher|gen|consume|compiled|worker|churn_threads)$' || true)
    check "$tag churn: churn.py frames seen ($names)" test -n "$names"
    check "$tag churn: no wrong name among churn.py's frames (${bad:-none})" test -z "$bad"
    unread=$(awk '/^python /{u=$NF} END{print u+0}' "$WORK/$tag.churn.frames")
    samples=$(awk '/^mode /{s=$6} END{print s+0}' "$WORK/$tag.churn.frames")
    echo "    $tag churn: $samples samples, $unread with unreadable Python frames"
    check "$tag churn: unreadable stacks rare ($unread of $samples)" \
        test "$((unread * 100))" -le "$samples"

    # recursion 3,000 deep: every file and view survives stacks cut to 1,024 functions (the
    # in-target sampler: --engine signal; auto gives root the perf engine for Python programs)
    R="$WORK/$tag.deep"
    set +e
    "$ROCSYS_TOP" -b -d 5 -n 60 --engine signal --record "$R" -- "$py" "$SRC/deep.py" \
        > "$WORK/$tag.deep.frames" 2>&1
    rc=$?
    set -e
    check "$tag deep recursion: rocsys-top and the program exit 0 (got $rc)" test "$rc" -eq 0
    check "$tag deep recursion: output complete" grep -q '^deep done' "$R/output.log"
    check "$tag deep recursion: stacks keep the root and the leaf" \
        grep -Eq '^[^;]*;.*main \(deep\.py:[0-9]+\);rec .*;rec \(deep\.py:[0-9]+\) [0-9]+$' "$R/stacks.folded"
    # the same from outside (the default engine as root: the BPF walker keeps a run of equal
    # frames once), where a 3.11+ interpreter does not recurse in C (3.8-3.10's C stack, 3,000
    # evaluation calls deep, is far more than the kernel copies: cut, under [truncated])
    if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        R="$WORK/$tag.deep-perf"
        "$ROCSYS_TOP" -b -d 5 -n 60 --record "$R" -- "$py" "$SRC/deep.py" \
            > "$WORK/$tag.deep-perf.frames" 2>&1 || true
        if grep -q 'engine perf' "$WORK/$tag.deep-perf.frames"; then
            check "$tag deep recursion, perf engine: stacks keep the root and the leaf" \
                grep -Eq '^[^;]*;.*main \(deep\.py:[0-9]+\);rec .*;rec \(deep\.py:[0-9]+\) [0-9]+$' "$R/stacks.folded"
        fi
    fi

    # a handler dearer than the period (3,000-deep stacks at 10 kHz, next to two busy loops)
    # never re-enters itself for ever: the program ends, and the samples count its CPU time
    # (1.5 s of work, more with its start and the handlers: about 17,000 at 10 kHz), not the
    # handler's own re-entries; compared with the CPU time the program measured of itself (a
    # fixed 10,000..25,000 failed at 26,633 under ASan beside a loaded suite, load about 4 before
    # the test's own two loops)
    R="$WORK/$tag.deep10k"
    load=()
    for _ in 1 2; do sh -c 'while :; do :; done' & load+=($!); done
    set +e
    timeout -s KILL 60 "$ROCSYS_TOP" -b -d 5 -n 60 -f 10000 --cpu-timer perf --record "$R" -- \
        "$py" "$SRC/deep.py" > "$WORK/$tag.deep10k.frames" 2>&1
    rc=$?
    set -e
    kill "${load[@]}" 2>/dev/null || true
    wait "${load[@]}" 2>/dev/null || true
    check "$tag deep recursion at 10 kHz under load: exit 0 (got $rc)" test "$rc" -eq 0
    check "$tag deep recursion at 10 kHz under load: output complete" grep -q '^deep done' "$R/output.log"
    samples=$(awk '{s += $NF} END {print s + 0}' "$R/stacks.folded")
    echo "    $tag deep recursion at 10 kHz: $samples samples"
    cpu=$(sed -n 's/^deep done, cpu \([0-9.]*\) s$/\1/p' "$R/output.log")
    check "$tag deep recursion at 10 kHz: samples count the program's CPU ($samples for ${cpu:-?} s: 60-110 % of 10,000 a second)" \
        awk -v n="$samples" -v c="$cpu" 'BEGIN { exit !(c != "" && n >= 0.6 * c * 10000 && n <= 1.1 * c * 10000 + 200) }'

    # --python off: native frames only, nothing said about Python
    R="$WORK/$tag.off"
    "$ROCSYS_TOP" -b -d 5 -n 40 --python off --record "$R" -- "$py" "$SRC/churn.py" 0.5 \
        > "$WORK/$tag.off.frames" 2>&1 || true
    check "$tag --python off: no Python frame" bash -c "! grep -q '(churn\\.py:' '$R/stacks.folded'"
    check "$tag --python off: interpreter frames instead" grep -q '_PyEval_EvalFrameDefault' "$R/stacks.folded"
done

# the fault guard: every read of this stand-in interpreter's frames faults; the program runs as
# bare, the samples are counted unreadable; its own SA_RESETHAND handler runs once for its own
# genuine fault, then it dies of SIGSEGV as bare
set +e
bare=0; "$TP/tp_fakepy" 1 > "$WORK/fake.bare" 2>&1 || bare=$?
prof=0; "$ROCSYS_TOP" -b -n 20 --cpu-timer perf --output-log "$WORK/fake.log" -- "$TP/tp_fakepy" 1 \
    > "$WORK/fake.frames" 2>&1 || prof=$?
set -e
check "fake interpreter: exit $prof as bare ($bare)" test "$prof" -eq "$bare" -a "$prof" -eq 0
check "fake interpreter: output kept" grep -q '^survived' "$WORK/fake.log"
unread=$(awk '/^python /{u=$NF} END{print u+0}' "$WORK/fake.frames")
check "fake interpreter: its faulting stacks counted unreadable ($unread)" test "$unread" -gt 0
set +e
bare=0; "$TP/tp_fakepy" 0.5 segv > "$WORK/segv.bare" 2>&1 || bare=$?
prof=0; "$ROCSYS_TOP" -b -n 20 --output-log "$WORK/segv.log" -- "$TP/tp_fakepy" 0.5 segv \
    > "$WORK/segv.frames" 2>&1 || prof=$?
set -e
check "own SIGSEGV handler: exit $prof as bare ($bare)" test "$prof" -eq "$bare" -a "$prof" -eq 139
check "own SIGSEGV handler: ran exactly once, as bare ($(grep -c 'own handler' "$WORK/segv.log"))" \
    test "$(grep -c 'own handler' "$WORK/segv.log")" -eq "$(grep -c 'own handler' "$WORK/segv.bare")"

# an interpreter the collector does not know: one notice, native frames, the program unharmed
if old=$(first_py 3.7 3.6 2.7); then
    set +e
    "$ROCSYS_TOP" -b -d 5 -n 40 --record "$WORK/old" -- "$old" -c 'print("old done")' \
        > "$WORK/old.frames" 2>&1; rc=$?
    set -e
    check "unsupported $old: exit 0" test "$rc" -eq 0
    check "unsupported $old: output kept" grep -q '^old done' "$WORK/old/output.log"
    check "unsupported $old: the notice names the version" \
        grep -Eq '^notice: Python [23]\.[0-9]+: native frames only' "$WORK/old.frames"
    check "unsupported $old: session.json says frames false" \
        grep -q '"frames": false' "$WORK/old/session.json"
else
    echo "SKIP unsupported-version check: no CPython 2.7, 3.6 or 3.7 here"
fi
finish
