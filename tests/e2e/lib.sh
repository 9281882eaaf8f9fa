# Shared helpers for rocsys-top's end-to-end tests (sourced). CTest passes ROCSYS_TOP,
# ROCSYS_DEMO, ROCSYS_COLLECTOR, ROCSYS_PROGRAMS (build dir of tests/) and ROCSYS_SOURCE.
set -euo pipefail
: "${ROCSYS_TOP:?run through ctest}"
TP="$ROCSYS_PROGRAMS"
TMUX_SOCKET="rocsys-e2e-$$" # one tmux server per test run
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-e2e.XXXXXX")
# no settings file read or written (every run starts from the defaults; never the user's
# ~/.config/rocsys-top/rocsys-toprc): test_settings.sh turns it back on with its own directory
export ROCSYS_NO_CONFIG=1 XDG_CONFIG_HOME="$WORK/config"
# e2e_cleanup: stop the test's background jobs (servers, loads, targets) and this run's tmux
# server (if any), and remove the work directory: whatever happens, nothing outlives the test
e2e_cleanup() {
    local j
    j=$(jobs -p)
    [ -z "$j" ] || kill $j 2> /dev/null || true
    tmux -L "$TMUX_SOCKET" kill-server 2>/dev/null || true
    rm -rf "$WORK"
}
trap e2e_cleanup EXIT
# e2e_tree PID INDENT: PID's descendants but the watchdog, a line each (pid, seconds, command)
e2e_tree() {
    local p
    for p in $(pgrep -P "$1"); do
        [ "$p" != "$BASHPID" ] || continue
        ps -o pid=,etimes=,args= -p "$p" | cut -c1-200 | sed "s/^ */$2/"
        e2e_tree "$p" "$2  "
    done
}
# ctest's timeout kills a test without its cleanup (servers, users, sysctls left behind) and
# without a word: ROCSYS_E2E_TIMEOUT seconds in (a little under ctest's, tests/CMakeLists.txt),
# a watchdog says the test ran out of time and ends its commands and the test, whose EXIT trap
# cleans up. It leaves within a second of the test's end.
if [ -n "${ROCSYS_E2E_TIMEOUT:-}" ]; then
    (
        trap '' TERM # (e2e_cleanup's kill of the jobs: it leaves when the test is gone)
        for ((t = 0; t < ROCSYS_E2E_TIMEOUT; t++)); do
            sleep 1
            kill -0 $$ 2> /dev/null || exit 0
        done
        echo "FAIL: ${0##*/} ran out of time (${ROCSYS_E2E_TIMEOUT} s): its commands are stopped, it cleans up" >&2
        echo "  what it was running (pid, seconds, command):" >&2
        e2e_tree $$ "    " >&2
        kids=$(pgrep -P $$ | grep -vx "$BASHPID" || true)
        kill -TERM $$ $kids 2> /dev/null || true
    ) &
fi
# A command that fails outside a check ends the test (set -e): say which, where, and its status,
# so that no test dies without a message (errtrace: in functions too)
set -E
# (not inside a command substitution, whose failure the test handles: a check's message that
# greps for something absent; the status is taken before the test, which would replace it)
trap 'rc_=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "FAIL: ${BASH_SOURCE[0]##*/}:$LINENO: exit status $rc_ from: $BASH_COMMAND" >&2' ERR
failures=0
passes=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { passes=$((passes + 1)); }
# check DESCRIPTION COMMAND...: run a test command, count it
check() { local d=$1; shift; if "$@"; then pass; else fail "$d"; fi; }
skip() { echo "SKIP: $*"; exit 77; }
finish() {
    echo "$passes passed, $failures failed"
    if [ "$failures" -ne 0 ]; then exit 1; fi
}

# The last batch frame of a frames file (frames start with "rocsys-top frame"). Its status is 0
# even when a reader that has what it wants stops early (hot_self's exit): with pipefail, the
# SIGPIPE of a frame larger than the pipe's 64 KiB ended a test at the assignment, without a
# check (test_diff under load, where a --rows 0 frame grows); a missing file gives no frame,
# which the check then says.
last_frame() { awk '/^rocsys-top frame /{buf=""} {buf=buf $0 "\n"} END{printf "%s", buf}' "$1" || true; }

# SELF% of a function in the "Hot functions" section of a frame on stdin.
hot_self() {
    awk -v fn="$1" '/^== Hot functions/{h=1; next} /^== /{h=0} h && $4==fn {print $1; exit}'
}
# INCL% likewise.
hot_incl() {
    awk -v fn="$1" '/^== Hot functions/{h=1; next} /^== /{h=0} h && $4==fn {print $2; exit}'
}
# within VALUE EXPECTED TOLERANCE: |VALUE - EXPECTED| <= TOLERANCE
within() { awk -v v="$1" -v e="$2" -v t="$3" 'BEGIN{d=v-e; if(d<0)d=-d; exit !(v!="" && d<=t)}'; }

# Run rocsys-top in tmux: tmux_start SESSION COLS ROWS CMD...; the exit status lands in
# $WORK/SESSION.rc when the command ends. A session that only sleeps keeps the server up for the
# whole run: a tmux server exits when its last session is killed, and a new-session racing that
# exit fails with "server exited unexpectedly" (tmux does not synchronise the two).
tmux_start() {
    local s=$1 cols=$2 rows=$3; shift 3
    local cmd
    printf -v cmd '%q ' "$@"
    tmux -L "$TMUX_SOCKET" has-session -t =keepalive 2>/dev/null ||
        tmux -L "$TMUX_SOCKET" new-session -d -s keepalive "sleep 900"
    tmux -L "$TMUX_SOCKET" new-session -d -s "$s" -x "$cols" -y "$rows" \
        "env TERM=xterm-256color LANG=C.UTF-8 $cmd; echo \$? > $WORK/$s.rc; sleep 600"
}
tmux_keys() { tmux -L "$TMUX_SOCKET" send-keys -t "$1" "${@:2}"; }
tmux_screen() { tmux -L "$TMUX_SOCKET" capture-pane -p -t "$1"; }
tmux_kill() { tmux -L "$TMUX_SOCKET" kill-session -t "$1" 2>/dev/null || true; }
# wait_screen SESSION PATTERN SECONDS: until the screen matches (extended regex)
wait_screen() {
    local s=$1 pat=$2 n=$(( $3 * 10 ))
    for ((i = 0; i < n; i++)); do
        tmux_screen "$s" | grep -Eq -- "$pat" && return 0
        sleep 0.1
    done
    echo "--- screen of $s (waited for: $pat) ---" >&2
    tmux_screen "$s" >&2 || true
    return 1
}
# proc_state PID: what attaching must not change: signal mask of every thread, ignored and
# caught signals, tracer, the fds and their targets, the set of mapped files (heap and stack
# sizes vary). test_attach and test_python_attach compare it before and after.
proc_state() {
    local p=$1 f
    grep -E '^(SigIgn|SigCgt|TracerPid):' "/proc/$p/status"
    for f in /proc/"$p"/task/*; do echo "task ${f##*/} $(grep '^SigBlk:' "$f/status")"; done
    for f in /proc/"$p"/fd/*; do echo "fd ${f##*/} -> $(readlink "$f")"; done
    awk 'NF >= 6 {print "map", $6}' "/proc/$p/maps" | sort -u
}
# stop_within PID SECONDS [SIGNAL]: send SIGNAL (TERM unless told) to PID, a child of the test,
# and wait at most SECONDS for its end; returns its exit status. One that does not end gets a
# FAIL line with what its threads wait in (name, kernel function), then SIGKILL (status 137):
# a process that hangs at its end never holds the test until its timeout, unexplained.
stop_within() {
    local pid=$1 n=$(($2 * 10)) sig=${3:-TERM} st i t rc=0
    kill -"$sig" "$pid" 2> /dev/null || true
    for ((i = 0; i < n; i++)); do
        st=$(ps -o stat= -p "$pid" 2> /dev/null || true)
        case $st in "" | Z*) break ;; esac
        sleep 0.1
    done
    if [ "$i" -ge "$n" ]; then
        fail "pid $pid ($(ps -o args= -p "$pid" | cut -c1-120)) did not end within $2 s of SIG$sig"
        for t in /proc/"$pid"/task/*; do
            echo "    thread ${t##*/} $(cat "$t/comm" 2> /dev/null) in $(cat "$t/wchan" 2> /dev/null)" >&2
        done
        kill -KILL "$pid" 2> /dev/null || true
    fi
    wait "$pid" || rc=$?
    return $rc
}
# install_lock: one test at a time that installs rocsys-top on the machine (test_deb) or needs it
# absent (test_archive), across build directories (fd 9, held until the test ends; ctest's
# RESOURCE_LOCK installed_package does the same within one run)
install_lock() {
    exec 9> "${TMPDIR:-/tmp}/rocsys-top-test-install.lock"
    flock -w 600 9 || skip "another package or archive test holds the install lock for 10 minutes"
}
# wait_file FILE SECONDS
wait_file() {
    local n=$(( $2 * 10 ))
    for ((i = 0; i < n; i++)); do [ -s "$1" ] && return 0; sleep 0.1; done
    return 1
}
# wait_line FILE ERE SECONDS: until FILE has a line matching ERE (1 if it has none by then)
wait_line() {
    local n=$(( $3 * 10 ))
    for ((i = 0; i < n; i++)); do grep -Eq "$2" "$1" 2> /dev/null && return 0; sleep 0.1; done
    return 1
}

# Python interpreters: pyenv's (PYENV_ROOT, default ~/.pyenv) and the system's (/usr/bin and
# /usr/local/bin: python3.11 on Debian 12, python3.13 on Debian 13).
PYENV_DIR="${PYENV_ROOT:-$HOME/.pyenv}"
# system_pythons: the system's CPython executables named python3.N that run, oldest first
system_pythons() {
    local p
    for p in /usr/bin/python3.* /usr/local/bin/python3.*; do
        [[ $(basename "$p") =~ ^python3\.[0-9]+$ ]] || continue
        [ -x "$p" ] && "$p" -c 'import sys' 2> /dev/null && echo "$p"
    done | sort -V -t. -k2,2 | awk '!seen[$0]++'
}
# find_python MINOR...: the first interpreter of these versions (3.13, 2.7...), pyenv's newest
# patch release first, then the system's; fails when there is none
find_python() {
    local v p found
    for v in "$@"; do
        found=""
        for p in "$PYENV_DIR"/versions/"$v".*/bin/python3 "$PYENV_DIR"/versions/"$v".*/bin/python \
            /usr/bin/python"$v" /usr/local/bin/python"$v"; do
            [ -x "$p" ] && "$p" -c 'import sys' 2> /dev/null && { found=$p; break; }
        done
        [ -n "$found" ] && { echo "$found"; return 0; }
    done
    return 1
}
# install_readable PREFIX: `cmake --install` of this build into PREFIX, readable by every user (a
# build directory may not be: under /root, 0700, as scripts/chroot-test's Debian 13 build, where
# a plain user could neither run rocsys-top nor load the collector). 0, or 1 with a FAIL line.
install_readable() {
    chmod a+x "$WORK"
    if ! cmake --install "$(dirname "$ROCSYS_TOP")" --prefix "$1" > "$WORK/install.log" 2>&1; then
        fail "cmake --install into $1: $(grep -v '^[[:space:]]*$' "$WORK/install.log" | tail -n 3 | tr '\n' ' ')"
        return 1
    fi
    chmod -R a+rX "$1"
}
