#!/usr/bin/env bash
# End-to-end: settings like htop's, driven in tmux. F2 changes the Hot view's sort order and
# the delay, the view is left on Hot functions, q writes $XDG_CONFIG_HOME/rocsys-top/rocsys-toprc;
# the next start shows Hot functions sorted so and the help says the delay; --no-config starts
# from the defaults and leaves the file alone; a foreign file gets one line and the defaults and
# is left as it is; the Kernels view hides a column the file hides; -b never reads the file.
source "$(dirname "$0")/lib.sh"
command -v tmux > /dev/null || skip "tmux is not installed"
unset ROCSYS_NO_CONFIG # lib.sh's, for every other test
CFG="$WORK/cfg"
RC="$CFG/rocsys-top/rocsys-toprc"
top() { env XDG_CONFIG_HOME="$CFG" "$ROCSYS_TOP" "$@"; }
# run_tui SESSION ARGS...: rocsys-top ARGS in tmux with the test's config home
run_tui() { local s=$1; shift; tmux_start "$s" 140 40 env XDG_CONFIG_HOME="$CFG" "$ROCSYS_TOP" "$@"; }
# ended SESSION: rocsys-top in SESSION has exited (its status file is there)
ended() { wait_file "$WORK/$1.rc" 20; }

# ---- first run: no file; F2 changes, q writes ----
run_tui one -- "$ROCSYS_DEMO" --seconds 60
check "first run: the call tree" wait_screen one '^Call tree: ' 20
tmux_keys one F2
check "F2: the setup screen" wait_screen one '^Setup \(F2\)' 5
check "F2: the Hot sort row" wait_screen one 'Hot functions: sort +self' 5
tmux_keys one Down # the delay
tmux_keys one Right Right Right Right Right # 10 -> 15 tenths
for _ in 1 2 3 4; do tmux_keys one Down; done # Call tree sort, then Hot functions sort
tmux_keys one Right # self -> total
check "F2: the delay is now 15" wait_screen one 'Refresh delay \(tenths of a second\) +15' 5
check "F2: Hot sorted by total" wait_screen one 'Hot functions: sort +total' 5
tmux_keys one Escape
tmux_keys one 2
check "the Hot view, sorted by inclusive (set live)" wait_screen one '^Hot functions: .*sort: inclusive' 5
tmux_keys one q
check "first run ended" ended one
check "the settings file was written" test -s "$RC"
check "it has the view" grep -qx 'view=Hot functions' "$RC"
check "it has the Hot sort" grep -qx 'sort_hot=total' "$RC"
check "it has the delay" grep -qx 'delay=15' "$RC"
tmux_kill one

# ---- second run: the settings come back ----
cp "$RC" "$WORK/saved"
run_tui two -- "$ROCSYS_DEMO" --seconds 60
check "restart: the Hot view, sorted by inclusive" wait_screen two '^Hot functions: .*sort: inclusive' 20
tmux_keys two '?'
check "restart: the delay is 1.5 s" wait_screen two 'refresh every 1\.5s' 5
tmux_keys two Escape
tmux_keys two q
check "second run ended" ended two
check "unchanged settings are written back the same" cmp -s "$RC" "$WORK/saved"
tmux_kill two

# ---- --no-config: the defaults; the file left alone ----
touch -d '2020-01-01' "$RC"
run_tui three --no-config -- "$ROCSYS_DEMO" --seconds 60
check "--no-config: the call tree" wait_screen three '^Call tree: ' 20
tmux_keys three 3
tmux_keys three q
check "--no-config run ended" ended three
check "--no-config: the file is not written" test "$(stat -c %Y "$RC")" = "$(date -d 2020-01-01 +%s)"
tmux_kill three

# ---- a foreign file: one line, the defaults, left as it is ----
printf '[Settings]\nfont=Monospace\x01\n' > "$RC"
cp "$RC" "$WORK/foreign"
run_tui four -- "$ROCSYS_DEMO" --seconds 2
check "foreign file: the defaults (call tree)" wait_screen four '^Call tree: ' 20
tmux_keys four q
check "foreign file: run ended" ended four
check "foreign file: one line says so" wait_screen four "^rocsys-top: ignoring the settings file .*rocsys-toprc: line 1: '\[Settings\]' is not key=value" 5
check "foreign file: left as it is" cmp -s "$RC" "$WORK/foreign"
tmux_kill four

# ---- -b never reads it (a bad file says nothing) ----
out=$(top -b -n 1 -d 2 -- "$ROCSYS_DEMO" --seconds 1 2>&1 > /dev/null || true)
check "-b: no settings line (got: $out)" test -z "$(grep -i settings <<< "$out" || true)"

# ---- the Kernels view hides a column the file hides ----
H="$TP/tp_hsa_harness"
if [ -x "$H" ]; then
    printf 'view=Kernels\nkernel_columns=avg,min,max,grid,block\n' > "$RC"
    run_tui five -- "$H" normal 20
    check "Kernels view at start" wait_screen five '^Hot kernels' 20
    check "Kernels: CALLS shown, HIP hidden" wait_screen five '^ +GPU% +CALLS +TOTAL\(us\) +AVG\(us\) +MIN\(us\) +MAX\(us\) +GRID +BLOCK +KERNEL' 10
    tmux_keys five F2
    for _ in $(seq 13); do tmux_keys five Down; done # Kernels: column hip
    tmux_keys five Space Escape
    check "F2: HIP shown again" wait_screen five '^ +GPU% +CALLS .*MAX\(us\) +HIP +GRID' 10
    tmux_keys five q
    check "Kernels run ended" ended five
    check "the file shows every column again" grep -qx 'kernel_columns=avg,min,max,hip,grid,block' "$RC"
    tmux_kill five
fi
finish
