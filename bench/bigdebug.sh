#!/usr/bin/env bash
# Large debug info: a shared library with about 1 GB of DWARF, profiled from its first frame.
# Issue 13: symbolizing it must not stall the display more than 2 s nor hold all of its debug
# info in memory.
#
# usage: bench/bigdebug.sh BUILD_DIR
#
# The script generates, in a temporary directory (removed at exit), libbig.so: N C files of
# about 13 MB of debug info each (compiled -g3 -O0 -fno-eliminate-unused-debug-types, one per
# CPU at a time): structure types of many members, functions with an always-inlined helper,
# macros. One of the middle files, after its types, holds the hot code: big_hot_run ->
# big_hot_spin | big_hot_mix, each with an inlined step. bigprog SECONDS calls big_hot_run for SECONDS of CPU.
# libbig.so is built as
#   stripped   strip --strip-debug (the symbol table only): the baseline
#   plain      its debug sections uncompressed
#   zlib       compressed in the file (objcopy --compress-debug-sections=zlib)
#   debuglink  in a separate compressed file, libbig.so.debug, named by .gnu_debuglink (the way
#              distributions ship debug info)
# and each runs under tp_timeit rocsys-top -b -d 2 --rows 12 -- bigprog SECONDS (a frame every
# 0.2 s). Per variant: the debug sections' size in the files, the time from start to the first
# frame, the longest gap between two frames (the stall; 0.2 s when none), when the big module's
# functions were first named (big_hot_spin in a frame) and how many frames said "symbols:
# loading", and rocsys-top's peak RSS (wait4's maxrss; the target is a few MiB).
# Goals: gap <= 2 s; peak RSS well below the debug info's size. Compressed debug info that
# inflates to more than 256 MiB gives the file its symbol table only (symbols/symfiles.c): names
# without lines or inlined frames; BENCH_DEBUG_MB below that inflates it all.
#
# Environment: BENCH_DEBUG_MB (debug info to generate, default 1024; 64 for a quick try),
# BENCH_SECONDS (bigprog's run, default 10), BENCH_VARIANTS (default "stripped plain zlib
# debuglink"), BENCH_ENGINE (passed as --engine), BENCH_KEEP=1 keeps the work directory.
# About 7 minutes at 1024 MB on an idle 2-CPU machine (most of it compiling; 17 with other
# jobs running). See docs/performance.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR" 1 1 "$@"
mb=${BENCH_DEBUG_MB:-1024}
secs=${BENCH_SECONDS:-10}
positive_int BENCH_DEBUG_MB "$mb"
positive_int BENCH_SECONDS "$secs"
read -r -a variants <<<"${BENCH_VARIANTS:-stripped plain zlib debuglink}"
engine=()
[[ -n ${BENCH_ENGINE:-} ]] && engine=(--engine "$BENCH_ENGINE")
for tool in gcc objcopy strip readelf python3 xargs; do
    command -v "$tool" >/dev/null || die "$tool is needed"
done
timeit=$(find_program "$build" tp_timeit)
bench_rocsys_top
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-bigdebug.XXXXXX")
if [[ ${BENCH_KEEP:-0} == 1 ]]; then
    note "keeping $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi

# ---- the generator: gen.py INDEX HOT > file.c, about 13 MB of debug info per file ----
cat >"$tmp/gen.py" <<'EOF'
import sys

i, hot = int(sys.argv[1]), sys.argv[2] == "1"
NTYPES, NMEMB, NFUNC, NMACRO = 800, 500, 1500, 60000
out = []
w = out.append
w("#include <stddef.h>\n")
for k in range(NMACRO):
    w(f"#define BIG_M{i}_{k} ({k} * {i} + 0x{k:x})\n")
for t in range(NTYPES):
    w(f"struct big_t{i}_{t} {{\n")
    for m in range(NMEMB):
        w(f"    {('double', 'long', 'int')[m % 3]} f{i}_{t}_{m};\n")
    w("};\n")
for f in range(NFUNC):
    t = f % NTYPES
    w(f"static inline __attribute__((always_inline)) long big_step{i}_{f}(struct big_t{i}_{t} *p, long x)\n"
      f"{{\n    long y = x * 3 + p->f{i}_{t}_1;\n    return y ^ (y >> 7);\n}}\n"
      f"long big_fn{i}_{f}(long x)\n{{\n    struct big_t{i}_{t} v = {{0}};\n    long acc = x;\n"
      f"    for (int k = 0; k < 4; k++) {{\n        acc = big_step{i}_{f}(&v, acc + k);\n"
      f"        v.f{i}_{t}_1 = acc;\n    }}\n    return acc;\n}}\n")
if hot:
    w("""#include <time.h>
static inline __attribute__((always_inline)) double big_hot_step(double x)
{
    return x * 1.0000001 + 0.5;
}
__attribute__((noinline)) double big_hot_spin(long n)
{
    double x = 0;
    for (long k = 0; k < n; k++)
        x = big_hot_step(x);
    return x;
}
__attribute__((noinline)) double big_hot_mix(long n)
{
    double x = 1;
    for (long k = 0; k < n; k++)
        x = big_hot_step(x) / (1.0 + (double)(k & 7));
    return x;
}
/* Spin in big_hot_spin (2/3) and big_hot_mix (1/3) for seconds of CPU time. */
double big_hot_run(double seconds)
{
    struct timespec t;
    double sum = 0;
    do {
        sum += big_hot_spin(2000000) + big_hot_mix(1000000);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while ((double)t.tv_sec + (double)t.tv_nsec / 1e9 < seconds);
    return sum;
}
""")
sys.stdout.write("".join(out))
EOF
cat >"$tmp/bigprog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
double big_hot_run(double seconds);
int main(int argc, char **argv)
{
    printf("%g\n", big_hot_run(argc > 1 ? atof(argv[1]) : 10));
    return 0;
}
EOF

# debug_mb FILE...: the size of the files' .debug_* sections, MB (as stored: compressed or not)
debug_mb() {
    readelf -S -W "$@" 2>/dev/null | awk '
        function hex(s,  v, k) {
            v = 0
            for (k = 1; k <= length(s); k++)
                v = v * 16 + index("0123456789abcdef", tolower(substr(s, k, 1))) - 1
            return v
        }
        $2 ~ /^\.debug_/ { s += hex($6) }
        $3 ~ /^\.debug_/ { s += hex($7) }
        END { printf "%.0f", s / 1e6 }'
}

nfiles=$(((mb + 6) / 13))
((nfiles >= 2)) || nfiles=2
hot=$((nfiles / 2))
note "generating libbig.so: $nfiles files of ~13 MB of debug info (hot code in file $hot)"
t0=$(date +%s.%N)
mkdir -p "$tmp/obj"
# shellcheck disable=SC2016
seq 0 $((nfiles - 1)) | xargs -P "$(nproc)" -I{} sh -c '
    d=$1 i=$2 hot=$3
    python3 "$d/gen.py" "$i" "$([ "$i" = "$hot" ] && echo 1 || echo 0)" >"$d/obj/f$i.c" &&
        gcc -g3 -O0 -fPIC -fno-eliminate-unused-debug-types -c "$d/obj/f$i.c" -o "$d/obj/f$i.o" &&
        rm -f "$d/obj/f$i.c"' sh "$tmp" {} "$hot" ||
    die "compiling the generated files failed"
t1=$(date +%s.%N)
mkdir -p "${variants[@]/#/$tmp/}"
linker=() # lld or gold: ld.bfd takes minutes and 4.5 GB to merge 2 GB of objects' strings
for l in lld gold; do
    if command -v "ld.$l" >/dev/null; then
        linker=(-fuse-ld="$l")
        break
    fi
done
gcc -shared "${linker[@]}" -o "$tmp/libbig.so" -Wl,--build-id "$tmp"/obj/f*.o ||
    die "linking libbig.so failed"
rm -rf "$tmp/obj"
# shellcheck disable=SC2016 # $ORIGIN is for the loader
gcc -O1 -o "$tmp/bigprog" "$tmp/bigprog.c" -L"$tmp" -lbig -Wl,-rpath,'$ORIGIN' ||
    die "linking bigprog failed"
for v in "${variants[@]}"; do
    cp "$tmp/bigprog" "$tmp/$v/"
    case $v in
        stripped) strip --strip-debug -o "$tmp/$v/libbig.so" "$tmp/libbig.so" ;;
        plain) cp "$tmp/libbig.so" "$tmp/$v/" ;;
        zlib) objcopy --compress-debug-sections=zlib "$tmp/libbig.so" "$tmp/$v/libbig.so" ;;
        debuglink)
            objcopy --only-keep-debug --compress-debug-sections=zlib "$tmp/libbig.so" \
                "$tmp/$v/libbig.so.debug"
            (cd "$tmp/$v" && strip --strip-debug -o libbig.so "$tmp/libbig.so" &&
                objcopy --add-gnu-debuglink=libbig.so.debug libbig.so)
            ;;
        *) die "unknown variant $v (stripped plain zlib debuglink)" ;;
    esac
done
t2=$(date +%s.%N)
plain_mb=$(debug_mb "$tmp/libbig.so")
rm -f "$tmp/libbig.so"
note "$(awk -v a="$t0" -v b="$t1" -v c="$t2" -v m="$plain_mb" 'BEGIN {
    printf "%s MB of debug info; compiled in %.0f s, linked and copied in %.0f s", m, b - a, c - b }')"

# ---- the runs ----
# watch.py OUT -- COMMAND: runs COMMAND, timestamps its stdout's batch frames, prints
# "first_s max_gap_s named_s loading_frames frames"
cat >"$tmp/watch.py" <<'EOF'
import subprocess, sys, time

out = open(sys.argv[1], "w")
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[3:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
times, named, loading, cur_loading = [], None, 0, False
for raw in p.stdout:
    now = time.monotonic() - t0
    line = raw.decode(errors="replace")
    out.write("%.3f %s" % (now, line))
    if line.startswith("rocsys-top frame "):
        times.append(now)
        cur_loading = False
    elif times and "symbols:" in line and "loading" in line and not cur_loading:
        cur_loading = True
        loading += 1
    elif times and named is None and "big_hot_spin" in line:
        named = times[-1]
rc = p.wait()
gaps = [b - a for a, b in zip(times, times[1:])]
print("%s %s %s %d %d %d" % ("%.2f" % times[0] if times else "-",
                             "%.2f" % max(gaps) if gaps else "-",
                             "%.2f" % named if named is not None else "-", loading, len(times), rc))
EOF
echo "rocsys-top with a large debug info module: bigprog $secs (libbig.so: $plain_mb MB of DWARF) under rocsys-top -b -d 2 --rows 12 ${engine[*]}"
machine_info
printf '%-10s %9s %9s %10s %8s %9s %8s %8s %8s\n' variant debug_MB first_s max_gap_s named_s \
    loading frames rss_MiB engine
for v in "${variants[@]}"; do
    d=$tmp/$v
    read -r first gap named loading frames rc < <(python3 "$tmp/watch.py" "$d/frames.txt" -- \
        "$timeit" -o "$d/time" "$rocsys_top" -b -d 2 --rows 12 "${engine[@]}" -- "$d/bigprog" "$secs")
    [[ $rc == 0 ]] || die "the $v run failed (status $rc): $(tail -n 3 "$d/frames.txt")"
    read -r _ _ _ rss_kib <"$d/time"
    eng=$(grep -m 1 -oE 'engine [a-z]+' "$d/frames.txt" | cut -d' ' -f2 || true)
    dbg=$(debug_mb "$d"/libbig.so*)
    awk -v v="$v" -v m="$dbg" -v f="$first" -v g="$gap" -v n="$named" -v l="$loading" \
        -v fr="$frames" -v rss="$rss_kib" -v e="${eng:--}" 'BEGIN {
        printf "%-10s %9s %9s %10s %8s %9s %8s %8.1f %8s\n", v, m, f, g, n, l, fr, rss / 1024, e }'
done
echo "goals: max_gap_s <= 2; rss_MiB well below the debug info's size"
