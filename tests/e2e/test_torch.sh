#!/usr/bin/env bash
# End-to-end: a PyTorch training loop on the CPU (tests/programs/python/torch_train.py) under
# rocsys-top --record, for each CPython that imports torch (the system's python3.N, or the ones
# ROCSYS_PYTHONS names; Debian sid: python3-torch for 3.14, scripts/chroot-python --torch):
#  - the program's output is kept and it exits 0;
#  - some stack runs, root first: the C start (__libc_start_main), <module>, train_step,
#    Module._call_impl, Linear.forward (plain _call_impl / forward before 3.11), then ATen's
#    native frames (at::...), so the Python frames stand in place of the interpreter's
#    evaluation loop, with the native code they called below them;
#  - the leaf of such a stack is native (ATen or the BLAS library), in most of Linear.forward's
#    samples.
# Skips with the reason when no interpreter imports torch.
source "$(dirname "$0")/lib.sh"
PROG="$ROCSYS_SOURCE/tests/programs/python/torch_train.py"
[ -f "$PROG" ] || skip "workload missing: $PROG"

cands=()
if [ -n "${ROCSYS_PYTHONS:-}" ]; then
    for p in $ROCSYS_PYTHONS; do command -v "$p" > /dev/null && cands+=("$(command -v "$p")"); done
else
    mapfile -t cands < <(system_pythons)
fi
interps=()
for py in "${cands[@]}"; do
    # (importing torch takes 10 s and more in a small VM)
    if timeout 120 "$py" -c 'import torch' > /dev/null 2>&1; then
        interps+=("$py")
    else
        echo "SKIP $py: cannot import torch"
    fi
done
[ "${#interps[@]}" -gt 0 ] ||
    skip "no Python that imports torch among: ${cands[*]:-none} (Debian: apt install python3-torch)"

# frames of stacks.folded ("THREAD;outermost;...;leaf COUNT"), EREs matched against whole frames
# in_order FOLDED ERE...: some stack has frames matching the EREs in this order (root first)
in_order() {
    local f=$1; shift
    PATS=$(printf '%s\n' "$@") LC_ALL=C awk 'BEGIN{np=split(ENVIRON["PATS"], p, "\n"); if (p[np]=="") np--}
        {st=$0; sub(/ [0-9]+$/, "", st); n=split(st, fr, ";"); k=1
         for (i=2;i<=n && k<=np;i++) if (fr[i] ~ p[k]) k++; if (k>np) {ok=1; exit}}
        END{exit !ok}' "$f"
}
# native_leaf_share FOLDED ERE: % of the samples of stacks holding a frame matching ERE whose
# leaf is not a Python frame ("name (file:LINE)")
native_leaf_share() {
    P=$2 LC_ALL=C awk '{c=$NF; st=$0; sub(/ [0-9]+$/, "", st); n=split(st, fr, ";"); hit=0
        for (i=2;i<=n;i++) if (fr[i] ~ ENVIRON["P"]) hit=1
        if (!hit) next; t+=c; if (fr[n] !~ / \([^;()]*:[0-9]+\)$/) nat+=c}
        END{printf "%.0f\n", t ? 100*nat/t : 0}' "$1"
}
show_stacks() { # FOLDED ERE: the heaviest stacks holding a frame matching ERE
    P=$2 LC_ALL=C awk '{for (i=1;i<=NF;i++) if ($i ~ ENVIRON["P"]) {print; next}}' FS=';' "$1" |
        awk '{print $NF "\t" $0}' | sort -rn | head -n 3 | cut -c1-600 | sed 's/^/    /' >&2 || true
}

for py in "${interps[@]}"; do
    tag=$(basename "$py")-$("$py" -c 'import platform; print(platform.python_version())')
    out="$WORK/$tag"
    rc=0
    "$ROCSYS_TOP" -b -d 5 -n 80 --rows 0 --record "$out.rec" -- "$py" "$PROG" 3 > "$out.txt" \
        2> "$out.err" || rc=$?
    check "$tag: exit 0 (got $rc)" test "$rc" -eq 0
    check "$tag: the program's output in output.log" grep -q '^steps [0-9]* loss' "$out.rec/output.log"
    F="$out.rec/stacks.folded"
    [ -s "$F" ] || { fail "$tag: no $F"; continue; }
    fwd='^(Linear\.)?forward \(linear\.py:[0-9]+\)$'
    if in_order "$F" '^__libc_start_main$' '^<module> \(torch_train\.py:[0-9]+\)$' \
        '^train_step \(torch_train\.py:[0-9]+\)$' '^(Module\.)?_call_impl \(module\.py:[0-9]+\)$' \
        "$fwd" '^at::'; then
        pass
    else
        fail "$tag: no stack __libc_start_main ... <module> ... train_step ... Module._call_impl ... Linear.forward ... at::* (root first)"
        show_stacks "$F" 'train_step'
    fi
    share=$(native_leaf_share "$F" "$fwd")
    if [ "$share" -ge 50 ]; then
        pass
    else
        fail "$tag: only $share % of Linear.forward's samples end in a native frame (ATen, BLAS); want >= 50"
        show_stacks "$F" "$fwd"
    fi
done
finish
