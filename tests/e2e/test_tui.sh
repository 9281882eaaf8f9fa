#!/usr/bin/env bash
# End-to-end: the interactive TUI in tmux (send-keys, capture-pane) on the demo: every view,
# the documented shares within +-3 points, help, search, thread filter, window toggle, pause,
# resizes down to a tiny terminal, the final profile kept on screen with the exit status,
# q to quit with the target's exit status; a crashing target leaves the TUI usable.
source "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"

S=demo
tmux_start $S 150 45 "$ROCSYS_TOP" -d 5 --cpu-timer perf -- "$ROCSYS_DEMO" --seconds 6
check "call tree shows the demo" wait_screen $S 'demo_step' 10
check "hottest path expanded down to demo_solve" wait_screen $S 'demo_solve' 5
tmux_keys $S 2
check "hot functions view" wait_screen $S 'Hot functions' 5
sleep 2 # let shares settle (about 8000 samples)
tmux_screen $S > "$WORK/hot.txt"
for spec in demo_solve:50 demo_butterfly:30 demo_reduce:20; do
    fn=${spec%%:*} want=${spec##*:}
    got=$(awk -v fn="$fn" '$4==fn {print $1; exit}' "$WORK/hot.txt")
    check "TUI: $fn self ${got:-missing}% within 3 of $want%" within "$got" "$want" 3
done
tmux_keys $S 3
check "threads view lists solver-0" wait_screen $S 'solver-0' 5
check "threads view lists the sleeper" wait_screen $S 'sleeper' 5
tmux_keys $S 4
check "output view shows the demo's output" wait_screen $S 'rocsys-demo: [0-9]+ solver threads' 5
tmux_keys $S 1
tmux_keys $S '?'
check "help overlay" wait_screen $S '[Qq]uit' 5
tmux_keys $S Escape
tmux_keys $S w
check "window toggle shows the sliding window" wait_screen $S 'last 5 ?s' 5
tmux_keys $S w
tmux_keys $S t
check "thread filter switches to one thread" wait_screen $S 'thread [^ ]+ \(tid [0-9]+\)' 5
tmux_keys $S t t t t t
tmux_keys $S p
check "pause shown" wait_screen $S 'PAUSED' 5
tmux_keys $S p
tmux_keys $S / d e m o _ r e d u c e Enter
check "search finds demo_reduce" wait_screen $S 'demo_reduce' 5
tmux -L "$TMUX_SOCKET" resize-window -t $S -x 30 -y 8
sleep 1
check "tiny terminal handled" bash -c "tmux -L $TMUX_SOCKET capture-pane -p -t $S | grep -Eiq 'small|rocsys'"
tmux -L "$TMUX_SOCKET" resize-window -t $S -x 150 -y 45
check "back to full size" wait_screen $S 'INCL%|SELF%' 5
check "final profile kept with the exit status" wait_screen $S 'exited with 0' 15
check "still showing the profile after exit" wait_screen $S 'demo_' 2
test ! -e "$WORK/$S.rc" && pass || fail "rocsys-top quit before the user did"
tmux_keys $S q
check "q quits" wait_file "$WORK/$S.rc" 5
check "exit status of the demo (0)" test "$(cat "$WORK/$S.rc" 2>/dev/null)" = 0
tmux_kill $S

S=crash
tmux_start $S 120 35 "$ROCSYS_TOP" -d 3 -- "$TP/tp_crash"
check "crash reported" wait_screen $S 'SIGSEGV' 15
tmux_keys $S 2
check "TUI usable after the crash: hot functions" wait_screen $S 'crash_burn' 5
tmux_keys $S 4
check "output before the crash shown" wait_screen $S 'before crash' 5
tmux_keys $S q
check "q quits after a crash" wait_file "$WORK/$S.rc" 5
check "exit status 139" test "$(cat "$WORK/$S.rc" 2>/dev/null)" = 139
tmux_kill $S

S=quit
tmux_start $S 120 35 "$ROCSYS_TOP" -d 3 -- "$TP/tp_sleep" 61.25
check "running target shown" wait_screen $S 'running' 10
tmux_keys $S q
check "q while running ends the target and quits" wait_file "$WORK/$S.rc" 8
check "exit status 143 (SIGTERM)" test "$(cat "$WORK/$S.rc" 2>/dev/null)" = 143
check "target gone" bash -c "! pgrep -a -x tp_sleep | grep -q ' 61[.]25'"
tmux_kill $S

S=chatter
tmux_start $S 120 35 env ROCSYS_ROCM_SMI="$TP/libstandin-rsmi-noisy.so" "$ROCSYS_TOP" -d 2 \
    --gpu-interval 100 -- "$ROCSYS_DEMO" --seconds 2
check "display up (chatter)" wait_screen $S 'elapsed' 10
tmux_keys $S 5
check "stand-in GPU shown" wait_screen $S 'Noisy stand-in GPU' 10
check "target finished" wait_screen $S 'exited with 0' 10
check "library chatter never on the screen" bash -c "! tmux -L $TMUX_SOCKET capture-pane -p -t $S | grep -q NOISY-RSMI"
tmux_keys $S q
check "q quits (chatter)" wait_file "$WORK/$S.rc" 5
check "chatter shown after the display closed" wait_screen $S 'printed by libraries while the display was open' 5
check "... with the library's words" wait_screen $S 'NOISY-RSMI chatter' 2
tmux_kill $S

S=mono
tmux_start $S 100 30 env TERM=vt100 LANG=C "$ROCSYS_TOP" --no-color -d 5 -- "$ROCSYS_DEMO" --seconds 2
check "monochrome / ASCII terminal works" wait_screen $S 'demo_step' 10
check "ends with exit status" wait_screen $S 'exited with 0' 10
tmux_keys $S q
check "q quits (mono)" wait_file "$WORK/$S.rc" 5
finish
