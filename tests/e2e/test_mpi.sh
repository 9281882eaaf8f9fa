#!/usr/bin/env bash
# End-to-end: a 4-rank Open MPI run under rocsys-top --record writes DIR/rank-N per rank (no
# collisions, no TUI), and --merge DIR joins them: merged.pftrace passes the project's trace
# reader with every rank as its own process (distinct sequences), merged.folded and
# merged-profile.txt hold each rank and the aggregate.
source "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || skip "Open MPI (mpirun) is not installed"
CHECKER="$ROCSYS_PROGRAMS/rocsys-trace-check"

D=$WORK/mpi
rc=0
timeout 120 mpirun --oversubscribe --allow-run-as-root -np 4 \
    "$ROCSYS_TOP" --record "$D" --cpu-timer perf -- "$TP/tp_exit" 0 300 > "$WORK/mpi.out" 2>&1 || rc=$?
check "mpirun exit 0 (got $rc)" test "$rc" -eq 0
for r in 0 1 2 3; do
    check "rank-$r recorded" test -s "$D/rank-$r/session.json" -a -s "$D/rank-$r/trace.pftrace"
done
check "no TUI under mpirun: summaries printed" test "$(grep -c 'top functions' "$WORK/mpi.out")" -eq 4
rc=0
"$ROCSYS_TOP" --merge "$D" > "$WORK/merge.out" || rc=$?
check "--merge exit 0 (got $rc)" test "$rc" -eq 0
"$CHECKER" "$D/merged.pftrace" > "$WORK/check.txt"
check "merged trace: every meaning check passes" grep -q 'violations 0' "$WORK/check.txt"
check "merged trace: 4 sequences" grep -q 'sequences 4 ' "$WORK/check.txt"
check "merged trace: 4 processes" test "$(grep -c '^thread ' "$WORK/check.txt")" -eq 4
check "merged trace: exit_burn dominates" \
    bash -c "awk '\$1==\"self\" && \$2==\"exit_burn\" {exit !(\$3 > 90)}' '$WORK/check.txt'"
for r in 0 1 2 3; do
    check "merged.folded has rank $r" grep -q "^rank-$r;" "$D/merged.folded"
    check "merged profile has rank $r" grep -q "Hot functions: rank $r " "$D/merged-profile.txt"
done
check "merged profile has the aggregate" grep -q "Hot functions: all ranks" "$D/merged-profile.txt"
rc=0
"$ROCSYS_TOP" --merge "$WORK/nothing-here" 2> "$WORK/err.txt" || rc=$?
check "--merge of a missing directory: exit 1, one line" test "$rc" -eq 1 -a "$(wc -l < "$WORK/err.txt")" -eq 1
finish
