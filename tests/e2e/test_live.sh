#!/usr/bin/env bash
# End-to-end: rocsys-top --replay DIR --live follows recordings while they are written: a single
# recording (frames while it grows, then ended, and the same counts as --replay afterwards), and
# an Open MPI job's DIR/rank-N (4 ranks: one starts late, one's rocsys-top is killed), with the
# header saying which ranks are being written, ended or stalled, and the Ranks table.
source "$(dirname "$0")/lib.sh"

samples_of() { sed -n 's/^mode .* samples \([0-9]*\) .*/\1/p'; }

# -- 1. one recording, followed from its first second to its end: the viewer starts first, on
# the empty directory ("waiting for a recording"), and the recording once the viewer has
# printed its first frame. (It started the other way round, 1 s after the trace appeared: under
# ASan at load 13-16 the viewer's start took most of the demo's 5 s, and 1 frame of 2 saw the
# recording being written.)
D=$WORK/one
mkdir -m 700 "$D"
timeout 120 "$ROCSYS_TOP" --replay "$D" --live -b -d 10 --rows 3 > "$WORK/live1.txt" &
vpid=$!
for _ in $(seq 600); do grep -q '^rocsys-top frame ' "$WORK/live1.txt" && break; sleep 0.1; done
"$ROCSYS_TOP" --record "$D" --no-tui -- "$ROCSYS_DEMO" --seconds 5 > "$WORK/one.out" 2>&1 &
rpid=$!
rc=0
wait "$vpid" || rc=$?
wait "$rpid" || true
check "live: exits 0 by itself once the recording ended (got $rc)" test "$rc" -eq 0
growing=$(grep -c '^notice: live: 1 recording: 1 being written' "$WORK/live1.txt" || true)
check "live: frames while the recording was written ($growing)" test "$growing" -ge 2
counts=$(awk '/^rocsys-top frame /{f=1} f && /^mode /{print $0}' "$WORK/live1.txt" | samples_of | tr '\n' ' ')
echo "    live samples per frame: $counts"
check "live: the counts grow frame by frame ($counts)" \
    awk -v c="$counts" 'BEGIN { n = split(c, a, " "); for (i = 2; i <= n; i++) if (a[i] + 0 < a[i - 1] + 0) exit 1; exit !(n >= 3 && a[n] > a[1]) }'
check "live: the last frame says it ended" bash -c "last_frame() { awk '/^rocsys-top frame /{buf=\"\"} {buf=buf \$0 \"\\n\"} END{printf \"%s\", buf}' \"\$1\"; }; last_frame '$WORK/live1.txt' | grep -q '0 being written.*1 ended'"
final=$(last_frame "$WORK/live1.txt" | samples_of)
whole=$("$ROCSYS_TOP" --replay "$D" -b --rows 3 | samples_of)
check "live: the last frame counts what --replay counts (${final:-?} = ${whole:-?})" \
    test -n "$final" -a "$final" = "$whole"
check "live: the demo's split is there (demo_solve ~50 %)" \
    within "$(last_frame "$WORK/live1.txt" | hot_self demo_solve)" 50 8

# two ranks with the same pids (ranks on two hosts may have them): kept apart
mkdir -p "$WORK/dup"
cp -r "$D" "$WORK/dup/rank-0"
cp -r "$D" "$WORK/dup/rank-1"
"$ROCSYS_TOP" --replay "$WORK/dup" --live -b -n 1 --rows 4 > "$WORK/dup.txt"
both=$(samples_of < "$WORK/dup.txt")
check "live: two ranks with the same pids count twice one (${both:-?} = 2 x $whole)" \
    test "${both:-0}" = "$((2 * whole))"
check "live: each of them ended with its own status" \
    test "$(grep -c '^process .*\[exited with 0\]' "$WORK/dup.txt")" -eq 2
rows=$(awk '/^== Ranks/{f=1; next} /^== /{f=0} f && $1 ~ /^[01]$/ {print $5}' "$WORK/dup.txt" | sort -u)
check "live: both rows have the same samples ($rows)" test "$rows" = "$whole"

# bad input: one line, exit 1
rc=0
"$ROCSYS_TOP" --replay "$WORK/none" --live -b 2> "$WORK/e1.txt" || rc=$?
check "live: a missing directory: exit 1, one line" test "$rc" -eq 1 -a "$(wc -l < "$WORK/e1.txt")" -eq 1
rc=0
"$ROCSYS_TOP" --live -b 2> "$WORK/e2.txt" || rc=$?
check "--live without --replay: exit 2, one line" test "$rc" -eq 2 -a "$(wc -l < "$WORK/e2.txt")" -eq 1

# -- 2. an MPI job followed live: rank 3 starts late (once the viewer has printed a frame, in
# which it cannot be), rank 2's rocsys-top is killed
if ! command -v mpirun > /dev/null; then
    echo "SKIP the MPI part: Open MPI (mpirun) is not installed"
    finish
    exit $?
fi
M=$WORK/mpi
cat > "$WORK/rank.sh" << EOF
#!/usr/bin/env bash
case \$OMPI_COMM_WORLD_RANK in
3) for i in \$(seq 1200); do [ -e "$WORK/viewer.up" ] && break; sleep 0.1; done
   exec "$ROCSYS_TOP" --record "$M" --no-tui -- "$ROCSYS_DEMO" --seconds 3 ;;
2) "$ROCSYS_TOP" --record "$M" --no-tui -- "$ROCSYS_DEMO" --seconds 600 &
   # rocsys-top first (killed with its target first, it would still write session.json), once
   # its trace holds samples (written once a second: 2.5 s, up to 60 s where a slow build,
   # ASan, or a loaded machine takes longer; its demo runs until killed, so that it cannot end
   # by itself first). A trace that is not empty may hold only its header packets: the samples
   # are what the Ranks table needs
   p=\$!; sleep 2.5
   for i in \$(seq 575); do
       "$ROCSYS_PROGRAMS/rocsys-trace-check" "$M/rank-2/trace.pftrace" 2> /dev/null |
           awk 'NR == 1 { exit !(\$6 > 0) }' && break
       sleep 0.1
   done
   kill -9 \$p; wait \$p; pkill -9 -f -- "$ROCSYS_DEMO --seconds 600"; exit 0 ;;
*) exec "$ROCSYS_TOP" --record "$M" --no-tui -- "$ROCSYS_DEMO" --seconds 5 ;;
esac
EOF
chmod +x "$WORK/rank.sh"
timeout 120 mpirun --oversubscribe --allow-run-as-root -np 4 "$WORK/rank.sh" > "$WORK/mpi.out" 2>&1 &
mpid=$!
# the viewer starts once the three ranks that start at once have made their recordings (1.5 s,
# up to 60 s for a slow build on a loaded machine: at load 18 under ASan 6.5 s were not
# enough), and the late one once the viewer has printed its first frame. 30 frames (at least
# 30 s): the late rank's 3 s and the killed one's 5 s without growth (stalled) fit in them
for _ in $(seq 600); do
    [ -d "$M/rank-0" ] && [ -d "$M/rank-1" ] && [ -d "$M/rank-2" ] && break
    sleep 0.1
done
rc=0
timeout 150 "$ROCSYS_TOP" --replay "$M" --live -b -d 10 -n 30 --rows 8 > "$WORK/live4.txt" &
vpid=$!
for _ in $(seq 600); do grep -q '^rocsys-top frame ' "$WORK/live4.txt" && break; sleep 0.1; done
touch "$WORK/viewer.up"
wait "$vpid" || rc=$?
wait "$mpid" || true
check "live MPI: exit 0 (got $rc)" test "$rc" -eq 0
ranks_seen=$(sed -n 's/^notice: live: \([0-9]*\) ranks.*/\1/p' "$WORK/live4.txt" | tr '\n' ' ')
echo "    ranks seen per frame: $ranks_seen"
check "live MPI: the late rank was found (ranks per frame: $ranks_seen)" \
    awk -v c="$ranks_seen" 'BEGIN { n = split(c, a, " "); exit !(a[1] + 0 == 3 && a[n] + 0 == 4) }'
last_frame "$WORK/live4.txt" > "$WORK/last4.txt"
check "live MPI: 3 ranks ended, the killed one stalled" \
    grep -q '^notice: live: 4 ranks: 0 being written.* 3 ended, 1 stalled' "$WORK/last4.txt"
check "live MPI: some frame had ranks being written" grep -q 'ranks: [1-4] being written' "$WORK/live4.txt"
for r in 0 1 2 3; do
    row=$(awk -v r="$r" '/^== Ranks/{f=1; next} /^== /{f=0} f && $1 == r' "$WORK/last4.txt")
    n=$(echo "$row" | awk '{print $5}')
    check "live MPI: rank $r in the Ranks table (${n:-no} samples)" test -n "$n" -a "${n:-0}" -gt 0
    check "live MPI: rank $r's host from its trace" test "$(echo "$row" | awk '{print $2}')" = "$(hostname)"
    if [ "$r" != 2 ] && [ -s "$M/rank-$r/stacks.folded" ]; then
        want=$(awk '{s += $NF} END {print s + 0}' "$M/rank-$r/stacks.folded")
        check "live MPI: rank $r counts what its recording holds ($n = $want)" test "${n:-0}" = "$want"
    fi
done
check "live MPI: the killed rank has no session.json" test ! -e "$M/rank-2/session.json"

# the same job in the TUI (tmux): the Ranks view, Enter shows one rank, a shows all again
tmux_start ranks 140 40 "$ROCSYS_TOP" --replay "$M" --live
if wait_screen ranks 'live: 4 ranks' 15; then
    tmux_keys ranks 9
    check "TUI: the Ranks view lists the 4 ranks" wait_screen ranks '4 ranks on 1 host' 10
    tmux_keys ranks Down Enter
    check "TUI: Enter on rank 1 shows that rank's call tree" wait_screen ranks 'Call tree: rank 1 ' 10
    tmux_keys ranks 3
    check "TUI: ... and only its 4 threads in the Threads view" wait_screen ranks 'Threads: 4 \(' 10
    tmux_keys ranks 9 a 1
    check "TUI: a in the Ranks view shows every rank again" wait_screen ranks 'Call tree: all threads' 10
else
    check "TUI: the live view came up" false
fi
tmux_keys ranks q
tmux_kill ranks

# --merge of that job: the killed rank's torn trace does not spoil the merged one, and the
# merged profile has the Ranks table
rc=0
"$ROCSYS_TOP" --merge "$M" > "$WORK/merge.out" 2>&1 || rc=$?
check "--merge with a killed rank: exit 0 (got $rc)" test "$rc" -eq 0
"$ROCSYS_PROGRAMS/rocsys-trace-check" "$M/merged.pftrace" > "$WORK/mcheck.txt" 2>&1 || true
check "--merge: the merged trace passes every check" grep -q 'violations 0' "$WORK/mcheck.txt"
check "--merge: 4 sequences in it" grep -q 'sequences 4 ' "$WORK/mcheck.txt"
rows=$(awk '/^== Ranks/{f=1; next} /^== /{f=0} f && $1 ~ /^[0-9]+$/ && $2 != "ranks"' "$M/merged-profile.txt" | wc -l)
check "--merge: the Ranks table has the 4 ranks ($rows rows)" test "$rows" -eq 4
finish
