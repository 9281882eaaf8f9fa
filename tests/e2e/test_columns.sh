#!/usr/bin/env bash
# End-to-end: columns that fit. The Kernels view of tp_hsa_harness (kernel names "void
# reduce_sum<256, float>(float const*, float*, int)", "vector_add(float*, float const*, float
# const*, int)") at 100 columns: MIN, MAX and BLOCK make room for the name, which keeps its
# start and its end with "…" in the middle (not "vector_add(float*, float const*, flo…"); at 160
# columns every column and the whole names; f (templates unfolded) keeps working.
source "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"
H="$TP/tp_hsa_harness"
[ -x "$H" ] || skip "tp_hsa_harness not built"

# kernel_row SESSION NAME_START: the Kernels view's row whose name starts so
kernel_row() { tmux_screen "$1" | grep -F -- "$2" | head -n 1; }

S=narrow
tmux_start $S 100 30 "$ROCSYS_TOP" -- "$H" normal 20
check "harness ran" wait_screen $S 'exited with 0|completed' 20
tmux_keys $S 7
check "Kernels view" wait_screen $S '^Hot kernels' 5
check "100 columns: the headings without MIN, MAX and BLOCK, with KERNEL" \
    wait_screen $S '^ +GPU% +CALLS +TOTAL\(us\) +AVG\(us\) +HIP +GRID +KERNEL' 3
check "100 columns: no MIN(us) heading" bash -c "! tmux -L $TMUX_SOCKET capture-pane -p -t $S | grep -q 'MIN(us)'"
row=$(kernel_row $S 'vector_add(')
name=${row#*vector_add(}
check "vector_add keeps its start and end, cut in the middle: '$row'" \
    bash -c "[[ '$row' =~ vector_add\(float\*,.*….*float\ const\*,\ int\)$ ]]"
check "the name has 40 columns at least (got ${#name} after 'vector_add(')" test "${#name}" -ge 29
row=$(kernel_row $S 'void reduce_sum<')
check "the folded template keeps its start and end: '$row'" \
    bash -c "[[ '$row' =~ void\ reduce_sum\<…\>.*….*float\*,\ int\)$ ]]"
check "the numbers are still there (GPU% 73.7, 40 calls)" \
    bash -c "[[ '$row' =~ ^\ +73\.7\ +40\ +280\.000\ +7\.000 ]]"
tmux -L "$TMUX_SOCKET" resize-window -t $S -x 160 -y 30
check "160 columns: every column" wait_screen $S 'MIN\(us\) +MAX\(us\) +HIP +GRID +BLOCK +KERNEL' 5
check "160 columns: the whole name" wait_screen $S 'vector_add\(float\*, float const\*, float const\*, int\)$' 3
tmux -L "$TMUX_SOCKET" resize-window -t $S -x 100 -y 30
tmux_keys $S f
check "f: templates unfolded, the name still keeps its end" \
    wait_screen $S 'void reduce_sum<256, [^…]*….*float\*, int\)$' 5
tmux_kill $S

finish
