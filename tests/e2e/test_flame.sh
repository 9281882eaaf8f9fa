#!/usr/bin/env bash
# End-to-end: the Flame graph view (key 0) on the demo, whose solver threads split their time
# 50/30/20 between demo_solve, demo_transform > demo_butterfly and demo_reduce: in tmux, the
# boxes side by side at columns in proportion to those shares, arrows moving between frames
# (the status line naming the selected frame and its share), Enter zooming into a frame (its
# name on the graph's top row, its child spanning the width), Esc and Backspace zooming out
# one level each, / highlighting demo_reduce with its share (about 20 %) in the title, and
# the view at 80x24. Batch mode's text rendering (box widths out of 100 columns, a child under
# its parent), the same from --replay and with --range. A Python program: its functions, one
# box each (the entries of a function's lines merged), in the TUI and in batch mode.
source "$(dirname "$0")/lib.sh"

# graph_row SESSION N: row N of the graph (0: the top row, the zoom root), below the title
# ("Flame graph...") and the legend line
graph_row() { tmux_screen "$1" | awk -v n="$2" '/^Flame graph/ {t = NR} t && NR == t + 2 + n {print; exit}'; }
# status SESSION: the status line (the last line of the screen)
status() { tmux_screen "$1" | tail -n 1; }
# wait_status SESSION REGEX SECONDS
wait_status() {
    local n=$(($3 * 10))
    for ((i = 0; i < n; i++)); do
        status "$1" | grep -Eq -- "$2" && return 0
        sleep 0.1
    done
    echo "--- status of $1 (waited for: $2): $(status "$1")" >&2
    return 1
}
# wait_row SESSION N REGEX SECONDS: until graph row N matches
wait_row() {
    local n=$(($4 * 10))
    for ((i = 0; i < n; i++)); do
        graph_row "$1" "$2" | grep -Eq -- "$3" && return 0
        sleep 0.1
    done
    echo "--- graph row $2 of $1 (waited for: $3): '$(graph_row "$1" "$2")'" >&2
    tmux_screen "$1" >&2
    return 1
}
# share: the percentage after "NAME: N samples, " in the status line
share() { status "$1" | sed -nE 's/.*: [0-9]+ samples, ([0-9.]+)%.*/\1/p'; }
# col LINE NAME: the column (0-based) where NAME starts in LINE, or empty
col() { awk -v n="$2" '{i = index($0, n); if (i) print i - 1}' <<<"$1"; }
# flame FILE: the rows of the last frame's Flame graph section in a batch output
flame() { last_frame "$1" | awk '/^== Flame graph/ {s = 1; next} /^== |^$/ {s = 0} s'; }
# boxw NAME: the width of NAME's box "[NAME---]" in the rows on stdin (empty if none)
boxw() { awk -v n="$1" '{i = index($0, "[" n "-"); if (!i) next; r = substr($0, i); print index(r, "]"); exit}'; }
# boxx NAME: its column
boxx() { awk -v n="$1" '{i = index($0, "[" n "-"); if (i) {print i - 1; exit}}'; }

if command -v tmux >/dev/null; then
    S=flame
    tmux_start $S 160 40 "$ROCSYS_TOP" -d 5 -- "$ROCSYS_DEMO" --seconds 60
    check "demo running" wait_screen $S 'demo_step' 10
    tmux_keys $S 0
    check "key 0: the Flame graph view" wait_screen $S '^Flame graph' 5
    check "tab bar lists 0 Flame graph" wait_screen $S ' 0 Flame graph ' 2
    check "the three callees side by side" wait_screen $S 'demo_solve +demo_transform +demo_reduce' 5
    check "demo_butterfly below demo_transform" wait_screen $S '^ +demo_butterfly' 5
    sleep 2 # shares settle
    # (one capture for both rows: the live graph is redrawn every 0.5 s, and its boxes move by
    # a column as the shares change; two captures put demo_butterfly one column off once)
    scr=$(tmux_screen $S)
    row=$(grep -E 'demo_solve +demo_transform' <<< "$scr" | head -n 1 || true)
    xs=$(col "$row" demo_solve) xt=$(col "$row" demo_transform) xr=$(col "$row" demo_reduce)
    check "demo_solve box from column 0 (got ${xs:-none})" test "${xs:-x}" = 0
    check "demo_transform box at 50% of 160 columns (column ${xt:-none})" within "${xt:-}" 80 6
    check "demo_reduce box at 80% of 160 columns (column ${xr:-none})" within "${xr:-}" 128 6
    brow=$(grep -E '^ +demo_butterfly' <<< "$scr" | head -n 1 || true)
    check "demo_butterfly under demo_transform (column $(col "$brow" demo_butterfly))" \
        test "$(col "$brow" demo_butterfly)" = "$xt"
    check "status: the root selected" wait_status $S '^\[all\]: [0-9]+ samples, 100\.0%' 3
    # Down: the hottest child, down to demo_solve
    for ((k = 0; k < 12; k++)); do
        status $S | grep -q '^demo_solve:' && break
        tmux_keys $S Down
        sleep 0.3
    done
    check "Down reaches demo_solve" wait_status $S '^demo_solve: ' 2
    check "demo_solve about 50% ($(share $S))" within "$(share $S)" 50 4
    tmux_keys $S Right
    check "Right: demo_transform" wait_status $S '^demo_transform: ' 2
    tmux_keys $S Down
    check "Down: demo_butterfly" wait_status $S '^demo_butterfly: ' 2
    check "demo_butterfly about 30% ($(share $S))" within "$(share $S)" 30 4
    tmux_keys $S Up
    check "Up: back to demo_transform" wait_status $S '^demo_transform: ' 2
    tmux_keys $S Right
    check "Right: demo_reduce" wait_status $S '^demo_reduce: ' 2
    check "demo_reduce about 20% ($(share $S))" within "$(share $S)" 20 4
    tmux_keys $S Left
    check "Left: demo_transform" wait_status $S '^demo_transform: ' 2
    tmux_keys $S Enter
    check "Enter zooms: demo_transform on the top row" wait_row $S 0 '^demo_transform( |$)' 3
    check "... its child spans the width" wait_row $S 1 '^demo_butterfly( |$)' 2
    check "... and the title says so" wait_screen $S '^Flame graph.*zoom: demo_transform' 2
    tmux_keys $S Escape
    check "Esc zooms out one level: demo_step on top" wait_row $S 0 '^demo_step( |$)' 3
    check "... its callees side by side again" wait_row $S 1 '^demo_solve +demo_transform +demo_reduce' 2
    tmux_keys $S BSpace
    check "Backspace zooms out one more level" wait_row $S 0 '^solver_main( |$)' 3
    for ((k = 0; k < 6; k++)); do tmux_keys $S Escape; done
    check "out to the root" wait_row $S 0 '^\[all\]( |$)' 3
    check "no zoom in the title" bash -c "! tmux -L $TMUX_SOCKET capture-pane -p -t $S | grep -q 'zoom:'"
    tmux_keys $S / d e m o _ r e d u c e Enter
    check "search: the share of demo_reduce in the title" wait_screen $S 'match "demo_reduce": [0-9.]+%' 3
    got=$(tmux_screen $S | sed -nE 's/.*match "demo_reduce": ([0-9.]+)%.*/\1/p' | head -n 1)
    check "search share about 20% (got ${got:-none})" within "${got:-}" 20 4
    check "search selects demo_reduce" wait_status $S '^demo_reduce: ' 2
    tmux_keys $S / d e m o _ Enter # every demo_ frame: nested matches counted once
    check "search demo_" wait_screen $S 'match "demo_": [0-9.]+%' 3
    got=$(tmux_screen $S | sed -nE 's/.*match "demo_": ([0-9.]+)%.*/\1/p' | head -n 1)
    check "demo_ matches: about 100%, not more (got ${got:-none})" within "${got:-}" 99 2
    tmux -L "$TMUX_SOCKET" resize-window -t $S -x 80 -y 24
    check "80x24: the graph" wait_screen $S 'demo_solve +demo_transform +demo_reduce' 5
    check "80x24: title with the search share" wait_screen $S '^Flame graph  match "demo_"' 2
    # (the selection is the match after demo_reduce, which may be a demo_ frame the main thread's
    # calibration ran, one column wide at 160 columns and none at 80: it then falls to its nearest
    # ancestor with a box, up to [all])
    check "80x24: status line" wait_status $S '^[^ ]+: [0-9]+ samples, [0-9.]+% \(self [0-9.]+%\)' 2
    tmux_keys $S q
    check "q quits" wait_file "$WORK/$S.rc" 8
    tmux_kill $S
else
    echo "SKIP flame TUI: tmux is not installed"
fi

# ---- batch mode: the text rendering, live and replayed ----
rc=0
"$ROCSYS_TOP" -b -d 100 --record "$WORK/rec" -- "$ROCSYS_DEMO" --seconds 3 >"$WORK/live.txt" 2>&1 || rc=$?
check "batch run (exit $rc)" test "$rc" -eq 0
check "batch: a Flame graph section" grep -q '^== Flame graph: all threads, since start  ([0-9]* samples, 100 columns = 100%) ==' "$WORK/live.txt"
flame "$WORK/live.txt" >"$WORK/live.flame"
for spec in demo_solve:50 demo_butterfly:30 demo_reduce:20; do
    fn=${spec%%:*} want=${spec##*:}
    w=$(boxw "$fn" <"$WORK/live.flame")
    check "batch: [$fn] box ${w:-missing} columns of 100, about $want" within "${w:-}" "$want" 4
done
check "batch: demo_butterfly under demo_transform" \
    test "$(boxx demo_butterfly <"$WORK/live.flame")" = "$(boxx demo_transform <"$WORK/live.flame")"
check "batch: no row wider than 100 columns" awk 'length($0) > 100 {exit 1}' "$WORK/live.flame"
check "batch: the root first" bash -c "head -n 1 '$WORK/live.flame' | grep -q '^\[\[all\]-*\]$'"

rc=0
"$ROCSYS_TOP" --replay "$WORK/rec" -b >"$WORK/replay.txt" 2>&1 || rc=$?
check "replay (exit $rc)" test "$rc" -eq 0
flame "$WORK/replay.txt" >"$WORK/replay.flame"
for spec in demo_solve:50 demo_butterfly:30 demo_reduce:20; do
    fn=${spec%%:*} want=${spec##*:}
    w=$(boxw "$fn" <"$WORK/replay.flame")
    check "replay: [$fn] box ${w:-missing} columns, about $want" within "${w:-}" "$want" 4
done
# the flame graph counts what the call tree counts (the same model, the same range)
fs=$(sed -nE 's/^== Flame graph: .*\(([0-9]+) samples.*/\1/p' "$WORK/replay.txt" | tail -n 1)
cs=$(last_frame "$WORK/replay.txt" | awk '/^== Call tree/ {getline; getline; print $3; exit}')
check "replay: flame samples ${fs:-none} = call tree root ${cs:-none}" test "${fs:-x}" = "${cs:-y}"
rc=0
"$ROCSYS_TOP" --replay "$WORK/rec" --range 0:1 -b >"$WORK/range.txt" 2>&1 || rc=$?
check "replay --range 0:1 (exit $rc)" test "$rc" -eq 0
rs=$(sed -nE 's/^== Flame graph: .*\(([0-9]+) samples.*/\1/p' "$WORK/range.txt" | tail -n 1)
check "range: fewer samples (${rs:-none} of ${fs:-none})" test "${rs:-0}" -gt 0 -a "${rs:-0}" -lt "${fs:-0}"
flame "$WORK/range.txt" >"$WORK/range.flame"
check "range: the demo's boxes" grep -q '\[demo_solve-' "$WORK/range.flame"

# ---- a Python program: its functions as boxes, one per function ----
py=""
for p in "$PYENV_DIR"/versions/3.1[0-9]*/bin/python3 /usr/bin/python3; do
    [ -x "$p" ] && "$p" -c 'import sys' 2>/dev/null && py=$p
done
SPLIT="$ROCSYS_SOURCE/tests/programs/python/split.py"
if [ -n "$py" ] && [ -f "$SPLIT" ]; then
    rc=0
    "$ROCSYS_TOP" -b -d 100 -- "$py" "$SPLIT" 2 >"$WORK/py.txt" 2>&1 || rc=$?
    check "python batch ($py, exit $rc)" test "$rc" -eq 0
    flame "$WORK/py.txt" >"$WORK/py.flame"
    wa=$(boxw f_a <"$WORK/py.flame") wb=$(boxw f_b <"$WORK/py.flame") wc=$(boxw f_c <"$WORK/py.flame")
    check "python: f_a f_b f_c boxes (${wa:-none} ${wb:-none} ${wc:-none} columns), widest first" \
        test "${wa:-0}" -gt "${wb:-0}" -a "${wb:-0}" -gt "${wc:-0}" -a "${wc:-0}" -gt 5
    check "python: one f_a box (a function's lines merged)" \
        test "$(grep -o '\[f_a-' "$WORK/py.flame" | wc -l)" = 1
    check "python: main above them" grep -q '^\[main-' "$WORK/py.flame"
    if command -v tmux >/dev/null; then
        S=py
        tmux_start $S 100 30 "$ROCSYS_TOP" -d 5 -- "$py" "$SPLIT" 30
        check "python TUI up" wait_screen $S 'f_a' 15
        tmux_keys $S 0
        check "python TUI: f_a f_b f_c side by side in the flame graph" \
            wait_screen $S '^f_a +f_b +f_c( |$)' 8
        check "python TUI: main above them" wait_screen $S '^main( |$)' 2
        tmux_keys $S q
        check "python TUI: q quits" wait_file "$WORK/$S.rc" 8
        tmux_kill $S
    fi
else
    echo "SKIP flame python: no python3 or no $SPLIT"
fi
finish
