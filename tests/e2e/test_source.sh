#!/usr/bin/env bash
# End-to-end: the Source view in tmux. The demo: Enter on demo_solve in the hot functions opens
# examples/demo.c with demo_solve's hot loop line (its SPIN_KERNEL line) carrying almost all of
# its samples; S in the call tree does the same; Esc and q go back. tp_lines (lines_work: about
# 60 % on LINE_A, 25 % on LINE_B, and the inlined lines_inlined on LINE_C): both lines with
# their shares, n / N jumping between them (the status line names the selected line), the
# inlined code's line counted for lines_inlined, not for lines_work. --source-path: a mapping
# to a directory without the file names the path it looked for and the build path (the shares
# still shown), a mapping to a copy shows the copy; a rule without '=' is refused (exit 2).
# --replay: the counts of lines.txt, and a recording without lines.txt says so.
source "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"
: "${ROCSYS_SOURCE:?run through ctest}"

DEMO_C=$ROCSYS_SOURCE/examples/demo.c
LINES_C=$ROCSYS_SOURCE/tests/programs/tp_lines.c
# the SPIN_KERNEL line inside demo_solve's body, and tp_lines' marked lines
hot_demo=$(awk '/uint64_t demo_solve\(long iters, uint64_t seed\)$/ {f = 1} f && /SPIN_KERNEL/ {print NR; exit}' "$DEMO_C")
line_a=$(grep -n 'LINE_A' "$LINES_C" | tail -n 1 | cut -d: -f1)
line_b=$(grep -n 'LINE_B' "$LINES_C" | tail -n 1 | cut -d: -f1)
line_c=$(grep -n 'LINE_C' "$LINES_C" | tail -n 1 | cut -d: -f1)
check "found demo_solve's hot line ($hot_demo) and LINE_A/B/C ($line_a $line_b $line_c)" \
    test -n "$hot_demo" -a -n "$line_a" -a -n "$line_b" -a -n "$line_c"

# share SESSION LINE: the SELF% of source line LINE on the screen (empty: none)
share() { tmux_screen "$1" | awk -v l="$2" '$1 ~ /^[0-9]+\.[0-9]$/ && $2 ~ /^[0-9]+$/ && $3 == l {print $1; exit}'; }
# row SESSION LINE: the screen row of source line LINE
row() { tmux_screen "$1" | awk -v l="$2" '($1 == l && NF >= 1) || ($3 == l && $1 ~ /^[0-9]+\.[0-9]$/) {print; exit}'; }
status() { tmux_screen "$1" | tail -n 1; }
wait_status() {
    for ((i = 0; i < $3 * 10; i++)); do
        status "$1" | grep -Eq -- "$2" && return 0
        sleep 0.1
    done
    echo "--- status of $1 (waited for: $2): $(status "$1")" >&2
    return 1
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a != "" && a + 0 >= b + 0)}'; }

# ---- the demo: hot functions (Enter) and call tree (S) ----
S=demo
tmux_start $S 140 40 "$ROCSYS_TOP" -d 5 -- "$ROCSYS_DEMO" --seconds 60
check "demo running" wait_screen $S 'demo_solve' 10
tmux_keys $S 2
check "hot functions" wait_screen $S '^Hot functions' 5
sleep 3 # some thousand samples
tmux_keys $S / d e m o _ s o l v e Enter
sleep 0.5
tmux_keys $S Enter
check "Enter in the hot functions: the Source view of demo_solve" wait_screen $S '^Source: demo_solve .*examples/demo\.c' 5
check "its column headings" wait_screen $S 'SELF% +SAMPLES +LINE +SOURCE' 2
check "the source text of demo.c is shown" wait_screen $S "^ +$hot_demo +SPIN_KERNEL\(iters, seed\);|[0-9] +$hot_demo +SPIN_KERNEL\(iters, seed\);" 2
got=$(share $S "$hot_demo")
check "demo_solve's hot loop line $hot_demo carries most of its samples (${got:-none}%)" ge "$got" 90
check "the status line names the selected (hottest) line" wait_status $S "line $hot_demo: [0-9.]+%" 2
tmux_keys $S n
check "n with no other hot line below: said so" wait_status $S 'no hot line below' 2
tmux_keys $S Escape
check "Esc: back to the hot functions" wait_screen $S '^Hot functions' 3
tmux_keys $S 1
check "call tree" wait_screen $S 'demo_step' 3
tmux_keys $S / d e m o _ s o l v e Enter
sleep 0.5
tmux_keys $S S
check "S in the call tree: the Source view of demo_solve" wait_screen $S '^Source: demo_solve' 5
# its hot line is a few lines below its head: the page starts at the head, the hot line selected
# its hot line is three lines below its head: both on the page, the hot line selected
check "demo_solve: its definition and its selected hot line on one page" wait_screen $S \
    "[0-9]+ +__attribute__\(\(noinline\)\) uint64_t demo_solve\(" 2
check "demo_solve: its hot line selected" wait_status $S '^line [0-9]+: 100.0%' 2
tmux_keys $S q
check "q: back to the call tree (not quit)" wait_screen $S '^Call tree' 3
tmux_keys $S / d e m o _ s t e p Enter
sleep 0.5
tmux_keys $S S
# demo_step's time is its callees': the view says why it has no shares, unless a rare sample
# landed in demo_step itself (a few, out of thousands: then those few are its shares)
no_self() {
    local scr
    scr=$(tmux_screen $S)
    grep -q 'no self samples: the time of this function is spent in the functions it calls' <<< "$scr" ||
        { grep -q '^Source: demo_step' <<< "$scr" &&
            [ "$(awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {s += $2} END {print s + 0}' <<< "$scr")" -le 3 ]; }
}
seen=1
for ((i = 0; i < 50; i++)); do
    no_self && { seen=0; break; }
    sleep 0.1
done
check "demo_step (no self time): its source, and why it has no shares" test "$seen" -eq 0
check "demo_step's file is shown at its definition" wait_screen $S "[0-9]+ +__attribute__\(\(noinline\)\) uint64_t demo_step\(struct demo_plan" 2
tmux_keys $S Escape
tmux_keys $S '?'
check "the help overlay names the Source view keys" wait_screen $S "S \(Enter: hot\) +call tree, hot functions: the function's source" 3
tmux_keys $S Escape
tmux_kill $S

# ---- two hot lines and an inlined function: tp_lines ----
S=lines
tmux_start $S 140 40 "$ROCSYS_TOP" -d 5 -- "$TP/tp_lines" 60
check "tp_lines running" wait_screen $S 'lines_work' 10
tmux_keys $S 2
sleep 3
tmux_keys $S / l i n e s _ w o r k Enter
sleep 0.5
tmux_keys $S S
check "S in the hot functions: the Source view of lines_work" wait_screen $S '^Source: lines_work .*tp_lines\.c' 5
a=$(share $S "$line_a")
b=$(share $S "$line_b")
check "LINE_A ($line_a) ${a:-none}% of lines_work's samples, 50 at least" ge "$a" 50
check "LINE_B ($line_b) ${b:-none}% of them, 15 at least" ge "$b" 15
check "LINE_A and LINE_B together all of them (${a:-?} + ${b:-?})" ge "$(awk -v a="$a" -v b="$b" 'BEGIN {print a + b}')" 98
check "the inlined function's line $line_c is not lines_work's: $(row $S "$line_c")" \
    test -z "$(share $S "$line_c")"
check "selection starts on the hottest line (LINE_A)" wait_status $S "line $line_a: " 2
tmux_keys $S n
check "n: the next hot line (LINE_B)" wait_status $S "line $line_b: " 2
tmux_keys $S n
check "n past the last hot line: said so" wait_status $S 'no hot line below' 2
tmux_keys $S N
check "N: the previous hot line (LINE_A)" wait_status $S "line $line_a: " 2
tmux_keys $S N
check "N before the first hot line: said so" wait_status $S 'no hot line above' 2
tmux_keys $S Escape
tmux_keys $S / l i n e s _ i n l i n e d Enter
sleep 0.5
tmux_keys $S Enter
check "the inlined function has a Source view of its own" wait_screen $S '^Source: lines_inlined' 5
c=$(share $S "$line_c")
check "its own line LINE_C ($line_c) carries its samples (${c:-none}%)" ge "$c" 95
tmux_kill $S

# ---- --source-path: elsewhere (not found), and to a copy ----
S=missing
tmux_start $S 140 30 "$ROCSYS_TOP" -d 5 --source-path "$ROCSYS_SOURCE=$WORK/nowhere" -- "$ROCSYS_DEMO" --seconds 60
check "demo running (mapped elsewhere)" wait_screen $S 'demo_solve' 10
tmux_keys $S 2
sleep 2
tmux_keys $S / d e m o _ s o l v e Enter
sleep 0.5
tmux_keys $S Enter
check "source not found: the path it looked for" \
    wait_screen $S "source not found: $WORK/nowhere/examples/demo\.c \(No such file or directory\)" 5
check "and the build path, mapped by --source-path" \
    wait_screen $S "the build path $DEMO_C, mapped by --source-path" 2
got=$(share $S "$hot_demo")
check "the line's share is still shown (${got:-none}%)" ge "$got" 90
tmux_kill $S
mkdir -p "$WORK/copy/examples"
sed "${hot_demo}s|\$| /* the copy */|" "$DEMO_C" >"$WORK/copy/examples/demo.c"
S=copy
tmux_start $S 140 30 "$ROCSYS_TOP" -d 5 --source-path "/nonexistent=/x" --source-path "$ROCSYS_SOURCE=$WORK/copy" -- "$ROCSYS_DEMO" --seconds 60
check "demo running (mapped to a copy)" wait_screen $S 'demo_solve' 10
tmux_keys $S 2
sleep 2
tmux_keys $S / d e m o _ s o l v e Enter
sleep 0.5
tmux_keys $S Enter
check "--source-path (the second rule): the copy is shown" wait_screen $S "SPIN_KERNEL\(iters, seed\); /\* the copy \*/" 5
tmux_kill $S
rc=0
"$ROCSYS_TOP" --source-path /build -- /bin/true >"$WORK/bad.out" 2>&1 || rc=$?
check "--source-path without '=': exit 2, a usage error (got $rc)" test "$rc" = 2
check "--source-path without '=': says why" grep -q "'/build' is not OLD=NEW" "$WORK/bad.out"

# ---- --replay: lines.txt, and a recording without it ----
"$ROCSYS_TOP" --record "$WORK/rec" --gpu-interval 0 -- "$TP/tp_lines" 3 >"$WORK/rec.out" 2>&1 || true
check "the recording has lines.txt" test -s "$WORK/rec/lines.txt"
check "lines.txt: lines_work's LINE_A" grep -qE "^[0-9]+	$line_a	$LINES_C	lines_work\$" "$WORK/rec/lines.txt"
S=replay
tmux_start $S 140 30 "$ROCSYS_TOP" --replay "$WORK/rec"
check "replay up" wait_screen $S 'lines_work' 10
tmux_keys $S 2
tmux_keys $S / l i n e s _ w o r k Enter
sleep 0.5
tmux_keys $S Enter
check "replay: the Source view of lines_work (whole recording)" wait_screen $S '^Source: lines_work .*whole recording' 5
a=$(share $S "$line_a")
check "replay: LINE_A's share from lines.txt (${a:-none}%)" ge "$a" 50
tmux_kill $S
cp -r "$WORK/rec" "$WORK/old"
rm "$WORK/old/lines.txt"
S=nolines
tmux_start $S 140 30 "$ROCSYS_TOP" --replay "$WORK/old"
check "replay without lines.txt up" wait_screen $S 'lines_work' 10
tmux_keys $S 2
tmux_keys $S / l i n e s _ w o r k Enter
sleep 0.5
tmux_keys $S Enter
check "a recording without lines.txt says so" \
    wait_screen $S 'this recording has no line counts \(no lines\.txt\)' 5
check "nor a source file (a recording names functions only)" \
    wait_screen $S 'no source file known for this function' 2
tmux_kill $S

finish
