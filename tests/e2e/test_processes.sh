#!/usr/bin/env bash
# Every process named, however many live and die at once:
#  - 150 short children (20 ms of CPU each, 8 at a time) started by fork+exec, by fork alone,
#    and as daemons (fork, setsid, fork: the middle process exits at once): every child's
#    hot function named in its own process, [unknown] below 1 %;
#  - rings made to run out (ROCSYS_RINGS=4): the processes that sent no record are counted in
#    session.json and the summary, and exactly their samples are [unknown];
#  - a parallel build (make -j2) of a generated C project of 120 files: [unknown] below 1 %
#    of the samples, every compiler process named.
source "$(dirname "$0")/lib.sh"

# unknown_pct FILE: the share of [unknown] samples in a stacks.folded file (%)
unknown_pct() {
    awk '{ t += $NF } /\[unknown\]/ { u += $NF } END { printf "%.2f", t ? 100 * u / t : 100 }' "$1"
}

for mode in exec fork daemon; do
    R="$WORK/$mode"
    "$ROCSYS_TOP" --record "$R" --no-tui -- "$TP/tp_spawn_many" 150 8 20 "$mode" \
        > "$WORK/$mode.out" 2>&1 || true
    check "$mode: the program ran every child" grep -q '^spawn_many: 150 children' "$R/output.log"
    named=$(awk '/;spawn_child_work / { split($1, a, ";"); print a[1] }' "$R/stacks.folded" | sort -u | wc -l)
    pct=$(unknown_pct "$R/stacks.folded")
    dropped=$(grep -o '"dropped": [0-9]*' "$R/session.json" | grep -o '[0-9]*$')
    echo "    $mode: $named children with spawn_child_work named, [unknown] $pct %, ${dropped:-?} samples dropped"
    # (a slow build, e.g. under ASan, may drop samples when its rings fill, said in
    # session.json: a child whose 20 ms of samples (about 20 at 1 kHz, at least 10) were all
    # dropped cannot be named, so each child missing must be one that many drops explain: 134
    # of 150 with 963 dropped and 120 with 1318 were seen in ASan runs on 2 busy cores)
    want=$((150 - ${dropped:-0} / 10))
    check "$mode: every child's work named in its own process ($named of 150, ${dropped:-?} samples dropped)" \
        test "$named" -ge "$want"
    check "$mode: [unknown] below 1 % ($pct %)" awk -v p="$pct" 'BEGIN { exit !(p < 1) }'
done

# rings made to run out (ROCSYS_RINGS=4 for 16 children at once): the processes that found
# none are counted and said, and their samples are [unknown], never another process's names
R="$WORK/rings4"
ROCSYS_RINGS=4 "$ROCSYS_TOP" --record "$R" --no-tui -- "$TP/tp_spawn_many" 120 16 20 fork \
    > "$WORK/rings4.out" 2>&1 || true
procs=$(grep -o '"unannounced_processes": [0-9]*' "$R/session.json" | grep -o '[0-9]*$')
samples=$(grep -o '"unannounced_samples": [0-9]*' "$R/session.json" | grep -o '[0-9]*$')
unknown=$(awk '/\[unknown\]/ { u += $NF } END { print u + 0 }' "$R/stacks.folded")
echo "    4 rings: ${procs:-?} processes without records, ${samples:-?} samples, $unknown [unknown]"
check "4 rings: processes without records counted (${procs:-none})" test "${procs:-0}" -gt 0
check "4 rings: the summary says so" grep -q "processes sent no records" "$WORK/rings4.out"
check "4 rings: their samples are the [unknown] ones (${samples:-?} = $unknown)" \
    test "${samples:--1}" -eq "$unknown"
# (a thread's name is what /proc said while it ran, or thread-TID: never the functions of another
# process)
# (the launched program's samples taken in its execve, still in rocsys-top's image, read
# [truncated];[unknown] until they were named from rocsys-top's own modules: execve)
bad=$(awk '/\[unknown\]/ && !/^[^;]+-[0-9]+;\[unknown\] [0-9]+$/' "$R/stacks.folded" | head -n 5)
check "4 rings: no [unknown] sample given a process's name or stack (${bad:-none})" test -z "$bad"

# a generated C project built in parallel (cc1, as, ld: hundreds of processes)
P="$WORK/project"
mkdir -p "$P"
for i in $(seq 1 120); do
    {
        echo "#include <stdio.h>"
        for k in 1 2 3 4 5 6; do
            echo "static double f${i}_$k(int n) { double s = 0; for (int i = 0; i < n; i++) s += (double)i / (i + $k); return s; }"
        done
        echo "int fn$i(void) { printf(\"%f\\n\", f${i}_1(1) + f${i}_2(2) + f${i}_3(3) + f${i}_4(4) + f${i}_5(5) + f${i}_6(6)); return $i; }"
    } > "$P/f$i.c"
done
printf 'all: $(patsubst %%.c,%%.o,$(wildcard *.c))\n%%.o: %%.c\n\tgcc -O2 -g -c $< -o $@\n' > "$P/Makefile"
R="$WORK/build"
"$ROCSYS_TOP" --record "$R" --no-tui -- make -C "$P" -j2 -s > "$WORK/build.out" 2>&1 || true
check "build: every object built" test "$(ls "$P"/*.o 2> /dev/null | wc -l)" -eq 120
pct=$(unknown_pct "$R/stacks.folded")
cc1=$(awk '$0 ~ /^cc1-[0-9]+;/ { split($1, a, ";"); print a[1] }' "$R/stacks.folded" | sort -u | wc -l)
anon=$(grep -c '^thread-[0-9]*;.*\[unknown\]' "$R/stacks.folded" || true)
dropped=$(grep -o '"dropped": [0-9]*' "$R/session.json" | grep -o '[0-9]*$')
echo "    build: [unknown] $pct %, $cc1 cc1 processes named, $anon unknown stacks of unnamed threads, ${dropped:-?} dropped"
# (a slow build of rocsys-top, e.g. under ASan, that drops samples, or a machine busier than
# its cores (the load average over the build), also reads some short processes' maps too late:
# 2 % then)
load=$(awk '{print $1}' /proc/loadavg)
limit=1
[ "${dropped:-0}" -eq 0 ] && awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l <= n) }' || limit=2
echo "    build: load average $load on $(nproc) cores: limit $limit %"
check "build: [unknown] below $limit % ($pct %)" awk -v p="$pct" -v l="$limit" 'BEGIN { exit !(p < l) }'
check "build: cc1 processes named ($cc1)" test "$cc1" -ge 100
# (a sample taken in the loader, before the collector in a new image has said a word, has no
# module to name it by: a few such stacks are part of the 1 %)
finish
