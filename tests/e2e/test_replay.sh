#!/usr/bin/env bash
# End-to-end: --replay DIR shows a recording with the live views: the whole run by default,
# a phase with --range (batch) or with w [ ] (TUI in tmux); bad input is one clear line.
source "$(dirname "$0")/lib.sh"

CHECKER="$ROCSYS_PROGRAMS/rocsys-trace-check"
D=$WORK/rec
rc=0
"$ROCSYS_TOP" --record "$D" -d 2 -- "$TP/tp_phases" > /dev/null 2>&1 || rc=$?
check "recorded tp_phases (exit $rc)" test "$rc" -eq 0

# the whole run: both phases, about half each, the output and the exit status
rc=0
"$ROCSYS_TOP" --replay "$D" -b --rows 0 > "$WORK/all.txt" || rc=$?
check "replay -b: exit 0 (got $rc)" test "$rc" -eq 0
one=$(hot_self phase_one < "$WORK/all.txt")
two=$(hot_self phase_two < "$WORK/all.txt")
check "whole run: phase_one ${one:-missing}% within 15 of 50%" within "$one" 50 15
check "whole run: phase_two ${two:-missing}% within 15 of 50%" within "$two" 50 15
check "whole run: the recorded exit status" grep -q 'replay: exited with 0' "$WORK/all.txt"
check "whole run: the recorded output" grep -q 'tp_phases: phase two done' "$WORK/all.txt"
check "whole run: the recorded command line" grep -q 'tp_phases' "$WORK/all.txt"
samples_all=$(sed -n 's/.*samples \([0-9]*\) .*/\1/p' "$WORK/all.txt" | head -1)
check "whole run: samples counted (${samples_all:-0})" test "${samples_all:-0}" -ge 1000

# the process line: CPU % (mean of the recorded readings in the range, which lies between the
# CPU % track's smallest and largest reading) and RSS, from the trace's counter tracks
if [ -x "$CHECKER" ]; then
    "$CHECKER" "$D/trace.pftrace" > "$WORK/tracks.txt"
    read -r lo hi < <(awk '/counter "CPU %"/ {for (i = 1; i < NF; i++) {if ($i == "min") l = $(i + 1); if ($i == "max") h = $(i + 1)}} END {print l, h}' "$WORK/tracks.txt")
    mean=$(sed -n 's/^process [0-9]* tp_phases: cpu (mean) \([0-9.]*\)%.*/\1/p' "$WORK/all.txt" | head -1)
    check "whole run: process CPU mean ${mean:-missing}% within the recorded ${lo:-?}..${hi:-?}" \
        awk -v m="${mean:-x}" -v l="${lo:-x}" -v h="${hi:-x}" 'BEGIN { exit !(m != "x" && l != "x" && m + 0.05 >= l && m - 0.05 <= h) }'
    check "whole run: process RSS from the recording" grep -Eq '^process [0-9]+ tp_phases: .* rss [0-9.]+ [KMG]iB  peak [0-9.]+ [KMG]iB' "$WORK/all.txt"
fi

# a range at the start holds only phase one, one at the end only phase two
run=$(sed -n 's/.* of \([0-9.]*\) s$/\1/p' "$WORK/all.txt" | head -1)
"$ROCSYS_TOP" --replay "$D" -b --rows 0 --range 0:0.3 > "$WORK/start.txt"
check "--range 0:0.3: phase_one only" bash -c "grep -qw phase_one '$WORK/start.txt' && ! grep -qw phase_two '$WORK/start.txt'"
late=$(awk -v r="${run:-0}" 'BEGIN{printf "%.3f", r - 0.3}')
"$ROCSYS_TOP" --replay "$D" -b --rows 0 --range "$late:" > "$WORK/end.txt"
check "--range $late: (run ${run:-?} s): phase_two only" bash -c "grep -qw phase_two '$WORK/end.txt' && ! grep -qw phase_one '$WORK/end.txt'"
check "the range is shown" grep -q "range $late-" "$WORK/end.txt"

# bad input: one line, exit 1 or 2, never a crash
rc=0; "$ROCSYS_TOP" --replay "$WORK/none" 2> "$WORK/e1.txt" || rc=$?
check "missing directory: exit 1 (got $rc)" test "$rc" -eq 1
check "missing directory: one line" test "$(wc -l < "$WORK/e1.txt")" -eq 1
mkdir -p "$WORK/empty"
rc=0; "$ROCSYS_TOP" --replay "$WORK/empty" 2> "$WORK/e2.txt" || rc=$?
check "not a recording: exit 1 (got $rc)" test "$rc" -eq 1
check "not a recording: says so" grep -q 'not a recording' "$WORK/e2.txt"
mkdir -p "$WORK/garbage" && head -c 4096 /dev/urandom > "$WORK/garbage/trace.pftrace"
rc=0; "$ROCSYS_TOP" --replay "$WORK/garbage" -b > /dev/null 2> "$WORK/e3.txt" || rc=$?
check "garbage trace: exit 1 (got $rc)" test "$rc" -eq 1
check "garbage trace: one line" test "$(wc -l < "$WORK/e3.txt")" -eq 1
rc=0; "$ROCSYS_TOP" --replay "$D" --range 2:1 2> "$WORK/e4.txt" || rc=$?
check "bad --range: exit 1 (got $rc)" test "$rc" -eq 1
# a killed recording (truncated trace, no session.json) still replays, with a notice
mkdir -p "$WORK/cut"
# (the writer writes a chunk of packets at least once a second, each with one write: a kill
# mid-write tears the last one, and everything before it stays)
head -c $(( $(stat -c %s "$D/trace.pftrace") - 3 )) "$D/trace.pftrace" > "$WORK/cut/trace.pftrace"
rc=0; "$ROCSYS_TOP" --replay "$WORK/cut" -b > "$WORK/cut.txt" 2>&1 || rc=$?
check "truncated trace: exit 0 (got $rc)" test "$rc" -eq 0
check "truncated trace: notice" grep -q 'notice: .*killed' "$WORK/cut.txt"
check "truncated trace: phase_one shown" grep -qw phase_one "$WORK/cut.txt"

# the TUI: w narrows to a window at the start (phase one), ] moves it along the run
if command -v tmux >/dev/null; then
    S=replay
    tmux_start $S 120 40 "$ROCSYS_TOP" --replay "$D"
    tmux_keys $S 2
    check "TUI: hot functions of the whole run" wait_screen $S 'phase_two' 10
    check "TUI: range shown in the header" wait_screen $S 'range 0\.0-[0-9.]+ s of' 5
    # w: a tenth of the run (its length as recorded: 1.7 s idle, 20 s on a loaded machine)
    tenth=$(tmux_screen $S | sed -n 's/.*range 0\.0-[0-9.]* s of \([0-9.]*\) s.*/\1/p' |
        awk 'NR == 1 { printf "%.1f", $1 / 10 }')
    window_at_start() { # the header's range ends within 0.15 s of a tenth of the run
        tmux_screen $S | sed -n 's/.*range 0\.0-\([0-9.]*\) s of.*/\1/p' |
            awk -v t="${tenth:-x}" 'NR == 1 { d = $1 - t; f = t != "x" && d < 0.15 && d > -0.15 }
                END { exit !f }'
    }
    tmux_keys $S w
    for ((i = 0; i < 50; i++)); do window_at_start && break; sleep 0.1; done
    check "TUI: w shows a window at the start, a tenth of the run (${tenth:-?} s): $(tmux_screen $S | grep -o 'range [^ ]* s of [0-9.]* s' || echo 'no range')" \
        window_at_start
    tmux_screen $S > "$WORK/w.txt"
    check "TUI: the start window holds phase one only" bash -c "grep -q phase_one '$WORK/w.txt' && ! grep -q phase_two '$WORK/w.txt'"
    tmux_keys $S ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']' ']'
    check "TUI: ] moves the window to the end (phase two)" wait_screen $S 'phase_two' 5
    tmux_screen $S > "$WORK/e.txt"
    check "TUI: the end window holds no phase one" bash -c "! grep -q phase_one '$WORK/e.txt'"
    tmux_keys $S q
    check "TUI: q quits" wait_file "$WORK/$S.rc" 5
else
    echo "tmux not installed: TUI part not run"
fi
finish
