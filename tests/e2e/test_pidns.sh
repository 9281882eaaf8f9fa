#!/usr/bin/env bash
# End-to-end: process ids across PID namespaces (containers). KFD lists its processes by their
# host ids (the fabricated sysfs tree of gpu_sysfs.sh, as in test_gpu.sh, lists them so); the GPU
# view shows the ids of rocsys-top's own namespace and marks the rest:
#   - rocsys-top on the host: a process in a container (unshare --pid --fork --mount-proc) has
#     its host id (ours) and "container:N", N its id there; -p with that id profiles it;
#   - rocsys-top inside a namespace that sees the host's /proc (nsenter --pid): a process of its
#     namespace gets its id there, the host's and the other container's are "host";
#   - rocsys-top inside unshare --pid --fork --mount-proc: host ids cannot be mapped, every one is
#     "host", and KFD's id 1 is not taken for the local pid 1 (rocsys-top itself there).
if [ "${ROCSYS_PIDNS_NS:-}" != 1 ]; then
    : "${ROCSYS_TOP:?run through ctest}"
    [ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for unshare (uid $(id -u))"; exit 77; }
    if ! msg=$(unshare -m --pid --fork --mount-proc sh -c 'mount -t tmpfs none /sys/class' 2>&1); then
        echo "SKIP: cannot create mount and PID namespaces: $msg"
        exit 77
    fi
    exec env ROCSYS_PIDNS_NS=1 unshare -m bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
mount -t tmpfs none /sys/class
mount -t tmpfs none /dev/shm
GS="bash $(dirname "$0")/gpu_sysfs.sh"
grep -q librocm_smi64 <<< "$(ldconfig -p)" || [ -n "${ROCSYS_ROCM_SMI:-}" ] ||
    skip "librocm_smi64 is not installed (scripts/deps installs librocm-smi64-1)"
$GS make 1

# hostpid PATTERN: the host id of the process whose command line is exactly PATTERN
hostpid() {
    local p
    for ((i = 0; i < 50; i++)); do
        p=$(pgrep -xf "$1" | head -1 || true)
        [ -n "$p" ] && { echo "$p"; return 0; }
        sleep 0.1
    done
    return 1
}
# row FILE PID: the -b frame's GPU process row of PID
row() { grep -E "^  $2 " "$1" || true; }
frame() { local f=$1; shift; timeout 60 "$@" > "$f.all" 2> "$f.err" || true; last_frame "$f.all" > "$f"; }

# a process on the host, one in a container, one in a namespace that keeps the host's /proc
sleep 61.1 &
H_HOST=$!
unshare --pid --fork --mount-proc sleep 61.2 &
H_CT=$(hostpid 'sleep 61.2')
unshare --pid --fork bash -c 'sleep 61.3 & wait' &
H_NS=$(hostpid 'sleep 61.3')
NS_LEADER=$(hostpid "bash -c sleep 61.3 & wait")
CT_ID=$(awk '/^NSpid:/ {print $NF}' /proc/"$H_CT"/status)
NS_ID=$(awk '/^NSpid:/ {print $NF}' /proc/"$H_NS"/status)
for p in "$H_HOST" "$H_CT" "$H_NS" 1; do $GS proc "$p" 0 $((p + 4096)); done

# ---- rocsys-top on the host ----
frame "$WORK/host.txt" "$ROCSYS_TOP" --attach-gpu -b -n 2 -d 2 --gpu-interval 100
r=$(row "$WORK/host.txt" "$H_HOST")
check "host: our sleep, its own id, not marked ($r)" grep -Eq " sleep .* no +-$" <<< "$r"
r=$(row "$WORK/host.txt" "$H_CT")
check "host: the container's process by its host id, marked container:$CT_ID ($r)" \
    grep -Eq " sleep .* no +container:$CT_ID$" <<< "$r"
check "host: its VRAM is the one KFD lists for it" grep -q " $((H_CT + 4096)) " <<< "$r"
frame "$WORK/p.txt" "$ROCSYS_TOP" -p "$H_CT" -b -n 2 -d 5 --gpu-interval 100
check "-p with the host id of the container's process: it is profiled" \
    grep -Eq "^process $H_CT sleep: " "$WORK/p.txt"

# ---- rocsys-top in the third namespace, the host's /proc (nsenter --pid) ----
frame "$WORK/ns.txt" nsenter -t "$NS_LEADER" --pid -- "$ROCSYS_TOP" --attach-gpu -b -n 2 -d 2 --gpu-interval 100
r=$(row "$WORK/ns.txt" "$NS_ID")
check "in a namespace: its process by its id there ($NS_ID, host $H_NS), not marked ($r)" \
    grep -Eq "^  $NS_ID +sleep .* no +-$" <<< "$r"
check "in a namespace: no row by that process's host id" test -z "$(row "$WORK/ns.txt" "$H_NS")"
r=$(row "$WORK/ns.txt" "$H_CT")
check "in a namespace: the other container's process is 'host' ($r)" grep -Eq " no +host$" <<< "$r"
r=$(row "$WORK/ns.txt" "$H_HOST")
check "in a namespace: the host's process is 'host' ($r)" grep -Eq " sleep .* no +host$" <<< "$r"

# ---- rocsys-top inside unshare --pid --fork --mount-proc: nothing maps, nothing is misnamed ----
frame "$WORK/ct.txt" unshare --pid --fork --mount-proc "$ROCSYS_TOP" --attach-gpu -b -n 2 -d 2 --gpu-interval 100
check "own /proc: four KFD processes listed" grep -q '^gpu processes: 4' "$WORK/ct.txt"
check "own /proc: every one marked host" test "$(grep -cE '^  [0-9]+ .* no +host$' "$WORK/ct.txt")" -eq 4
r=$(row "$WORK/ct.txt" 1)
check "own /proc: KFD's 1 is not named after the local pid 1 (rocsys-top) ($r)" \
    grep -Eq "^  1 +\? .* no +host$" <<< "$r"

kill -KILL "$H_HOST" "$H_CT" "$H_NS" 2> /dev/null || true # SIGKILL: a namespace's pid 1 ignores SIGTERM
finish
