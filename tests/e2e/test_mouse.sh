#!/usr/bin/env bash
# End-to-end: the mouse in the TUI, as a terminal reports it. tmux writes the bytes a terminal
# sends for a click (xterm's SGR 1006 encoding under TERM=xterm-256color, the X10 one under
# TERM=screen) to rocsys-top, and the screen must change as a user expects: a click on a tab
# switches the view, on a column heading sorts by it, on a row selects it, on the selected row
# again expands/collapses (call tree) or acts as Enter (threads: that thread's call tree; kernels:
# its launch paths, whose headings and rows then take the clicks); the wheel moves the selection. --no-mouse leaves the terminal's mouse reporting off.
source "$(dirname "$0")/lib.sh"

# xy SESSION TEXT: "COLUMN LINE" (0-based) where the first screen line containing TEXT has it
xy() { tmux_screen "$1" | awk -v p="$2" '{i = index($0, p); if (i) {print i - 1, NR - 1; exit}}'; }
# settle SESSION: until the header has no "symbols: loading" line, which goes when the symbols
# are in: rows read before then may move up a line before the click lands (a click on the Hot
# functions tab found at row 4 landed on the view's title, row 4 by then, under load)
settle() {
    for ((i = 0; i < 600; i++)); do
        tmux_screen "$1" | grep -q '^ symbols: loading' || return 0
        sleep 0.1
    done
    echo "--- screen of $1 (the symbols line stayed 60 s) ---" >&2
    tmux_screen "$1" >&2 || true
    return 1
}
# click SESSION X Y: press and release of the left button at cell (X, Y), SGR encoding
click() {
    tmux_keys "$1" -l $'\e[<0;'"$(($2 + 1));$(($3 + 1))M"
    tmux_keys "$1" -l $'\e[<0;'"$(($2 + 1));$(($3 + 1))m"
}
# click_row SESSION TEXT: a click on the row showing TEXT, where it is now (a live tree moves rows)
click_row() { local x y; read -r x y <<< "$(xy "$1" "$2")"; click "$1" 2 "$y"; }
# wheel SESSION up|down X Y: one notch of the wheel (buttons 4 and 5: codes 64 and 65)
wheel() { tmux_keys "$1" -l $'\e[<'"$([ "$2" = up ] && echo 64 || echo 65);$(($3 + 1));$(($4 + 1))M"; }
# selected SESSION: the text of the selected row, blanks squeezed: the first line below the
# column headings that starts in reverse video (--no-color; tmux's capture writes an attribute
# only where it changes, so the state is carried from line to line)
selected() {
    tmux -L "$TMUX_SOCKET" capture-pane -e -p -t "$1" | awk '
        function sgr(p, n, a, i) {
            n = split(p, a, ";")
            if (n == 0) rev = 0
            for (i = 1; i <= n; i++)
                if (a[i] == "" || a[i] == 0 || a[i] == 27) rev = 0
                else if (a[i] == 7) rev = 1
        }
        {
            line = $0; first = -1; text = ""
            while (length(line) > 0) {
                if (match(line, /^\033\[[0-9;]*m/)) {
                    sgr(substr(line, 3, RLENGTH - 3)); line = substr(line, RLENGTH + 1); continue
                }
                if (first < 0) first = rev
                text = text substr(line, 1, 1); line = substr(line, 2)
            }
            if (h && first == 1) { gsub(/ +/, " ", text); print text; exit }
            if (first == 1 && text ~ /(INCL%|SELF%|NAME +TID|GPU% +CALLS|SHARE%)/) h = 1
        }'
}
# wait_selected SESSION REGEX SECONDS: until the selected row matches
wait_selected() {
    for ((i = 0; i < $3 * 10; i++)); do
        selected "$1" | grep -Eq -- "$2" && return 0
        sleep 0.1
    done
    echo "--- selected row of $1: '$(selected "$1")' (waited for: $2) ---" >&2
    tmux_screen "$1" >&2
    return 1
}

S=mouse
tmux_start $S 160 30 "$ROCSYS_TOP" --no-color -d 5 -- "$ROCSYS_DEMO" --seconds 60
check "call tree shown" wait_screen $S '^Call tree: all threads' 15
check "the TUI asked for mouse reports (SGR)" test \
    "$(tmux -L "$TMUX_SOCKET" display -p -t $S '#{mouse_standard_flag}#{mouse_sgr_flag}')" = 11

# a tab: the view changes
check "header settled (symbols loaded) before reading where the tabs are" settle $S
read -r x y <<< "$(xy $S ' 2 Hot functions ')"
click $S $((x + 4)) "$y"
check "click on the Hot functions tab (column $((x + 4)), row '$y') shows that view" \
    wait_screen $S '^Hot functions: ' 5
# column headings: the sort order changes, and the rows follow it
read -r x y <<< "$(xy $S 'FUNCTION')"
click $S $((x + 2)) "$y"
check "click on FUNCTION sorts by name" wait_screen $S '^Hot functions: .*sort: name' 5
tmux_screen $S | awk '/^  SELF%/{h = 1; next} h && NF >= 4 && n < 5 {print $4; n++}' > "$WORK/names"
check "rows in name order ($(tr "\n" " " < "$WORK/names"))" env LC_ALL=C sort -c "$WORK/names"
read -r x y <<< "$(xy $S 'INCL%')"
click $S $((x + 1)) "$y"
check "click on INCL% sorts by inclusive samples" wait_screen $S '^Hot functions: .*sort: inclusive' 5
read -r x y <<< "$(xy $S 'SELF%')"
click $S $((x + 1)) "$y"
check "click on SELF% sorts by self samples" wait_screen $S '^Hot functions: .*sort: self' 5
# a row selects
click_row $S ' demo_reduce '
check "click on the demo_reduce row selects it" wait_selected $S ' demo_reduce ' 5

# call tree: a row selects, a second click collapses it, a third expands it again
read -r x y <<< "$(xy $S ' 1 Call tree ')"
click $S $((x + 2)) "$y"
check "click on the Call tree tab" wait_screen $S '^Call tree: ' 5
check "solver_main open" wait_screen $S '▾ solver_main ' 10
click_row $S ' solver_main '
check "click selects the solver_main row" wait_selected $S ' solver_main ' 5
check "first click does not collapse it" wait_screen $S '▾ solver_main ' 2
# where the row is now: the live tree may have moved it (a thread's new root above it)
click_row $S ' solver_main '
check "second click on the selected row collapses it" wait_screen $S '▸ solver_main ' 5
check "its children are hidden" sh -c "! tmux -L '$TMUX_SOCKET' capture-pane -p -t $S | grep -q ' demo_step '"
sleep 0.3 # (two clicks closer than ncurses' click interval, 166 ms, are one double click)
click_row $S ' solver_main '
check "third click expands it again" wait_screen $S '▾ solver_main ' 5
# the wheel moves the selection three rows per notch
read -r x y <<< "$(xy $S ' [all]')"
click $S 2 "$y"
check "click selects the root row" wait_selected $S '\[all\]' 5
# the function three rows below the root (the unwinder may or may not see __clone3 above
# start_thread, so the tree's depth above solver_main varies)
third=$(tmux_screen $S | awk '/\[all\]/ {f = 1; n = 0; next}
    f && ++n == 3 {print ($4 == "▾" || $4 == "▸") ? $5 : $4; exit}')
wheel $S down 10 "$y"
check "wheel down: three rows further (${third:-?})" wait_selected $S " ${third:-none} " 5
wheel $S up 10 "$y"
check "wheel up: back to the root" wait_selected $S '\[all\]' 5

# threads: a second click on a row is Enter, that thread's call tree
read -r x y <<< "$(xy $S ' 3 Threads ')"
click $S $((x + 2)) "$y"
check "click on the Threads tab" wait_screen $S '^Threads: ' 5
click_row $S ' sleeper '
check "click selects the sleeper thread" wait_selected $S ' sleeper ' 5
click_row $S ' sleeper '
check "second click shows the sleeper's call tree" wait_screen $S '^Call tree: thread sleeper' 5
tmux_keys $S q
check "quits" wait_file "$WORK/$S.rc" 10
check "after quitting the terminal's mouse reporting is off again" test \
    "$(tmux -L "$TMUX_SOCKET" display -p -t $S '#{mouse_any_flag}#{mouse_standard_flag}#{mouse_sgr_flag}')" = 000

# kernels (a replayed recording of the HSA harness): a second click on a kernel opens its launch
# paths, and there a heading sorts the paths and a click selects one
if [ -x "$TP/tp_hsa_harness" ]; then
    "$ROCSYS_TOP" -b --record "$WORK/khsa" -- "$TP/tp_hsa_harness" normal 20 > "$WORK/khsa.txt" 2>&1
    K=kern
    tmux_start $K 160 30 "$ROCSYS_TOP" --no-color --replay "$WORK/khsa"
    check "kernels: replay shown" wait_screen $K '^Call tree: ' 15
    check "kernels: header settled (symbols loaded)" settle $K
    tmux_keys $K 7
    check "kernels: the Kernels view" wait_screen $K '^Hot kernels: ' 5
    read -r x y <<< "$(xy $K 'KERNEL')"
    click $K $((x + 2)) "$y"
    check "kernels: click on KERNEL sorts by name" wait_screen $K '^Hot kernels: .*sort: name' 5
    click_row $K ' vector_add('
    check "kernels: click selects vector_add" wait_selected $K ' vector_add\(' 5
    click_row $K ' vector_add('
    check "kernels: second click opens its launch paths" wait_screen $K '^Launch paths of vector_add' 5
    tmux_keys $K v
    check "kernels: the whole paths" wait_screen $K '^Launch paths of .*whole paths' 5
    read -r x y <<< "$(xy $K 'LAUNCHES')"
    click $K $((x + 2)) "$y"
    check "kernels: click on LAUNCHES sorts the paths by launches" \
        wait_screen $K '^Launch paths of .*sort: launches' 5
    click_row $K ' harness_setup_launch <'
    check "kernels: click selects the harness_setup_launch path" \
        wait_selected $K ' harness_setup_launch <' 5
    tmux_kill $K
fi

# X10 encoding (TERM=screen, tmux's own terminal type): the same tab click, on the short tab
# names a 120-column bar has
X=x10
tmux_start $X 120 30 env TERM=screen "$ROCSYS_TOP" -d 5 -- "$ROCSYS_DEMO" --seconds 60
check "x10: call tree shown" wait_screen $X '^Call tree: all threads' 15
check "x10: header settled (symbols loaded)" settle $X
read -r x y <<< "$(xy $X ' 3 Thr ')" # 120 columns: the short tab names
cx=$(printf "\\$(printf '%03o' $((x + 3 + 33)))") cy=$(printf "\\$(printf '%03o' $((y + 33)))")
tmux_keys $X -l $'\e[M '"$cx$cy"
tmux_keys $X -l $'\e[M#'"$cx$cy"
check "x10: click on the Threads tab shows that view" wait_screen $X '^Threads: ' 5
tmux_kill $X

# --no-mouse: no mouse reporting asked of the terminal (clicks stay the terminal's)
N=nomouse
tmux_start $N 120 30 "$ROCSYS_TOP" --no-mouse -d 5 -- "$ROCSYS_DEMO" --seconds 60
check "no-mouse: call tree shown" wait_screen $N '^Call tree: all threads' 15
check "no-mouse: no mouse reports asked for" test \
    "$(tmux -L "$TMUX_SOCKET" display -p -t $N '#{mouse_any_flag}#{mouse_standard_flag}#{mouse_sgr_flag}')" = 000
tmux_kill $N
finish
