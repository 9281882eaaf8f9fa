#!/usr/bin/env bash
# End-to-end: GPU monitoring with the real librocm_smi64 reading an amdgpu/KFD sysfs tree that
# gpu_sysfs.sh fabricates on a tmpfs over /sys/class, in a private mount namespace (the whole
# script re-runs itself under unshare -m). Checked: 1 and 4 GPUs with their values (-b frames);
# a rewritten value on screen (tmux, --attach-gpu and a target's GPU view) and in the recording
# (gpu.csv, profile.txt counters, session.json); a KFD process in the process list with its
# VRAM, the target's own marked; a removed metric file shown as N/A; no driver, no GPU and no
# library each said in one line while everything else works.
if [ "${ROCSYS_GPU_NS:-}" != 1 ]; then
    : "${ROCSYS_TOP:?run through ctest}"
    [ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for unshare -m and mount (uid $(id -u))"; exit 77; }
    if ! msg=$(unshare -m sh -c 'mount -t tmpfs none /sys/class' 2>&1); then
        echo "SKIP: cannot create a mount namespace with a tmpfs over /sys/class: $msg"
        exit 77
    fi
    exec env ROCSYS_GPU_NS=1 unshare -m bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
mount -t tmpfs none /sys/class
# ROCm SMI keeps a process-shared mutex per card in /dev/shm (rocm_smi_card0, ...): a private
# /dev/shm keeps this test's fabricated card0 apart from every other process's card0
mount -t tmpfs none /dev/shm
trap 'kill $(jobs -p) 2>/dev/null || true; e2e_cleanup' EXIT
GS="bash $(dirname "$0")/gpu_sysfs.sh"
if ! grep -q librocm_smi64 <<< "$(ldconfig -p)" && [ -z "${ROCSYS_ROCM_SMI:-}" ]; then
    skip "librocm_smi64 is not installed (scripts/deps installs librocm-smi64-1)"
fi

# fresh N: a new sysfs tree with N GPUs
fresh() { umount /sys/class; mount -t tmpfs none /sys/class; [ "$1" -eq 0 ] || $GS make "$1"; }
# frame FILE ARGS...: the last -b frame of rocsys-top ARGS in FILE, its exit status in RC
frame() {
    local f=$1
    shift
    RC=0
    timeout 120 "$ROCSYS_TOP" "$@" > "$f.all" 2> "$f.err" || RC=$?
    [ "$RC" -eq 0 ] || { echo "rocsys-top $* exited with $RC:" >&2; tail -3 "$f.err" >&2; }
    last_frame "$f.all" > "$f"
}
# run_until WATCH PATTERN OUT ERR ARGS...: rocsys-top ARGS (stdout in OUT, stderr in ERR, or
# in OUT too when ERR is -) until WATCH has a line matching PATTERN (at most 60 s), then
# SIGTERM (its end within 30 s: stop_within); its exit status in RC. For what needs the
# library's answer: with rsmi_init held 4 s (as under load), the last frame of -n 2 -d 2 (or
# -n 1 -d 1) came before it and said it had not answered yet
run_until() {
    local watch=$1 pat=$2 out=$3 err=$4 pid
    shift 4
    RC=0
    if [ "$err" = - ]; then
        "$ROCSYS_TOP" "$@" > "$out" 2>&1 &
    else
        "$ROCSYS_TOP" "$@" > "$out" 2> "$err" &
    fi
    pid=$!
    wait_match "$watch" "$pat" 60 || true
    stop_within $pid 30 || RC=$?
}
# frame_when FILE PATTERN ARGS...: rocsys-top ARGS (-b frames) until a frame has a line
# matching PATTERN (run_until); its frames in FILE.all, its stderr in FILE.err, its last frame
# in FILE, its exit status in RC
frame_when() {
    local f=$1 pat=$2
    shift 2
    run_until "$f.all" "$pat" "$f.all" "$f.err" "$@"
    [ "$RC" -eq 0 ] || { echo "rocsys-top $* exited with $RC at SIGTERM:" >&2; tail -3 "$f.err" >&2; }
    last_frame "$f.all" > "$f"
}
# gpu_line FILE I: the GPUi line of a frame
gpu_line() { grep -E "^GPU$2 pci=" "$1" || true; }
has() { grep -q -- "$2" <<< "$1"; }
# wait_match FILE PATTERN SECONDS: until FILE has a line matching PATTERN (extended regex)
wait_match() {
    local n=$(( $3 * 10 ))
    for ((i = 0; i < n; i++)); do grep -Eq -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "--- $1 (waited for: $2) ---" >&2; tail -5 "$1" >&2 || true
    return 1
}

# ---- one GPU: every metric as written ----
fresh 1
frame_when "$WORK/one.txt" '^gpu: 1 devices \(rocm-smi\)' --attach-gpu -b -d 2 --gpu-interval 100
check "1 GPU: exit 0 at SIGTERM (got $RC)" test "$RC" -eq 0
check "1 GPU: one device" grep -q '^gpu: 1 devices (rocm-smi)' "$WORK/one.txt"
check "1 GPU: the mode line says nothing is sampled" \
    grep -q '^mode gpu  no target: GPU monitoring only' "$WORK/one.txt"
l=$(gpu_line "$WORK/one.txt" 0)
for kv in pci=0000:03:00.0 'name="Aldebaran/MI200 \[Instinct MI210\]"' busy=10% power=100.0W \
    power_cap=300.0W temp_edge=40C temp_junction=50C temp_memory=60C vram_used=1073741824 \
    vram_total=68719476736 gtt_used=268435456 gtt_total=34359738368 sclk=1700MHz mclk=1600MHz \
    fan=2000RPM fan_speed=50%; do
    check "1 GPU: $kv" has "$l" " $kv"
done
check "1 GPU: busy history" grep -Eq '^GPU0 history busy: min 10.0 avg 10.0 max 10.0 % over [0-9]+ samples' "$WORK/one.txt"

# ---- four GPUs, each its own values ----
fresh 4
frame_when "$WORK/four.txt" '^gpu: 4 devices \(rocm-smi\)' --attach-gpu -b -d 2 --gpu-interval 100
check "four: exit 0 at SIGTERM (got $RC)" test "$RC" -eq 0
check "4 GPUs: four devices" grep -q '^gpu: 4 devices (rocm-smi), showing 4 (all)' "$WORK/four.txt"
for i in 0 1 2 3; do
    l=$(gpu_line "$WORK/four.txt" $i)
    check "4 GPUs: GPU$i pci" has "$l" "pci=0000:0$((3 + i)):00.0"
    check "4 GPUs: GPU$i busy" has "$l" " busy=$((10 + i))%"
    check "4 GPUs: GPU$i power" has "$l" " power=$((100 + i)).0W"
    check "4 GPUs: GPU$i edge" has "$l" " temp_edge=$((40 + i))C"
    check "4 GPUs: GPU$i VRAM" has "$l" " vram_used=$(((1 + i) << 30))"
    check "4 GPUs: GPU$i fan" has "$l" " fan=$((2000 + i))RPM"
done

# ---- a removed metric file is N/A, the others stay ----
fresh 2
$GS rm 0 gpu_busy_percent
$GS rm 0 hwmon/hwmon0/temp2_input
frame_when "$WORK/na.txt" '^gpu: 2 devices \(rocm-smi\)' --attach-gpu -b -d 2
check "na: exit 0 at SIGTERM (got $RC)" test "$RC" -eq 0
l=$(gpu_line "$WORK/na.txt" 0)
check "removed busy file: N/A" has "$l" " busy=N/A"
check "removed junction file: N/A" has "$l" " temp_junction=N/A"
check "edge still read" has "$l" " temp_edge=40C"
check "GPU1 untouched" has "$(gpu_line "$WORK/na.txt" 1)" " busy=11%"
check "N/A history, not zeros" grep -q '^GPU0 history busy: N/A' "$WORK/na.txt"

# ---- a KFD process: listed with its VRAM ----
fresh 2
sleep 300 &
sp=$!
$GS proc $sp 1 123456789
frame_when "$WORK/proc.txt" '^gpu: 2 devices \(rocm-smi\)' --attach-gpu -b -d 2
check "proc: exit 0 at SIGTERM (got $RC)" test "$RC" -eq 0
check "one GPU process" grep -q '^gpu processes: 1' "$WORK/proc.txt"
# CU%: the library's share of the CUs of every GPU KFD lists for the process: 26 busy of 2 x 104
check "the process: pid, name, GPU 1, VRAM, SDMA, CU%" \
    grep -Eq "^  $sp +sleep +1 +123456789 +5000 +12 +no" "$WORK/proc.txt"

# ---- with a target: its GPUs only, its process marked ----
# child_named PARENT NAME SECONDS: the pid of PARENT's child NAME (other tests run tp_sleep too)
child_named() {
    local c=""
    for ((i = 0; i < $3 * 10; i++)); do
        c=$(pgrep -n -P "$1" -x "$2" || true)
        [ -n "$c" ] && break
        sleep 0.1
    done
    echo "$c"
}
# The target sleeps until the test has seen a frame with its process (or 90 s), then is ended:
# it slept a fixed 4.5 s, and at load 13-16 under ASan finding it and faking its KFD entry took
# most of that, so no frame while it ran listed it (at its end its name is gone from /proc)
"$ROCSYS_TOP" -b -d 3 --gpu-interval 100 -- "$TP/tp_sleep" 120 > "$WORK/target.all" 2>&1 &
rp=$!
tpid=$(child_named $rp tp_sleep 30)
check "target started" test -n "$tpid"
if [ -n "$tpid" ]; then
    $GS proc "$tpid" 1 4096
    for _ in $(seq 900); do
        grep -Eq "^  $tpid +tp_sleep +1 +4096 .* yes +-$" "$WORK/target.all" && break
        sleep 0.1
    done
    kill "$tpid" 2> /dev/null || true
fi
wait $rp || true
last_frame "$WORK/target.all" > "$WORK/target.txt"
# frames while the target ran (its process name is gone from /proc at the end)
check "target: then only the GPU it uses" grep -q '^gpu: 2 devices (rocm-smi), showing 1 (used by the target)' "$WORK/target.txt"
check "target: GPU1 shown, GPU0 not" bash -c "grep -q '^GPU1 pci=' '$WORK/target.txt' && ! grep -q '^GPU0 pci=' '$WORK/target.txt'"
check "target: its process marked" grep -Eq "^  $tpid +tp_sleep +1 +4096 .* yes +-$" "$WORK/target.all"
check "target: other process not marked" grep -Eq "^  $sp +sleep .* no +-$" "$WORK/target.all"
check "target: profiling still works" grep -q '^== Threads ==' "$WORK/target.txt"

# ---- a value rewritten while rocsys-top runs: on screen (tmux) ----
if command -v tmux > /dev/null; then
    S=live
    tmux_start $S 160 50 "$ROCSYS_TOP" --attach-gpu -d 3 --gpu-interval 100
    check "TUI: GPU dashboard" wait_screen $S 'GPU0 0000:03:00.0' 20
    check "TUI: busy 10 %" wait_screen $S 'Busy +\[.*\] 10 %' 10
    check "TUI: process list with the sleeper" wait_screen $S "\\* ?$sp|  $sp +sleep" 10
    $GS set 0 gpu_busy_percent 77
    $GS set 0 hwmon/hwmon0/temp1_input 83000
    check "TUI: busy rewritten to 77 shown" wait_screen $S 'Busy +\[.*\] 77 %' 15
    check "TUI: the header's GPU line follows it" wait_screen $S '^GPU0 77 % ' 10
    check "TUI: edge temperature 83 C shown" wait_screen $S 'edge 83 C' 10
    check "TUI: history max 77" wait_screen $S 'busy %: min [0-9.]+ avg [0-9.]+ max 77.0' 10
    $GS rm 0 hwmon/hwmon0/temp1_input
    check "TUI: removed edge file -> N/A" wait_screen $S 'edge N/A' 10
    if "$ROCSYS_TOP" -b -n 1 --engine perf -- true > /dev/null 2>&1; then
        # Enter on the process list's selected process: rocsys-top -p PID takes over
        check "TUI: Enter is offered on the status line" wait_screen $S 'Enter: profile process' 10
        tmux_keys $S Enter
        check "TUI: Enter profiles the process (attached to $sp)" wait_screen $S "attached to $sp" 15
        check "TUI: ... from outside (engine perf, notice)" wait_screen $S 'attached: HIP API' 10
    else
        echo "note: perf events not permitted: Enter-to-profile not checked"
    fi
    tmux_keys $S q
    check "TUI: q quits" wait_file "$WORK/$S.rc" 10
    check "TUI: exit 0" test "$(cat "$WORK/$S.rc" 2>/dev/null)" = 0
    check "TUI: the process is still running after rocsys-top left" kill -0 "$sp"
    tmux_kill $S
    fresh 2
    S=tgt
    tmux_start $S 160 50 "$ROCSYS_TOP" -d 3 --gpu-interval 100 -- "$TP/tp_sleep" 61.5
    check "TUI target: running" wait_screen $S 'running' 20
    check "TUI target: GPU gauges in the header of the call tree" \
        wait_screen $S '^GPU0 [0-9]+ % [0-9.]+ W [0-9]+ C [0-9.]+ [KMG]iB/[0-9.]+ [KMG]iB +GPU1 ' 10
    tmux_keys $S 5
    check "TUI target: GPU view, all GPUs while none is known" wait_screen $S 'GPUs: 2 of 2 shown \(all\)' 10
    rtop=$(child_named "$(tmux -L "$TMUX_SOCKET" display -p -t $S '#{pane_pid}')" rocsys-top 5)
    tpid=$([ -z "$rtop" ] || child_named "$rtop" tp_sleep 5)
    check "TUI target: its pid" test -n "$tpid"
    [ -z "$tpid" ] || $GS proc "$tpid" 0 8192
    check "TUI target: the target's GPU" wait_screen $S 'GPUs: 1 of 2 shown \(used by the target\)' 10
    check "TUI target: its process marked" wait_screen $S "^\\* $tpid +tp_sleep" 10
    tmux_keys $S q
    check "TUI target: q quits" wait_file "$WORK/$S.rc" 10
    tmux_kill $S
else
    echo "note: tmux missing, TUI checks skipped"
fi

# ---- the recording: a rewritten value in gpu.csv, counters summary, session.json ----
fresh 2
D=$WORK/rec
# SIGINT as from a terminal: a background job of a script starts with SIGINT ignored, which
# timeout 9.1 (Debian 12) undid for its child and timeout 9.10 (sid) keeps, passing on nothing
env --default-signal=INT timeout 120 "$ROCSYS_TOP" --attach-gpu -b -d 2 --gpu-interval 100 \
    --record "$D" > "$WORK/rec.out" 2>&1 &
rp=$!
check "recording: first frames" wait_match "$WORK/rec.out" '^GPU0 pci=.* busy=10%' 30
$GS set 0 gpu_busy_percent 88
check "recording: the new value live" wait_match "$WORK/rec.out" '^GPU0 pci=.* busy=88%' 30
sleep 0.5
kill -INT $rp
rc=0
wait $rp || rc=$?
check "recording: SIGINT ends it with 0 (got $rc)" test "$rc" -eq 0
check "gpu.csv written" test -s "$D/gpu.csv"
check "gpu.csv header with units" grep -q '^time_s,gpu,busy_pct,power_w,power_cap_w,temp_edge_c,' "$D/gpu.csv"
col() { awk -F, -v name="$1" 'NR==1{for(i=1;i<=NF;i++) if($i==name) c=i; next} {print $2, $c}' "$D/gpu.csv"; }
check "gpu.csv: GPU0 busy 10 before" bash -c "grep -q '^0 10.000$' <(awk -F, 'NR>1{print \$2, \$3}' '$D/gpu.csv')"
check "gpu.csv: GPU0 busy 88 after" bash -c "grep -q '^0 88.000$' <(awk -F, 'NR>1{print \$2, \$3}' '$D/gpu.csv')"
check "gpu.csv: GPU1 busy 11 throughout" test "$(col busy_pct | awk '$1==1' | sort -u)" = "1 11.000"
check "gpu.csv: GPU1 VRAM exact" test "$(col vram_used_bytes | awk '$1==1' | sort -u)" = "1 2147483648"
check "gpu.csv: rows of both GPUs, times rising" \
    awk -F, 'NR>1{n[$2]++; if ($1 < last[$2]) bad=1; last[$2]=$1} END{exit !(n[0]>=5 && n[1]>=5 && !bad)}' "$D/gpu.csv"
check "profile.txt: GPU0 busy min 10 max 88" \
    grep -Eq '^\| GPU0 busy +\| +% \| +[0-9]+ \| +10\.000 \| +[0-9.]+ \| +88\.000 \|' "$D/profile.txt"
check "profile.txt: GPU1 power in W" grep -Eq '^\| GPU1 power +\| +W \| +[0-9]+ \| +101\.000 \| +101\.000 \| +101\.000 \|' "$D/profile.txt"
check "session.json: two GPUs" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (len(d['gpus'])==2 and d['gpus'][1]['pci']=='0000:04:00.0' and d['gpu_status']=='ok'))" "$D/session.json"
check "session.json lists gpu.csv" grep -q '"gpu.csv"' "$D/session.json"

# ---- that recording replayed: gauges and min/avg/max as gpu.csv, names as session.json ----
rc=0
"$ROCSYS_TOP" --replay "$D" -b --rows 0 > "$WORK/replay.txt" 2>&1 || rc=$?
check "replay: exit 0 (got $rc)" test "$rc" -eq 0
check "replay: the two recorded GPUs" grep -q '^gpu: 2 devices (recording), showing 2' "$WORK/replay.txt"
# csv_last I: GPU I's last gpu.csv row as the batch frame prints it
csv_last() {
    awk -F, -v g="$1" 'NR==1{for (k=1; k<=NF; k++) c[$k]=k; next} $2==g {
        b=$c["busy_pct"]; p=$c["power_w"]; e=$c["temp_edge_c"]; v=$c["vram_used_bytes"]; f=$c["fan_rpm"]}
        END{printf "busy=%.0f%% power=%.1fW temp_edge=%.0fC vram_used=%.0f fan=%.0fRPM", b, p, e, v, f}' "$D/gpu.csv"
}
# csv_stats I COLUMN: "min avg max count" of GPU I's readings of COLUMN in gpu.csv
csv_stats() {
    awk -F, -v g="$1" -v col="$2" 'NR==1{for (k=1; k<=NF; k++) if ($k==col) c=k; next}
        $2==g && $c!="" {n++; s+=$c; if (n==1 || $c<mn) mn=$c; if (n==1 || $c>mx) mx=$c}
        END{if (n) printf "%.1f %.3f %.1f %d", mn, s/n, mx, n}' "$D/gpu.csv"
}
# replay_stats FILE I KEY: "min avg max count" of a history line of a replayed frame
replay_stats() {
    sed -n "s/^GPU$2 history $3: min \([0-9.]*\) avg \([0-9.]*\) max \([0-9.]*\) .* over \([0-9]*\) samples$/\1 \2 \3 \4/p" "$1"
}
for i in 0 1; do
    l=$(gpu_line "$WORK/replay.txt" $i)
    for kv in $(csv_last $i); do
        check "replay GPU$i: $kv as the last gpu.csv row" has "$l" " $kv"
    done
    pci=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['gpus'][$i]['pci'])" "$D/session.json")
    check "replay GPU$i: pci $pci as session.json" has "$l" "GPU$i pci=$pci "
    for m in busy:busy_pct power:power_w; do
        read -r cmin cavg cmax cn <<< "$(csv_stats $i "${m#*:}")"
        read -r rmin ravg rmax rn <<< "$(replay_stats "$WORK/replay.txt" $i "${m%:*}")"
        check "replay GPU$i ${m%:*}: min $cmin max $cmax over $cn readings as gpu.csv (got ${rmin:-none} ${rmax:-none} over ${rn:-none})" \
            test "${rmin:-x} ${rmax:-x} ${rn:-x}" = "$cmin $cmax $cn"
        check "replay GPU$i ${m%:*}: avg $cavg as gpu.csv (got ${ravg:-none})" within "${ravg:-}" "$cavg" 0.051
    done
done
check "replay: GPU0 busy went from 10 to 88" test "$(replay_stats "$WORK/replay.txt" 0 busy | cut -d' ' -f1,3)" = "10.0 88.0"
check "replay: the processes are not in recordings" grep -q '^gpu processes: not recorded' "$WORK/replay.txt"
# a range at the start: the first reading only; a range after the run: no GPU data
"$ROCSYS_TOP" --replay "$D" -b --rows 0 --range 0:0.05 > "$WORK/replay-start.txt" 2>&1 || true
first=$(awk -F, 'NR>1 && $2==0 {printf "busy=%.0f%%", $3; exit}' "$D/gpu.csv")
check "replay --range 0:0.05: GPU0 shows the first reading ($first)" has "$(gpu_line "$WORK/replay-start.txt" 0)" " $first "
check "replay --range 0:0.05: one reading in the history" \
    test "$(replay_stats "$WORK/replay-start.txt" 0 busy | cut -d' ' -f4)" = 1
"$ROCSYS_TOP" --replay "$D" -b --rows 0 --range 1000:1001 > "$WORK/replay-none.txt" 2>&1 || true
check "replay, a range after the run: no GPU data, said so" \
    grep -q '^gpu: no GPU data in this recording between 1000.000 s and 1001.000 s' "$WORK/replay-none.txt"
check "replay, a range after the run: no gauges" bash -c "! grep -q '^GPU0 pci=' '$WORK/replay-none.txt'"

# the recording as two ranks of one host, followed live: the host's GPUs once, named by host
mkdir -p "$WORK/ranks"
cp -r "$D" "$WORK/ranks/rank-0"
cp -r "$D" "$WORK/ranks/rank-1"
rc=0
"$ROCSYS_TOP" --replay "$WORK/ranks" --live -b -n 1 --rows 0 > "$WORK/live.txt" 2>&1 || rc=$?
check "live, 2 ranks of one host: exit 0 (got $rc)" test "$rc" -eq 0
check "live, 2 ranks of one host: its 2 GPUs, not 4" \
    grep -q '^gpu: 2 devices (recording), showing 2' "$WORK/live.txt"
check "live: the GPUs are named by host" grep -q "^GPU0 .*name=\"$(hostname) GPU0\"" "$WORK/live.txt"
check "live: the gauges as replayed ($(gpu_line "$WORK/replay.txt" 0 | grep -o 'busy=[^ ]*'))" \
    test "$(gpu_line "$WORK/live.txt" 0 | grep -o 'busy=[^ ]*')" = "$(gpu_line "$WORK/replay.txt" 0 | grep -o 'busy=[^ ]*')"

# headless: the summary says min/mean/max. It records until gpu.csv (written out at each
# refresh for a follower of the recording) has a row of GPU1, then SIGTERM: the -n 3 -d 2 it
# had ended before a slow rsmi_init answered (held 4 s: the summary said it had not answered)
run_until "$WORK/rec2/gpu.csv" '^[0-9.]+,1,' "$WORK/sum.txt" - \
    --attach-gpu --no-tui -d 2 --gpu-interval 100 --record "$WORK/rec2"
check "headless: exit 0 at SIGTERM (got $RC)" test "$RC" -eq 0
check "headless: summary" grep -q '^GPU1 busy: min 11.0 mean 11.0 max 11.0 %' "$WORK/sum.txt"
check "headless: files" grep -q 'rec2/gpu.csv' "$WORK/sum.txt"

# ---- only AMD SMI installed: its library where it carries ROCm SMI's functions (Debian 13's
# libamd_smi.so.0), else one line saying so (sid's .so.27: a stand-in library). Libraries are
# hidden by mounting /dev/null over them, in this test's mount namespace only.
# hide_libs PATTERN: /dev/null over every library file of ldconfig's cache matching PATTERN
hide_libs() {
    local f
    for f in $(ldconfig -p | awk -v p="$1" '$1 ~ p {print $NF}') /opt/rocm/lib/*; do
        [[ $(basename "$f") =~ $1 ]] && [ -e "$f" ] || continue
        mountpoint -q "$(realpath "$f")" || mount --bind /dev/null "$(realpath "$f")"
    done
}
if [ -z "${ROCSYS_ROCM_SMI:-}" ]; then
    amd=$(ldconfig -p | awk '$1 ~ /^libamd_smi\.so/ {print $NF; exit}')
    hide_libs '^librocm_smi64\.so'
    fresh 1
    if [ -n "$amd" ] && nm -D "$amd" 2> /dev/null | grep -q ' T rsmi_init$'; then
        frame_when "$WORK/amd.txt" '^gpu: 1 devices \(rocm-smi\)' --attach-gpu -b -d 2 --gpu-interval 100
        check "AMD SMI only ($amd): exit 0 at SIGTERM (got $RC)" test "$RC" -eq 0
        check "AMD SMI only: one device" grep -q '^gpu: 1 devices (rocm-smi)' "$WORK/amd.txt"
        l=$(gpu_line "$WORK/amd.txt" 0)
        for kv in busy=10% power=100.0W temp_edge=40C vram_used=1073741824 sclk=1700MHz mclk=1600MHz; do
            check "AMD SMI only: $kv as written" has "$l" " $kv"
        done
    else
        echo "SKIP AMD SMI only, with ROCm SMI's functions: ${amd:-no libamd_smi} here"
    fi
    hide_libs '^libamd_smi\.so'
    mkdir -p "$WORK/amdlib"
    cp "$(ldconfig -p | awk '$1 == "libz.so.1" {print $NF; exit}')" "$WORK/amdlib/libamd_smi.so.27"
    LD_LIBRARY_PATH="$WORK/amdlib" frame "$WORK/amd27.txt" --attach-gpu -b -n 1 -d 1
    check "AMD SMI without ROCm SMI's functions: exit 0 (got $RC)" test "$RC" -eq 0
    check "AMD SMI without ROCm SMI's functions: said, with what to install" \
        grep -q '^gpu: unavailable: only AMD SMI is installed (libamd_smi.so.27.*install librocm-smi64-1' \
        "$WORK/amd27.txt"
    rm -rf "$WORK/amdlib"
    frame "$WORK/none.txt" --attach-gpu -b -n 1 -d 1
    check "neither library: said" grep -q '^gpu: unavailable: ROCm SMI library not found' "$WORK/none.txt"
    # the libraries back for the rest
    awk '$5 ~ /(librocm_smi64|libamd_smi)\.so/ {print $5}' /proc/self/mountinfo | xargs -r -n1 umount
else
    echo "SKIP AMD SMI only: ROCSYS_ROCM_SMI is set"
fi

# ---- no driver, no GPU, no library: one line, the rest works ----
fresh 0
# what a user sees: frames until rsmi_init answers say the library is starting, or after
# GPU_ANSWER_WAIT_MS (2 s) that it did not answer yet; the frames after it say what is missing.
# rsmi_init took over 2 s under ASan at load 20 (the one frame of -n 1 -d 1 came before it):
# rocsys-top runs until a frame says it (at most 60 s), then gets SIGTERM
frame_when "$WORK/nodrv" '^gpu: unavailable: no amdgpu driver' --attach-gpu -b -d 1
check "nodrv: exit 0 at SIGTERM (got $RC)" test "$RC" -eq 0
check "no driver: said" grep -q '^gpu: unavailable: no amdgpu driver: rsmi_init' "$WORK/nodrv.all"
awk '/^gpu: unavailable: no amdgpu driver/ {exit} /^gpu: / {print}' "$WORK/nodrv.all" > "$WORK/nodrv.before"
awk '/^gpu: unavailable: no amdgpu driver/ {d=1} d && /^gpu: / {print}' "$WORK/nodrv.all" > "$WORK/nodrv.after"
check "no driver: the frames before said starting or not answered yet ($(sort -u "$WORK/nodrv.before" | tr '\n' ';'))" \
    bash -c "! grep -Ev '^gpu: (starting \\(|unavailable: GPU library did not answer \\()' '$WORK/nodrv.before'"
check "no driver: every frame after said it ($(sort -u "$WORK/nodrv.after" | tr '\n' ';'))" \
    bash -c "! grep -v '^gpu: unavailable: no amdgpu driver: rsmi_init' '$WORK/nodrv.after'"
# the library's stderr is captured while rocsys-top waits for it; one that has not answered by
# then gets stderr back (rocsys-top's own messages must not go into the capture), and what it
# says after goes there
if [ -s "$WORK/nodrv.before" ]; then
    echo "    (rsmi_init answered after GPU_ANSWER_WAIT_MS: its stderr was given back, not checked)"
else
    check "no driver: library chatter kept off stderr" test ! -s "$WORK/nodrv.err"
fi
mkdir -p /sys/class/drm /sys/class/kfd/kfd/topology/nodes
frame "$WORK/nogpu.txt" --attach-gpu -b -n 1 -d 1
check "nogpu: exit 0 (got $RC)" test "$RC" -eq 0
# (ROCm SMI 6.1 and later never return from rsmi_init without a card: that is said instead)
check "no GPU: said ($(grep -m1 '^gpu: ' "$WORK/nogpu.txt" || true))" \
    grep -Eq '^gpu: unavailable: (no AMD GPU found|GPU library did not answer \(rsmi_init after)' "$WORK/nogpu.txt"
fresh 1
rc=0
ROCSYS_ROCM_SMI=/nonexistent/librocm_smi64.so.1 timeout 120 "$ROCSYS_TOP" -b -d 2 -- "$TP/tp_exit" 3 0 \
    > "$WORK/nolib.all" 2>&1 || rc=$?
last_frame "$WORK/nolib.all" > "$WORK/nolib.txt"
check "no library: said" grep -q '^gpu: unavailable: ROCm SMI library not found' "$WORK/nolib.txt"
check "no library: the target's exit status (got $rc)" test "$rc" -eq 3
check "no library: profiling still works" grep -q '^== Threads ==' "$WORK/nolib.txt"
rc=0
timeout 60 "$ROCSYS_TOP" --gpu-interval 0 --attach-gpu > /dev/null 2> "$WORK/off.err" || rc=$?
check "--attach-gpu needs monitoring (exit 2, got $rc)" test "$rc" -eq 2
check "--attach-gpu takes no program" bash -c "! '$ROCSYS_TOP' --attach-gpu -- true 2>/dev/null"
finish
