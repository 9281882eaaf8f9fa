#!/usr/bin/env bash
# End-to-end: rocsys-top under a real one-node Slurm (Debian's slurm-wlm and munge), as the
# cluster's user. The test starts munged, slurmctld and slurmd on this machine (a generated
# slurm.conf, key, spool and state in its work directory, its own ports) and creates a dedicated
# user (useradd: Slurm wants an account); it stops them all and removes the user whatever happens.
# The user unpacks the release archive (cpack -G TGZ) into its home and loads its module in a
# login shell, like on a cluster without rocsys-top, then:
#  - srun -n 4 --mpi=pmix rocsys-top --record DIR -- ./mpi_burn (Open MPI, through Slurm's PMIx):
#    four DIR/rank-N named by Slurm's ranks (SLURM_PROCID = the MPI rank = N) with the host,
#    followed by `rocsys-top --replay DIR --live` while the job runs, joined by --merge after;
#  - the sbatch example (share/rocsys-top/examples/rocsys-top.sbatch) to its end (merged), and
#    cancelled with scancel:
#    every rank's recording is complete up to then and says how it ended.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root: starts slurmd and munged, creates a user"
for c in setpriv useradd userdel munged slurmctld slurmd srun sbatch scancel squeue sinfo mpicc cpack; do
    command -v "$c" > /dev/null || skip "$c missing (scripts/deps: slurm-wlm munge libopenmpi-dev)"
done
# the modules' shell init: Lmod's (scripts/deps), else environment-modules' (they conflict)
MODINIT=""
for f in /usr/share/lmod/lmod/init/bash /usr/share/modules/init/bash; do
    [ -r "$f" ] && { MODINIT=$f; break; }
done
[ -n "$MODINIT" ] || skip "no environment modules: Debian package lmod (scripts/deps) or environment-modules"

build=$(dirname "$ROCSYS_TOP")
chmod 711 "$WORK"
S="$WORK/slurm"
MARK="ROCSYS_SLURM_TEST=$WORK" # in the daemons' environment: their processes are found by it
USR="rsslurm$$"
USR=${USR:0:31}
daemons=()
user_made=0

# our_pids: processes this test started through the daemons (slurmstepd, the job's programs):
# those whose environment carries MARK or that run as the test's user
our_pids() {
    local p uid
    uid=$(id -u "$USR" 2> /dev/null || echo none)
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [ "$p" != $$ ] || continue
        if [ "$(stat -c %u "/proc/$p" 2> /dev/null)" = "$uid" ] ||
            tr '\0' '\n' 2> /dev/null < "/proc/$p/environ" | grep -qxF "$MARK"; then
            echo "$p"
        fi
    done
}
# stop_all: the user's jobs, the daemons (SIGTERM, then SIGKILL), what is left of theirs, the
# user; then lib.sh's cleanup. Runs whatever happens (EXIT).
stop_all() {
    local i p left
    if [ ${#daemons[@]} -gt 0 ]; then
        SLURM_CONF="$S/slurm.conf" timeout 10 scancel -u "$USR" 2> /dev/null || true
        for ((i = 0; i < 50; i++)); do
            [ -z "$(SLURM_CONF="$S/slurm.conf" timeout 5 squeue -h -u "$USR" 2> /dev/null)" ] && break
            sleep 0.2
        done
        kill "${daemons[@]}" 2> /dev/null || true
        for ((i = 0; i < 50; i++)); do
            kill -0 "${daemons[@]}" 2> /dev/null || break
            sleep 0.1
        done
        kill -9 "${daemons[@]}" 2> /dev/null || true
        wait "${daemons[@]}" 2> /dev/null || true
    fi
    left=$(our_pids | tr '\n' ' ')
    if [ -n "$left" ]; then
        echo "note: ending processes left by the job: $left" >&2
        for p in $left; do kill -9 "$p" 2> /dev/null || true; done
        sleep 0.5
    fi
    if [ "$user_made" = 1 ]; then
        userdel "$USR" 2> /dev/null || echo "FAIL: could not remove the test user $USR" >&2
    fi
    e2e_cleanup
}
trap stop_all EXIT
trap 'exit 130' INT TERM HUP

# -- the dedicated user and its home (Slurm's daemons look the user up)
UH="$WORK/home"
mkdir -p "$UH"
useradd -M -N -g nogroup -d "$UH" -s /bin/bash "$USR" || { fail "useradd $USR"; finish; }
user_made=1
chown "$USR:nogroup" "$UH"
chmod 700 "$UH"
# ulogin SCRIPT: SCRIPT as the user in a login shell, clean environment, the archive's module
# loaded (Lmod: /etc/profile.d, or its init script)
ulogin() {
    env -i HOME="$UH" USER="$USR" LOGNAME="$USR" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
        SLURM_CONF="$S/slurm.conf" TERM=dumb \
        ${ASAN_OPTIONS+ASAN_OPTIONS="$ASAN_OPTIONS"} ${UBSAN_OPTIONS+UBSAN_OPTIONS="$UBSAN_OPTIONS"} \
        setpriv --reuid="$USR" --regid=nogroup --init-groups bash -l -c \
        "type module > /dev/null 2>&1 || source $MODINIT; set -euo pipefail;
         load() { module use ~/opt/*/share/modulefiles && module load rocsys-top; }
         ! compgen -G '$UH/opt/*/share/modulefiles' > /dev/null || load; cd ~; $1"
}

# -- munged, slurmctld, slurmd
H=$(hostname -s)
mkdir -p "$S/munge" "$S/state" "$S/spool/$H" "$S/log"
chmod 755 "$S" "$S/munge"
head -c 1024 /dev/urandom > "$S/munge/key"
chmod 600 "$S/munge/key"
# two free TCP ports for slurmctld and slurmd
used=$(ss -Htan 2> /dev/null | awk '{n = split($4, a, ":"); print a[n]}' | sort -u)
ports=()
for ((p = 20000 + ($$ % 5000) * 2; ${#ports[@]} < 2; p++)); do
    grep -qx "$p" <<< "$used" || ports+=("$p")
done
cat > "$S/slurm.conf" << EOF
# generated by tests/e2e/test_slurm.sh: a one-node cluster for one test run (addresses given:
# no name lookup of the host needed)
ClusterName=rocsystest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=10
InactiveLimit=0
NodeName=$H NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=test Nodes=$H Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
export SLURM_CONF="$S/slurm.conf"
env "$MARK" munged -F -f --socket="$S/munge/sock" --key-file="$S/munge/key" \
    --log-file="$S/log/munged.log" --pid-file="$S/munge/pid" --seed-file="$S/munge/seed" \
    > "$S/log/munged.out" 2>&1 &
daemons+=($!)
for ((i = 0; i < 50; i++)); do [ -S "$S/munge/sock" ] && break; sleep 0.1; done
env "$MARK" slurmctld -D -i -f "$SLURM_CONF" > "$S/log/slurmctld.out" 2>&1 &
daemons+=($!)
env "$MARK" slurmd -D -f "$SLURM_CONF" > "$S/log/slurmd.out" 2>&1 &
daemons+=($!)
state=""
for ((i = 0; i < 150; i++)); do
    state=$(timeout 5 sinfo -h -o %t 2> /dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
done
if [ "$state" != idle ]; then
    fail "the one-node Slurm did not come up (node state '${state:-none}')"
    tail -n 5 "$S"/log/*.log >&2 || true
    finish
fi
mpis=$(srun --mpi=list 2>&1 | tr -s ' \t\n' ' ')
echo "    Slurm $(sinfo -V | awk '{print $2}') up on $H (ports ${ports[*]}); srun --mpi=list: $mpis"

# -- the release archive, unpacked by the user into its home
(cd "$WORK" && cpack -G TGZ --config "$build/CPackConfig.cmake" -B "$WORK/pkg") > "$WORK/cpack.log" 2>&1 ||
    { cat "$WORK/cpack.log" >&2; fail "cpack -G TGZ failed"; finish; }
tgz=$(ls "$WORK"/pkg/rocsys-top-*.tar.gz | head -1)
chmod 644 "$tgz"
chmod 711 "$WORK/pkg"
# the MPI program: a second of work per step, an Allreduce between steps; prints its MPI rank
# and Slurm's, each rank's output lands in its recording's output.log. mpi_burn STEPS [STOP]:
# STEPS steps, then with STOP more (up to 120 in all) until the file STOP exists (the ranks
# agree through the Allreduce). At its end it prints the CPU its steps' work took and what the
# process took in all (every thread, user and system: getrusage), the truth for its profile:
# on a loaded machine a rank that waits for the others in the Allreduce spins there
cat > "$WORK/mpi_burn.c" << 'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) double mpi_burn(double secs)
{
    volatile double x = 0;
    double end = now() + secs;
    while (now() < end)
        for (int i = 0; i < 10000; i++)
            x += i * 0.5;
    return x;
}

int main(int argc, char **argv)
{
    int rank, size, steps = argc > 1 ? atoi(argv[1]) : 3;
    const char *procid = getenv("SLURM_PROCID");
    const char *stop = argc > 2 ? argv[2] : NULL;
    double v[2], sum[2] = {0, 0}, burn_ms = 0;
    struct rusage ru;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("mpi rank %d of %d slurm procid %s\n", rank, size, procid ? procid : "none");
    fflush(stdout);
    for (int s = 0; s < 120 && (s < steps || (stop && sum[1] == 0)); s++) {
        double t0 = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
        v[0] = mpi_burn(1.0);
        burn_ms += cpu_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
        v[1] = stop && access(stop, F_OK) == 0;
        MPI_Allreduce(v, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("mpi rank %d done\n", rank);
    MPI_Finalize();
    getrusage(RUSAGE_SELF, &ru);
    printf("mpi rank %d cpu: burn %.0f ms, user %.0f ms, system %.0f ms\n", rank, burn_ms,
           ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3,
           ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3);
    return 0;
}
C
chmod 644 "$WORK/mpi_burn.c"
rc=0
ulogin "mkdir -p opt && tar xzf '$tgz' -C opt && load && mpicc -O1 -g -fno-omit-frame-pointer -o mpi_burn '$WORK/mpi_burn.c' &&
    command -v rocsys-top" > "$WORK/setup.out" 2>&1 || rc=$?
check "the user unpacks the archive, loads its module, builds the MPI program (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || { cat "$WORK/setup.out" >&2; finish; }
check "rocsys-top is the archive's, from the module" grep -q "^$UH/opt/rocsys-top-.*/bin/rocsys-top\$" "$WORK/setup.out"

# -- 1. srun -n 4 under rocsys-top, followed live, merged after
D="$UH/rec"
t0=$SECONDS
# 12 steps of 1 s, then on until the follower has shown the four ranks being written (or 60 s
# have passed): it starts once rank 0's trace has data, through a login shell, and on a loaded
# machine under a sanitizer it once came after 12 s (6 s before that) had ended the job
rm -f "$UH/stop-live"
ulogin "srun -n 4 --mpi=pmix rocsys-top --record rec -- ./mpi_burn 12 '$UH/stop-live'" > "$WORK/srun.out" 2>&1 &
srun_pid=$!
wait_file "$D/rank-0/trace.pftrace" 30 || true
(
    rc=0
    ulogin "timeout 120 rocsys-top --replay rec --live -b -d 10 -n 120 --rows 8" > "$WORK/live.txt" 2> "$WORK/live.err" || rc=$?
    echo "$rc" > "$WORK/live.rc"
) &
live_pid=$!
wait_line "$WORK/live.txt" '^notice: live: 4 ranks: [1-4] being written' 60 || true
touch "$UH/stop-live"
wait "$live_pid" || true
rc=$(cat "$WORK/live.rc" 2> /dev/null || echo none)
srun_rc=0
wait "$srun_pid" || srun_rc=$?
echo "    srun + live: $((SECONDS - t0)) s"
check "srun -n 4 rocsys-top --record: exit 0 (got $srun_rc)" test "$srun_rc" -eq 0
[ "$srun_rc" -eq 0 ] || tail -n 20 "$WORK/srun.out" >&2
check "--replay --live as the job ran: exit 0 (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$WORK/live.err" >&2
check "live: some frame had the 4 ranks being written (the follower's notices: $(grep '^notice: live:' "$WORK/live.txt" |
    sed 's/ (last write.*//' | uniq -c | tr -s ' ' | tr '\n' ';'))" \
    grep -q '^notice: live: 4 ranks: [1-4] being written' "$WORK/live.txt"
last_frame "$WORK/live.txt" > "$WORK/live.last"
check "live: the last frame has the 4 ranks ended" grep -q '^notice: live: 4 ranks: 0 being written.* 4 ended' "$WORK/live.last"
host=$(hostname)
for r in 0 1 2 3; do
    check "rank-$r recorded, complete" grep -q '"complete": true' "$D/rank-$r/session.json"
    check "rank-$r: Slurm's rank is the MPI rank and the directory's" \
        grep -qx "mpi rank $r of 4 slurm procid $r" "$D/rank-$r/output.log"
    check "rank-$r: the host is in its session.json" grep -q "\"host\": \"$host\"" "$D/rank-$r/session.json"
    check "rank-$r: the files are the user's" test "$(stat -c %U "$D/rank-$r/trace.pftrace")" = "$USR"
    row=$(awk -v r="$r" '/^== Ranks/{f=1; next} /^== /{f=0} f && $1 == r' "$WORK/live.last")
    check "live: rank $r's row names the host ($row)" test "$(awk '{print $2}' <<< "$row")" = "$host"
    # mpi_burn's self share: its CPU over the process's user CPU (the perf engine as a plain
    # user samples user space only) or over user + system (the signal engine), within 5 points
    got=$(awk -F'|' '/^== Hot functions: all threads/ {f = 1; next} /^== / {f = 0}
        f {n = $2; gsub(/ /, "", n); if (n == "mpi_burn") print $4 + 0}' "$D/rank-$r/profile.txt")
    read -r lo hi < <(awk '/^mpi rank [0-9]+ cpu: burn/ { b = $6; u = $9; s = $12
        if (u > 0) printf "%.1f %.1f\n", 100 * b / (u + s), 100 * b / u }' "$D/rank-$r/output.log") || true
    echo "    rank-$r: mpi_burn ${got:-missing}% of the profile; its CPU ${lo:-?}% of the rank's, ${hi:-?}% of its user CPU"
    check "rank-$r: mpi_burn ${got:-missing}% of its profile, the rank measured ${lo:-?}-${hi:-?}% (+-5)" \
        awk -v g="$got" -v lo="$lo" -v hi="$hi" 'BEGIN {exit !(g != "" && lo != "" && g >= lo - 5 && g <= hi + 5)}'
done
check "no fifth rank" test ! -e "$D/rank-4"
rc=0
ulogin "rocsys-top --merge rec" > "$WORK/merge.out" 2>&1 || rc=$?
check "--merge: exit 0 (got $rc)" test "$rc" -eq 0
"$ROCSYS_PROGRAMS/rocsys-trace-check" "$D/merged.pftrace" > "$WORK/mcheck.txt" 2>&1 || true
check "--merge: the merged trace passes every check" grep -q 'violations 0' "$WORK/mcheck.txt"
check "--merge: 4 sequences in it" grep -q 'sequences 4 ' "$WORK/mcheck.txt"
for r in 0 1 2 3; do
    check "--merge: rank $r in the merged profile" grep -q "Hot functions: rank $r " "$D/merged-profile.txt"
done

# -- 2. the sbatch example, to its end: the ranks recorded, then merged by the script
t0=$SECONDS
rc=0
ulogin "ROCSYS_DIR=batch sbatch --wait -o batch.out \$ROCSYS_TOP_ROOT/share/rocsys-top/examples/rocsys-top.sbatch \
    ./mpi_burn 2" > "$WORK/batch.sbatch" 2>&1 || rc=$?
echo "    sbatch to its end: $((SECONDS - t0)) s"
check "sbatch of the example: exit 0 (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$WORK/batch.sbatch" "$UH/batch.out" >&2 || true
for r in 0 1 2 3; do
    check "sbatch: rank-$r recorded, complete" grep -q '"complete": true' "$UH/batch/rank-$r/session.json"
    check "sbatch: rank $r in the merged profile" grep -q "Hot functions: rank $r " "$UH/batch/merged-profile.txt"
done
check "sbatch: the script says where the recordings are" grep -q "^recorded: batch/rank-N" "$UH/batch.out"

# -- 3. the sbatch example, cancelled with scancel while the ranks run
t0=$SECONDS
job=$(ulogin "ROCSYS_DIR=cancelled sbatch --parsable -o job-%j.out \
    \$ROCSYS_TOP_ROOT/share/rocsys-top/examples/rocsys-top.sbatch ./mpi_burn 60" 2> "$WORK/sbatch.err") || true
job=${job%%;*}
check "sbatch of the example: a job id (${job:-none})" test -n "$job"
[ -n "$job" ] || cat "$WORK/sbatch.err" >&2
C="$UH/cancelled"
for r in 0 1 2 3; do wait_file "$C/rank-$r/trace.pftrace" 30 || true; done
sleep 2 # samples in every rank
for r in 0 1 2 3; do
    check "sbatch: rank-$r being recorded before scancel" test -s "$C/rank-$r/trace.pftrace" -a ! -e "$C/rank-$r/session.json"
done
ulogin "scancel $job" || fail "scancel $job"
for ((i = 0; i < 150; i++)); do
    [ -z "$(squeue -h -j "$job" 2> /dev/null)" ] && break
    sleep 0.2
done
check "scancel: the job ended" test -z "$(squeue -h -j "$job" 2> /dev/null)"
echo "    sbatch + scancel: $((SECONDS - t0)) s"
for r in 0 1 2 3; do
    j="$C/rank-$r/session.json"
    check "scancel: rank-$r's recording is complete" grep -q '"complete": true' "$j"
    how=$(grep -E '"(ended_by|status)"' "$j" 2> /dev/null | tr -s ' \n' ' ')
    # Slurm signals the step's processes one by one: rocsys-top's SIGTERM first (ended_by says
    # Slurm's), or the program's (it ends first: ended_by "target ended", status says SIGTERM)
    check "scancel: rank-$r says it was ended by Slurm's SIGTERM ($how)" \
        grep -Eq '"ended_by": "(SIGTERM to rocsys-top \(from Slurm: scancel|target ended)' "$j"
    check "scancel: rank-$r's program was killed by SIGTERM ($how)" grep -q '"status": "killed by signal 15"' "$j"
    rc=0
    ulogin "rocsys-top --replay cancelled/rank-$r -b --rows 3" > "$WORK/replay-$r.txt" 2>&1 || rc=$?
    check "scancel: rank-$r replays (exit $rc) with its samples" grep -q "mpi_burn" "$WORK/replay-$r.txt"
done
check "scancel: the job's output says it was cancelled" grep -q "CANCELLED" "$UH/job-$job.out"
finish
