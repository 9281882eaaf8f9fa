#!/usr/bin/env bash
# End-to-end: profile.pb.gz read by the real reader, `go tool pprof` (Debian golang-go):
#  - the demo (rocsys-demo): -top's top functions and their shares are profile.txt's hot
#    functions (within 3 points), and the demo's documented 50/30/20 split; -tags lists the
#    threads and the process, and -tagfocus on one thread keeps that thread's samples
#    (profile.txt's thread table);
#  - wall mode (--sample wall): wall/nanoseconds, the same leading function as profile.txt;
#  - a Python program (tests/programs/python/split.py): f_a/f_b/f_c's shares in -top (a
#    function's lines summed) match the split the program measured within 3 points, and -lines
#    shows split.py:LINE;
#  - GPU time (tp_hsa_harness, when built): -sample_index=gpu gives each kernel the share of
#    GPU time gpu.folded gives it;
#  - --merge of two recordings as ranks: merged.pb.gz holds both, each with its rank label,
#    the same shares, and is the same bytes when merged again; a rank whose profile.pb.gz is
#    empty (killed) is left out with one line.
source "$(dirname "$0")/lib.sh"
command -v go > /dev/null || skip "go is not installed (Debian: golang-go; scripts/deps installs it)"
go tool pprof -h > /dev/null 2>&1 || skip "go tool pprof does not run"
export HOME=$WORK # pprof keeps nothing, but may look for ~/pprof

# top FILE OPTS...: "FLAT% NAME" lines of go tool pprof -top (every node)
top() {
    local f=$1; shift
    go tool pprof -top -nodefraction=0 -nodecount=1000 "$@" "$f" 2> "$WORK/pprof.err" |
        awk '/^ *flat +flat%/ {t=1; next} t && NF >= 6 {n=$6; for (i=7;i<=NF;i++) n=n " " $i;
             sub(/%$/, "", $2); print $2 "\t" n}'
}
# share TOPLINES NAME: the flat% of NAME in top's output ("" if absent)
share() { awk -F'\t' -v n="$2" '$2 == n {print $1; exit}' <<< "$1"; }
# hot_rows PROFILE: "SELF% NAME" of profile.txt's hot functions of all threads, with self samples
hot_rows() {
    awk -F'|' '/^== Hot functions: all threads/ {h=1; getline; next} /^== |^$/ {h=0}
        h && NF > 5 {n=$2; gsub(/^ +| +$/, "", n); s=$4; gsub(/ /, "", s); if ($3+0 > 0) print s "\t" n}' "$1"
}

# ---- the demo ----
D=$WORK/demo
rc=0
"$ROCSYS_TOP" --record "$D" --no-tui --gpu-interval 0 -- "$ROCSYS_DEMO" --seconds 3 > "$WORK/demo.out" 2>&1 || rc=$?
check "demo recorded (exit $rc)" test "$rc" -eq 0 -a -s "$D/profile.pb.gz"
T=$(top "$D/profile.pb.gz" -sample_index=samples)
check "pprof reads profile.pb.gz: $(head -c 300 "$WORK/pprof.err")" test -n "$T"
H=$(hot_rows "$D/profile.txt")
n=0
while IFS=$'\t' read -r want fn; do
    n=$((n + 1))
    [ "$n" -le 3 ] || break
    got=$(share "$T" "$fn")
    check "demo: $fn's share in pprof (${got:-missing}) within 3 of profile.txt's ($want)" within "${got:-x}" "$want" 3
    rank=$(awk -F'\t' -v n="$fn" '$2 == n {print NR; exit}' <<< "$T")
    check "demo: $fn is pprof's top function #$n too (got #${rank:-none})" test "${rank:-0}" = "$n"
done <<< "$H"
for pair in demo_solve:50 demo_butterfly:30 demo_reduce:20; do
    got=$(share "$T" "${pair%:*}")
    check "demo: ${pair%:*} ${got:-missing}% in pprof within 3 of the demo's ${pair#*:}%" within "${got:-x}" "${pair#*:}" 3
done
# the time-valued default type (cpu) gives the same shares
T2=$(top "$D/profile.pb.gz")
check "demo: the default sample type (cpu) has demo_solve's share too" \
    within "$(share "$T2" demo_solve)" "$(share "$T" demo_solve)" 0.1
# labels: threads and the process; one thread's samples
go tool pprof -tags "$D/profile.pb.gz" > "$WORK/tags.txt" 2>&1 || true
for t in solver-0 solver-1; do
    check "demo: -tags lists thread $t" grep -Eq ": $t\$" "$WORK/tags.txt"
done
check "demo: -tags lists the process rocsys-demo" grep -Eq ': rocsys-demo$' "$WORK/tags.txt"
check "demo: -tags has tid and pid" grep -q '^ *tid: ' "$WORK/tags.txt"
want=$(sed -nE 's/^== Thread [0-9]+: solver-0 \(tid [0-9]+, pid [0-9]+\): ([0-9]+) samples ==$/\1/p' "$D/profile.txt")
got=$(go tool pprof -top -sample_index=samples -nodefraction=0 -tagfocus=thread=solver-0 "$D/profile.pb.gz" 2> /dev/null |
    sed -nE 's/^Showing nodes accounting for ([0-9]+),.*/\1/p')
check "demo: -tagfocus=thread=solver-0 keeps ${got:-no} samples, profile.txt's thread has ${want:-none}" \
    test -n "$want" -a "${got:-x}" = "$want"

# wall mode: the time is wall time, and profile.txt's hot functions lead there too
W=$WORK/wall
"$ROCSYS_TOP" --record "$W" --no-tui --sample wall --gpu-interval 0 -- "$ROCSYS_DEMO" --seconds 1 > /dev/null 2>&1 || true
go tool pprof -raw "$W/profile.pb.gz" > "$WORK/wall.raw" 2>&1 || true
check "wall mode: the period type is wall nanoseconds" grep -q '^PeriodType: wall nanoseconds' "$WORK/wall.raw"
check "wall mode: sample types samples/count, wall/nanoseconds, gpu/nanoseconds" \
    grep -Eq '^samples/count +wall/nanoseconds(\[dflt\])? +gpu/nanoseconds' "$WORK/wall.raw"
T=$(top "$W/profile.pb.gz" -sample_index=samples)
IFS=$'\t' read -r want fn <<< "$(hot_rows "$W/profile.txt" | head -n 1)"
check "wall mode: $fn leads in pprof too ($(head -n 1 <<< "$T" | tr '\t' ' ')), ${want}% in profile.txt" \
    within "$(share "$T" "$fn")" "${want:-x}" 3

# ---- Python ----
if py=$(find_python 3.13 3.12 3.11 3.10 3.9 3.8); then
    P=$WORK/py
    rc=0
    "$ROCSYS_TOP" --record "$P" --no-tui --gpu-interval 0 --cpu-timer perf -- \
        "$py" "$ROCSYS_SOURCE/tests/programs/python/split.py" 2.5 > "$WORK/py.out" 2>&1 || rc=$?
    check "python recorded (exit $rc)" test "$rc" -eq 0 -a -s "$P/profile.pb.gz"
    shares=$(grep '^split process shares:' "$P/output.log" || true)
    check "python: the program printed its split" test -n "$shares"
    T=$(top "$P/profile.pb.gz" -sample_index=samples)
    for fn in f_a f_b f_c; do
        want=$(awk -v fn="$fn" '{for (i=1;i<NF;i++) if ($i==fn) print $(i+1)}' <<< "$shares")
        got=$(share "$T" "$fn")
        check "python ($py): $fn ${got:-missing}% in pprof within 3 of the program's ${want:-?}%" \
            within "${got:-x}" "${want:-y}" 3
    done
    L=$(top "$P/profile.pb.gz" -sample_index=samples -lines)
    check "python: -lines shows f_a at split.py:LINE" grep -Eq $'\tf_a .*split\\.py:[0-9]+' <<< "$L"
else
    echo "SKIP python: no CPython 3.8-3.13 found"
fi

# ---- GPU time by launch path ----
G=$WORK/gpu
if [ -x "$TP/tp_hsa_harness" ]; then
    "$ROCSYS_TOP" -b --record "$G" -- "$TP/tp_hsa_harness" normal 20 > /dev/null 2>&1 || true
    T=$(top "$G/profile.pb.gz" -sample_index=gpu)
    total=$(awk '{s += $NF} END {print s + 0}' "$G/gpu.folded")
    check "gpu: gpu.folded has GPU time" test "$total" -gt 0
    while read -r kernel; do
        want=$(awk -v k="$kernel" -v t="$total" '{n = $NF; $NF = ""; sub(/ $/, "");
            m = split($0, f, ";"); if (f[m] == k) s += n} END {printf "%.2f", 100 * s / t}' "$G/gpu.folded")
        got=$(share "$T" "$kernel")
        check "gpu: $kernel ${got:-missing}% of GPU time in pprof, gpu.folded ${want}%" \
            within "${got:-x}" "$want" 0.1
    done < <(awk '{$NF = ""; sub(/ $/, ""); m = split($0, f, ";"); print f[m]}' "$G/gpu.folded" | sort -u)
else
    echo "SKIP gpu: tp_hsa_harness not built"
fi

# ---- --merge: two recordings as ranks ----
M=$WORK/merge
mkdir -p "$M" && cp -r "$D" "$M/rank-0" && cp -r "$D" "$M/rank-1"
rc=0
"$ROCSYS_TOP" --merge "$M" > "$WORK/merge.out" 2>&1 || rc=$?
check "--merge exit 0 (got $rc)" test "$rc" -eq 0 -a -s "$M/merged.pb.gz"
TM=$(top "$M/merged.pb.gz" -sample_index=samples)
T=$(top "$D/profile.pb.gz" -sample_index=samples)
for fn in demo_solve demo_butterfly demo_reduce; do
    check "merged: $fn's share $(share "$TM" "$fn")% is the rank's $(share "$T" "$fn")%" \
        within "$(share "$TM" "$fn")" "$(share "$T" "$fn")" 0.1
done
go tool pprof -tags "$M/merged.pb.gz" > "$WORK/mtags.txt" 2>&1 || true
check "merged: -tags has a rank label" grep -q '^ *rank: ' "$WORK/mtags.txt"
one=$(go tool pprof -top -sample_index=samples "$D/profile.pb.gz" 2> /dev/null | sed -nE 's/.*Total samples = ([0-9]+).*/\1/p')
for r in 0 1; do
    got=$(go tool pprof -top -sample_index=samples -nodefraction=0 -tagfocus=rank="^$r\$" "$M/merged.pb.gz" 2> /dev/null |
        sed -nE 's/^Showing nodes accounting for ([0-9]+),.*/\1/p')
    check "merged: -tagfocus=rank=$r keeps ${got:-no} samples, one recording has ${one:-?}" \
        test -n "$one" -a "${got:-x}" = "$one"
done
cp "$M/merged.pb.gz" "$WORK/merged1.pb.gz"
# a rank killed before its end left profile.pb.gz empty: left out, with one line naming it
cp -r "$D" "$M/rank-2" && : > "$M/rank-2/profile.pb.gz"
rc=0
"$ROCSYS_TOP" --merge "$M" > /dev/null 2> "$WORK/merge2.err" || rc=$?
check "merge with an empty rank-2/profile.pb.gz: exit 0 (got $rc), one line naming it: $(head -c 200 "$WORK/merge2.err")" \
    test "$rc" -eq 0 -a "$(grep -c 'rank-2/profile.pb.gz: empty' "$WORK/merge2.err")" = 1
check "merged.pb.gz without the empty rank: the same as before" cmp -s "$M/merged.pb.gz" "$WORK/merged1.pb.gz"
rm -rf "$M/rank-2"
"$ROCSYS_TOP" --merge "$M" > /dev/null 2>&1 || true
check "merged.pb.gz: the same bytes when merged again" cmp -s "$M/merged.pb.gz" "$WORK/merged1.pb.gz"
finish
