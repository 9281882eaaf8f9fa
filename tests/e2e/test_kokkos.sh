#!/usr/bin/env bash
# End-to-end: Kokkos through the Kokkos Tools interface. tests/programs/kokkos_kernels.cpp is built
# here with the C++ compiler against the installed Kokkos (Debian sid's libkokkos-dev 5.x, OpenMP
# backend; run by the sid test bed: scripts/chroot-test --suite sid --host-build BUILD) and runs,
# inside the profiling region "solver", parallel_for "axpy", parallel_reduce "dot",
# parallel_scan "prefix", the fence "step fence" and deep copies x <- x_host and back, printing
# how many of each it ran and how long its kernels took (steady_clock around each call).
# Checked: rocsys-top sets KOKKOS_TOOLS_LIBS (the collector's kokkosp_* entry points); the
# Regions view counts each kernel exactly as the program ran it, on the thread that launched
# it, with a total time within 10 % (+ 2 ms) of the program's own; the fence, the deep copies
# and the profiling region exactly; the trace has the kernels' slices; a KOKKOS_TOOLS_LIBS the
# user set is left alone. Skipped where Kokkos is not installed (Debian 12 has none).
source "$(dirname "$0")/lib.sh"
SRC=$ROCSYS_SOURCE/tests/programs/kokkos_kernels.cpp
CHECKER="$ROCSYS_PROGRAMS/rocsys-trace-check"
inc=""
for d in /usr/include/kokkos /usr/include /usr/local/include; do
    [ -f "$d/Kokkos_Core.hpp" ] && { inc=$d; break; }
done
[ -n "$inc" ] || skip "no Kokkos (Kokkos_Core.hpp; Debian 12 has none, sid: libkokkos-dev): run in the sid test bed: scripts/chroot-test --suite sid --host-build BUILD --tests kokkos"
command -v c++ > /dev/null || skip "no C++ compiler (c++)"
P=$WORK/kokkos_kernels
out=$(c++ -std=c++20 -fopenmp -g -O1 -I"$inc" -o "$P" "$SRC" -lkokkoscore -ldl 2>&1) || true
check "kokkos_kernels.cpp builds against $inc${out:+: $(tail -n 3 <<< "$out")}" test -x "$P"
[ -x "$P" ] || finish

export OMP_NUM_THREADS=2 OMP_PROC_BIND=false
D=$WORK/rec
rc=0
timeout 180 "$ROCSYS_TOP" -b --rows 0 --record "$D" -- "$P" > "$WORK/frames" 2> "$WORK/err" || rc=$?
check "exit status 0 (got $rc): $(tail -n 2 "$WORK/err")" test "$rc" -eq 0
O=$D/output.log
last_frame "$WORK/frames" > "$WORK/last"
# region NAME: "COUNT TOTAL_MS" of NAME in the Regions view, summed over the threads
region() {
    awk -v n="$1" '/^== Regions/{r=1; getline; next} /^== /{r=0}
        r { s=$0; sub(/^ *([^ ]+ +){9}/, "", s); if (s == n) {c += $1; t += $2; k++} }
        END{if (k) printf "%d %.3f\n", c, t}' "$WORK/last"
}
for k in axpy:parallel_for dot:parallel_reduce prefix:parallel_scan; do
    name=${k%%:*} kind=${k#*:}
    read -r want want_ms < <(awk -v n="$name" '$1 == "kernel" && $2 == n {print $3, $4}' "$O")
    read -r got got_ms < <(region "Kokkos::$kind $name" || true) || true
    check "Kokkos::$kind $name: $got instances, as the program ran ($want)" test -n "$want" -a "${got:-x}" = "$want"
    tol=$(awk -v w="$want_ms" 'BEGIN{print w * 0.10 + 2}')
    check "Kokkos::$kind $name: $got_ms ms in all, within $tol ms of the program's $want_ms ms" \
        within "${got_ms:-}" "${want_ms:-0}" "$tol"
done
want=$(awk '$1 == "fence" {print $4}' "$O")
read -r got _ < <(region "Kokkos::fence step fence" || true) || true
check "Kokkos::fence step fence: $got, as the program ran ($want)" test -n "$want" -a "${got:-x}" = "$want"
want=$(awk '$1 == "deep_copy" {print $2}' "$O")
read -r a _ < <(region "Kokkos::deep_copy x <- x_host" || true) || true
read -r b _ < <(region "Kokkos::deep_copy x_host <- x" || true) || true
seen=$(grep -o 'Kokkos::deep_copy .*' "$WORK/last" | sort | uniq -c | tr '\n' ';' || true)
check "deep copies: x <- x_host ${a:-0} + x_host <- x ${b:-0} = the program's $want (regions: ${seen:-none})" \
    test "$((${a:-0} + ${b:-0}))" = "$want"
# the unlabeled kernel: Kokkos names it by its functor's type (mangled); shown demangled
want=$(awk '$1 == "unlabeled" {print $2}' "$O")
got=$(awk '/^== Regions/{r=1; getline; next} /^== /{r=0}
    r && index($0, "Kokkos::parallel_for main(int, char**)::") && index($0, "lambda(int)") {c += $1} END{print c+0}' "$WORK/last")
seen=$(grep -o 'Kokkos::parallel_for [^ ]*' "$WORK/last" | grep -v 'axpy' | sort -u | head -n 3 | tr '\n' ';' || true)
check "unlabeled kernel: named 'Kokkos::parallel_for main(int, char**)::{lambda(int)#N}' (newer demanglers: <lambda(int)>), $got instances as the program ran ($want) (seen: $seen)" \
    test "$got" = "$want"
read -r got _ < <(region "solver" || true) || true
check "profiling region solver: ${got:-none}, as the program ran (1)" test "${got:-x}" = 1
check "call tree: the kernels under [region] solver" \
    grep -q '\[region\] solver;\[region\] Kokkos::parallel_' "$D/stacks.folded"
if [ -x "$CHECKER" ]; then
    "$CHECKER" "$D/trace.pftrace" > "$WORK/check"
    check "trace valid" grep -q 'violations 0' "$WORK/check"
    want=$(awk '$1 == "kernel" && $2 == "axpy" {print $3}' "$O")
    n=$(grep -c '^slice .* "region" "Kokkos::parallel_for axpy" ' "$WORK/check" || true)
    check "trace: $n axpy slices, as the program ran ($want)" test "$n" = "$want"
fi

# a KOKKOS_TOOLS_LIBS of the user's is kept: a tool of its own that counts parallel_for calls
cat > "$WORK/user_tool.c" << 'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static unsigned long calls;
void kokkosp_begin_parallel_for(const char *name, uint32_t dev, uint64_t *id) { calls++; *id = 0; }
void kokkosp_end_parallel_for(uint64_t id) {}
void kokkosp_finalize_library(void)
{
    FILE *f = fopen(getenv("USER_TOOL_OUT"), "w");
    if (f) { fprintf(f, "parallel_for %lu\n", calls); fclose(f); }
}
EOF
if cc -shared -fPIC -o "$WORK/user_tool.so" "$WORK/user_tool.c" 2> "$WORK/tool.err"; then
    USER_TOOL_OUT=$WORK/user_tool.out KOKKOS_TOOLS_LIBS=$WORK/user_tool.so \
        timeout 180 "$ROCSYS_TOP" -b --rows 0 -- "$P" > "$WORK/frames2" 2>&1 || true
    n=$(awk '{print $2}' "$WORK/user_tool.out" 2> /dev/null || true)
    want=$(awk '$1 == "kernel" && $2 == "axpy" {print $3}' "$O")
    check "the user's KOKKOS_TOOLS_LIBS is kept: its tool saw ${n:-no} parallel_for (>= the program's $want axpy)" \
        test "${n:-0}" -ge "${want:-1}"
else
    echo "SKIP the user's KOKKOS_TOOLS_LIBS: cannot build a tool: $(head -c 200 "$WORK/tool.err")"
fi
finish
