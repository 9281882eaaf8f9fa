#!/usr/bin/env bash
# End-to-end: causal profiling (--causal) of Python functions
# (tests/programs/python/causal_single.py: hot_part and cold_part, 60 and 40 % of each
# iteration, rocsys.mark at its end). An experiment on a Python function delays the samples
# whose innermost Python frame runs its code object (docs/causal.md). With one thread the
# prediction at 100 % is the function's share of the time, which the program measures on its
# own CPU clock: checked within 5 points (each run says whether it met the issue's 3), and
# hot_part above cold_part, main (the loop around them: about 0) below 10. For the newest
# CPython found (frames in the data stack, 3.11+; 3.15 and 3.14 in the Debian sid test bed) and
# the oldest 3.8-3.10 (frame objects). The first runs 60 s, so that hot_part's lines get
# experiments (Python lines: the instructions of the line): their predictions must add up to
# hot_part's share within 8 points.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/causal_lib.sh"
PROG="$ROCSYS_SOURCE/tests/programs/python/causal_single.py"
[ -f "$PROG" ] || skip "Python workload missing: $PROG"
PYS=()
p=$(find_python 3.15 3.14 3.13 3.12 3.11) && PYS+=("$p")
p=$(find_python 3.8 3.9 3.10) && PYS+=("$p")
[ "${#PYS[@]}" -gt 0 ] || skip "no CPython 3.8 or later found (pyenv or /usr/bin)"
tol=5
if causal_sanitized; then # (see causal_lib.sh)
    echo "sanitizer build: checked within 10 points"
    tol=10
fi

# the line of a def in the program, and of the next def after it
def_line() { grep -n "^def $1(" "$PROG" | cut -d: -f1; }
hot_def=$(def_line hot_part) cold_def=$(def_line cold_part)
first=1
for py in "${PYS[@]}"; do
    ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    name="py$ver"
    echo "== $py (Python $ver) =="
    # the first interpreter runs long enough for hot_part's lines to get experiments (they
    # start after 10 of its own: about 30 s in)
    secs=30
    [ "$first" = 1 ] && secs=60
    causal_run "$name" "$py" "$PROG" "$secs"
    share() { awk -v fn="$1" '/^python_single: cpu share/{for (i=1;i<=NF;i++) if ($i==fn) print 100*$(i+1)}' "$WORK/$name.log"; }
    hot=$(share hot_part) cold=$(share cold_part)
    check "$ver: the program measured its shares (hot '$hot', cold '$cold')" test -n "$hot" -a -n "$cold"
    causal_rows "$name" | head -n 6 | sed 's/^/  /'
    hot100=$(causal_field "$name" hot_part 3) hot_ci=$(causal_field "$name" hot_part 4)
    cold100=$(causal_field "$name" cold_part 3) cold_ci=$(causal_field "$name" cold_part 4)
    main100=$(causal_field "$name" main 3)
    for fn in hot_part cold_part; do
        n=$(causal_field "$name" "$fn" 5)
        check "$ver: $fn had experiments ($n)" test "${n:-0}" -ge 6
    done
    echo "predicted at 100 %: hot_part $hot100 +- $hot_ci (share $hot), cold_part $cold100 +- $cold_ci (share $cold), main ${main100:-(no row)}"
    check "$ver: the rows name the Python functions where they are defined" \
        grep -Eq "hot_part +[^ ]*causal_single\.py:[0-9]+$" <(causal_rows "$name")
    check "$ver: hot_part: prediction at 100 % ($hot100 +- $hot_ci) is its share ($hot) within $tol" \
        within "$hot100" "$hot" "$tol"
    check "$ver: cold_part: prediction at 100 % ($cold100 +- $cold_ci) is its share ($cold) within $tol" \
        within "$cold100" "$cold" "$tol"
    check "$ver: hot_part's prediction ($hot100) above cold_part's ($cold100)" \
        awk -v h="$hot100" -v c="$cold100" 'BEGIN{exit !(h != "" && c != "" && h > c)}'
    # main's own time (the loop, its clock reads, the mark) is about 1 % of the run; its row
    # appears once it has 2 % of the samples, which it may not
    if [ -n "$main100" ]; then
        check "$ver: main (about 0) reads below 10 at 100 % ($main100)" \
            awk -v m="$main100" 'BEGIN{exit !(m < 10)}'
    fi
    check "$ver: profile.coz has the Python functions' experiments" \
        grep -Pq "^experiment\tselected=hot_part\tspeedup=" "$WORK/$name.rec/profile.coz"
    if [ "$first" = 1 ]; then
        # hot_part's lines (its loop's header and body, between its def and cold_part's): rows
        # of their own under it, with experiments; their predictions add up to hot_part's share
        # (each line's is its share of the time, as a function's is)
        causal_rows "$name" | awk -v lo="$hot_def" -v hi="$cold_def" '
            { n = $(NF-1); if (n !~ /^causal_single\.py:[0-9]+$/) next
              sub(/^causal_single\.py:/, "", n); n += 0
              if (n > lo && n < hi) { v = $3; sub(/%$/, "", v); print n, v, $5 } }' > "$WORK/lines"
        sed 's/^/    line /' "$WORK/lines"
        nlines=$(awk '$3 >= 6' "$WORK/lines" | wc -l)
        check "$ver: hot_part's lines have rows with 6 experiments or more ($nlines lines)" \
            test "$nlines" -ge 1
        lsum=$(awk '{s += $2} END{if (NR) print s}' "$WORK/lines")
        check "$ver: hot_part's lines add up to its share ($lsum for $hot) within 8 points" \
            within "$lsum" "$hot" 8
        check "$ver: profile.coz names the lines file:line" \
            grep -Pq "^experiment\tselected=[^\t]*causal_single\.py:[0-9]+\tspeedup=" \
            "$WORK/$name.rec/profile.coz"
    fi
    first=0
    if within "$hot100" "$hot" 3 && within "$cold100" "$cold" 3; then
        echo "    both within 3 points (the issue's bound)"
    else
        echo "    NOT both within 3 points (the issue's bound): hot_part $hot100 vs $hot, cold_part $cold100 vs $cold"
    fi
done
finish
