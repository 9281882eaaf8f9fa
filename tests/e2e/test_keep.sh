#!/usr/bin/env bash
# End-to-end: rolling recordings (--record DIR --keep DURATION|SIZE):
#  - --keep 3s on a 10 s run of the demo: trace.pftrace passes the project's reader's checks and
#    holds the last 3 s (its samples span 3 s to 3.75 s, plus what a loaded machine delays, and
#    end where the run's samples end; session.json's first kept time is the first sample's);
#    chunks were dropped; profile.txt and profile.pb.gz still count every sample of the run
#    (session.json's total) and say the trace keeps the last 3s; --replay opens it;
#  - --keep 64K at 10 kHz: the trace stays within 64K (and a last buffer);
#  - SIGINT to rocsys-top: the kept trace is complete; SIGKILL of rocsys-top: the chunk files
#    left each pass the checks alone, and --replay reads the chunk directory;
#  - --merge of two rolled recordings as ranks, --replay --live of a finished one, and of one
#    while it runs (it follows the chunk files: its last frame counts the whole run);
#  - bad --keep values: one line, exit 2 (the status of every bad option).
source "$(dirname "$0")/lib.sh"
CHECKER="$ROCSYS_PROGRAMS/rocsys-trace-check"
[ -x "$CHECKER" ] || skip "rocsys-trace-check not built"

# json_num FILE KEY: the number after "KEY": in FILE
json_num() { grep -o "\"$2\": [0-9.]*" "$1" | head -1 | awk '{print $2}'; }
# pprof_samples FILE: the sum of the "samples" values of a gzipped pprof profile (protobuf
# decoded by hand: sample_type 1, sample 2 {value 2}, string_table 6)
pprof_samples() {
    python3 - "$1" <<'PY'
import gzip, sys
d = gzip.open(sys.argv[1]).read()
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i); f, w = k >> 3, k & 7
        if w == 0: v, i = varint(b, i)
        elif w == 2: n, i = varint(b, i); v = b[i:i + n]; i += n
        elif w == 1: v = b[i:i + 8]; i += 8
        elif w == 5: v = b[i:i + 4]; i += 4
        yield f, w, v
strs, types, samples = [], [], []
for f, w, v in fields(d):
    if f == 6: strs.append(v.decode())
    elif f == 1: types.append(dict((g, x) for g, _, x in fields(v)).get(1, 0))
    elif f == 2:
        vals = []
        for g, ww, x in fields(v):
            if g != 2: continue
            if ww == 0: vals.append(x)
            else:
                j = 0
                while j < len(x): y, j = varint(x, j); vals.append(y)
        samples.append(vals)
k = [strs[t] for t in types].index("samples")
print(sum(s[k] for s in samples if len(s) > k))
PY
}

# ---- --keep 3s over a 10 s run ----
D=$WORK/dur
rc=0
"$ROCSYS_TOP" --record "$D" --keep 3s --no-tui --gpu-interval 0 -- "$ROCSYS_DEMO" --seconds 10 \
    > "$WORK/dur.out" 2>&1 || rc=$?
check "3s: recorded (exit $rc): $(tail -2 "$WORK/dur.out")" test "$rc" -eq 0 -a -s "$D/trace.pftrace"
check "3s: no chunk directory left after the end" test ! -e "$D/trace.chunks"
check "3s: the summary says what the trace keeps" grep -q '^rocsys-top: trace.pftrace keeps the last 3s: from ' "$WORK/dur.out"
"$CHECKER" "$D/trace.pftrace" > "$WORK/dur.check" 2> "$WORK/dur.err" || true
check "3s: the trace passes the reader's checks: $(cat "$WORK/dur.err")" \
    grep -q 'violations 0$' "$WORK/dur.check"
read -r first last < <(awk '$1 == "sample_span" {print $2, $3}' "$WORK/dur.check")
span=$(awk -v a="${first:-0}" -v b="${last:-0}" 'BEGIN{printf "%.3f", (b - a) / 1e9}')
# at least 3 s, at most a chunk (0.75 s) and the reorder window (0.25 s) more, and a second
# of slack for a loaded machine (samples of a starved target come late)
check "3s: the trace's samples span 3 to 5 s (got $span s)" \
    awk -v s="$span" 'BEGIN{exit !(s >= 2.95 && s <= 5)}'
first_kept=$(json_num "$D/session.json" first_kept_mono_ns)
check "3s: session.json's first kept time ($first_kept) is the first sample's ($first) within 1 s" \
    awk -v k="${first_kept:-0}" -v f="${first:-0}" 'BEGIN{exit !(k > 0 && f >= k && f - k <= 1e9)}'
dropped=$(json_num "$D/session.json" chunks_dropped)
check "3s: chunks were dropped from the front (${dropped:-none})" test "${dropped:-0}" -ge 4
check "3s: bytes dropped said" awk -v b="$(json_num "$D/session.json" bytes_dropped)" 'BEGIN{exit !(b > 0)}'
total=$(json_num "$D/session.json" samples)
in_trace=$(awk '$1 == "packets" {print $6}' "$WORK/dur.check")
check "3s: the trace holds part of the run (${in_trace:-?} of ${total:-?} samples)" \
    awk -v t="${in_trace:-0}" -v a="${total:-0}" 'BEGIN{exit !(t > 0 && t < a * 0.6)}'
echo "3s: the trace keeps $span s: ${in_trace:-?} of ${total:-?} samples, ${dropped:-?} chunks dropped"
txt=$(sed -n 's/.*; \([0-9]*\) samples, .*/\1/p' "$D/profile.txt" | head -1)
check "3s: profile.txt counts the whole run (${txt:-?} samples, session ${total:-?})" test "${txt:-x}" = "$total"
check "3s: profile.txt says the trace keeps the last 3s" \
    grep -q '^# the trace keeps the last 3s (trace.pftrace, --keep); profiles cover the whole run' "$D/profile.txt"
pp=$(pprof_samples "$D/profile.pb.gz" 2> "$WORK/pp.err" || true)
check "3s: profile.pb.gz counts the whole run (${pp:-?} samples, session ${total:-?}) $(head -c 200 "$WORK/pp.err")" test "${pp:-x}" = "$total"
check "3s: profile.pb.gz says so" bash -c "gzip -dc '$D/profile.pb.gz' | grep -qa 'the trace keeps the last 3s'"
rc=0
"$ROCSYS_TOP" --replay "$D" -b -n 1 > "$WORK/replay.txt" 2>&1 || rc=$?
check "3s: --replay opens it (exit $rc): $(head -c 300 "$WORK/replay.txt")" test "$rc" -eq 0
check "3s: the replay shows the demo's functions" grep -q demo_solve "$WORK/replay.txt"
rc=0
"$ROCSYS_TOP" --replay "$D" --live -b -n 1 > "$WORK/live.txt" 2>&1 || rc=$?
check "3s: --replay --live of the finished recording (exit $rc)" \
    bash -c "test $rc -eq 0 && grep -q demo_solve '$WORK/live.txt'"

# ---- --keep 64K at 10 kHz ----
S=$WORK/size
rc=0
"$ROCSYS_TOP" --record "$S" --keep 64K -f 10000 --no-tui --gpu-interval 0 -- "$ROCSYS_DEMO" --seconds 8 \
    > "$WORK/size.out" 2>&1 || rc=$?
check "64K: recorded (exit $rc)" test "$rc" -eq 0 -a -s "$S/trace.pftrace"
size=$(stat -c %s "$S/trace.pftrace")
dropped=$(json_num "$S/session.json" chunks_dropped)
check "64K: the trace stays within 64K and a last buffer ($size bytes)" test "$size" -le $((96 * 1024))
check "64K: it rolled (${dropped:-no} chunks dropped; trace $size bytes)" test "${dropped:-0}" -ge 1
check "64K: session.json says trace_bytes $size" test "$(json_num "$S/session.json" trace_bytes)" = "$size"
echo "64K: the trace is $size bytes, ${dropped:-?} chunks dropped"
"$CHECKER" "$S/trace.pftrace" > "$WORK/size.check" 2> "$WORK/size.err" || true
check "64K: the trace passes the checks: $(cat "$WORK/size.err")" grep -q 'violations 0$' "$WORK/size.check"

# ---- --merge of two rolled recordings as ranks ----
mkdir -p "$WORK/m"
cp -r "$D" "$WORK/m/rank-0"
cp -r "$S" "$WORK/m/rank-1"
rc=0
"$ROCSYS_TOP" --merge "$WORK/m" > "$WORK/merge.out" 2>&1 || rc=$?
check "merge of two rolled recordings (exit $rc): $(tail -1 "$WORK/merge.out")" test "$rc" -eq 0
"$CHECKER" "$WORK/m/merged.pftrace" > "$WORK/m.check" 2> "$WORK/m.err" || true
check "merged trace passes the checks: $(cat "$WORK/m.err")" grep -q 'violations 0$' "$WORK/m.check"
n_m=$(awk '$1 == "packets" {print $6}' "$WORK/m.check")
n_d=$(awk '$1 == "packets" {print $6}' "$WORK/dur.check")
n_s=$(awk '$1 == "packets" {print $6}' "$WORK/size.check")
check "merged trace has both ranks' kept samples ($n_m = $n_d + $n_s)" test "$n_m" -eq $((n_d + n_s))

# ---- --replay --live while a rolling recording runs: it follows the chunks to the end ----
samples_of() { sed -n 's/^mode .* samples \([0-9]*\) .*/\1/p'; }
L=$WORK/live
"$ROCSYS_TOP" --record "$L" --keep 3s --no-tui --gpu-interval 0 -- "$ROCSYS_DEMO" --seconds 8 \
    > "$WORK/lrec.out" 2>&1 &
rpid=$!
wait_file "$L/trace.chunks/000000.pftrace" 20 || true
rc=0
timeout 90 "$ROCSYS_TOP" --replay "$L" --live -b -d 10 --rows 3 > "$WORK/live.txt" 2>&1 || rc=$?
wait "$rpid" || true
check "live: follows the rolling recording and exits 0 once it ended (got $rc)" test "$rc" -eq 0
live_n=$(last_frame "$WORK/live.txt" | samples_of)
kept_n=$("$ROCSYS_TOP" --replay "$L" -b --rows 3 | samples_of)
total=$(json_num "$L/session.json" samples)
echo "live: the last frame counts ${live_n:-?} samples; the kept trace ${kept_n:-?}; the run ${total:-?}"
check "live: the last frame counts the whole run (${live_n:-?} of ${total:-?}), more than the kept trace (${kept_n:-?})" \
    awk -v l="${live_n:-0}" -v t="${total:-0}" -v k="${kept_n:-0}" 'BEGIN{exit !(l > k && l >= 0.97 * t && l <= t)}'
check "live: the last frame says it ended" bash -c "grep -q '0 being written.*1 ended' <(awk '/^rocsys-top frame /{buf=\"\"} {buf=buf \$0 \"\\n\"} END{printf \"%s\", buf}' '$WORK/live.txt')"

# ---- SIGINT and SIGKILL to rocsys-top ----
for sig in INT KILL; do
    K=$WORK/sig-$sig
    env --default-signal=INT,QUIT "$ROCSYS_TOP" --record "$K" --keep 2s --no-tui --gpu-interval 0 \
        -- "$ROCSYS_DEMO" --seconds 60 > "$WORK/$sig.out" 2>&1 &
    pid=$!
    # until a chunk was dropped: the recording rolled
    for i in $(seq 300); do
        [ -e "$K/trace.chunks/000006.pftrace" ] && break
        sleep 0.1
    done
    target=$(pgrep -P $pid | head -1 || true)
    kill -$sig $pid
    wait $pid 2>/dev/null || true
    [ -z "$target" ] || kill -KILL "$target" 2>/dev/null || true
    if [ $sig = INT ]; then
        check "SIGINT: trace.pftrace written, chunks gone" test -s "$K/trace.pftrace" -a ! -e "$K/trace.chunks"
        check "SIGINT: session.json says what was kept" grep -q '"trace_keep"' "$K/session.json"
        "$CHECKER" "$K/trace.pftrace" > "$WORK/int.check" 2> "$WORK/int.err" || true
        check "SIGINT: the kept trace passes the checks: $(cat "$WORK/int.err")" grep -q 'violations 0$' "$WORK/int.check"
    else
        n=$(ls "$K/trace.chunks" 2>/dev/null | wc -l)
        check "SIGKILL: the chunk files are left ($n), no trace.pftrace" test "$n" -ge 2 -a ! -e "$K/trace.pftrace"
        check "SIGKILL: the oldest chunks were dropped" test ! -e "$K/trace.chunks/000000.pftrace"
        for f in "$K"/trace.chunks/*.pftrace; do
            "$CHECKER" "$f" > "$WORK/kill.check" 2> "$WORK/kill.err" || true
            check "SIGKILL: chunk ${f##*/} alone passes the checks: $(cat "$WORK/kill.err")" \
                grep -q 'violations 0$' "$WORK/kill.check"
        done
        "$CHECKER" "$K/trace.chunks" > "$WORK/kill.check" 2> "$WORK/kill.err" || true
        check "SIGKILL: the chunks together pass the checks: $(cat "$WORK/kill.err")" grep -q 'violations 0$' "$WORK/kill.check"
        rc=0
        "$ROCSYS_TOP" --replay "$K" -b -n 1 > "$WORK/kreplay.txt" 2>&1 || rc=$?
        check "SIGKILL: --replay reads the chunk directory (exit $rc): $(head -c 200 "$WORK/kreplay.txt")" \
            bash -c "test $rc -eq 0 && grep -q demo_solve '$WORK/kreplay.txt'"
    fi
done

# ---- bad values ----
for v in 10x 1.5s 10 32K 1s '' 10MB -3s; do
    rc=0
    "$ROCSYS_TOP" --record "$WORK/bad" --keep "$v" -- true > "$WORK/bad.out" 2> "$WORK/bad.err" || rc=$?
    check "--keep '$v' refused with one line (exit $rc): $(cat "$WORK/bad.err")" \
        bash -c "test $rc -eq 2 && test \$(wc -l < '$WORK/bad.err') -eq 1 && grep -q -- '--keep' '$WORK/bad.err'"
done
check "no recording started for a bad value" test ! -e "$WORK/bad/session.json"
rc=0
"$ROCSYS_TOP" --keep 30s -- true > /dev/null 2> "$WORK/bad.err" || rc=$?
check "--keep without --record refused (exit $rc): $(cat "$WORK/bad.err")" \
    bash -c "test $rc -eq 2 && grep -q 'needs --record' '$WORK/bad.err'"
finish
