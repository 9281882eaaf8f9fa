#!/usr/bin/env bash
# Whole stacks from outside: how many samples of deep programs reach their thread's start with
# the perf engine, and what a larger stack copy costs, by the user stack the kernel copies per
# sample (ROCSYS_PERF_STACK: 8192, 16384, 32768, 65528 bytes) and with or without joining cut
# stacks to their thread's last whole one (ROCSYS_PERF_JOIN=0|1).
#
# usage: bench/perf_stacks.sh BUILD_DIR [RUNS]
#
# 1. Completeness (one run per size and join setting), 1000 Hz, --engine perf --python off:
#      deep   tp_deep_stack 300 SECONDS: 2 threads descending 150-300 frames (25-50 KiB)
#      torch  /usr/bin/python3 + python3-torch: a training loop (nn.Linear layers), launched
#      torch-p  the same script attached with -p (skipped without torch)
#    whole%: samples whose stack reached _start / clone / clone3 (stacks.folded: not under
#    [truncated]); joined%: of those, the ones joined (the header's "joined"); dropped: samples
#    the kernel lost (a ring was full); fe%: rocsys-top's own CPU ("front end"); unwind: us per
#    sample (its header).
# 2. Cost, side by side in each of RUNS rounds (the order rotating), FIXED work:
#    TP_DEEP_DESCENTS=DESC tp_deep_stack 300 (2 threads, DESC descents each) in each of
#      bare        the program alone
#      rt-SIZE     rocsys-top -b -d 10 -f 1000 --engine perf, ROCSYS_PERF_STACK=SIZE
#      dwarf-SIZE  perf record -e task-clock -F 1000 --call-graph dwarf,SIZE --user-callchains
#    for SIZE 8192 and 65528: the target's own CPU (getrusage in the target) and wall time,
#    as ratios against bare and rocsys-top against perf record with the same stack size; the
#    profiler's own CPU (the command's user+sys minus the target's); samples and lost samples.
#
# Environment: BENCH_SECONDS (part 1, default 3), BENCH_DESCENTS (part 2, default 1500),
# BENCH_PARTS (default "1 2"),
# BENCH_KEEP=1 keeps the work directory. About 3-5 minutes at RUNS=3 on 2 CPUs.
# See docs/performance.md, "Whole stacks".
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-3}
positive_int RUNS "$runs"
secs=${BENCH_SECONDS:-3}
desc=${BENCH_DESCENTS:-1500}
positive_int BENCH_DESCENTS "$desc"

bench_rocsys_top
deep=$(find_program "$build" tp_deep_stack)
timeit=$(find_program "$build" tp_timeit)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-stacks.XXXXXX")
if [[ ${BENCH_KEEP:-0} == 1 ]]; then
    note "keeping work directory $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi
have_dwarf=0
perf_works "$tmp" && have_dwarf=1
have_torch=0
/usr/bin/python3 -c 'import torch' 2>/dev/null && have_torch=1
cat >"$tmp/train.py" <<'EOF'
import sys, time, torch
torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                            torch.nn.ReLU(), torch.nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))
loss_fn = torch.nn.CrossEntropyLoss()
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()
EOF

echo "rocsys-top whole-stack benchmark: $runs rounds"
machine_info
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# whole_line DIR OUT: "whole% joined% truncated dropped fe% unwind" of a recording and its frames.
whole_line() {
    local last
    last=$(status_lines "$2" | tail -n 1)
    awk -v joined="$(field_after "$last" 'joined')" -v dropped="$(field_after "$last" 'dropped')" \
        -v fe="$(field_after "$last" 'front end')" -v uw="$(field_after "$last" 'unwind')" '
        { n = split($1, f, ";"); t += $NF; if (f[2] == "[truncated]") c += $NF }
        END { if (!t) t = 1
              printf "%7.1f %8.1f %9d %8s %6s %7s\n", 100 * (t - c) / t, 100 * joined / t, c,
                     dropped, fe, uw }' "$1/stacks.folded"
}

parts=${BENCH_PARTS:-1 2}
if [[ " $parts " == *" 1 "* ]]; then
echo "== 1. completeness: 1000 Hz, --engine perf --python off, ${secs} s each =="
printf '%-8s %6s %4s %7s %8s %9s %8s %6s %7s\n' program stack join whole% joined% truncated \
    dropped fe% unwind
programs=(deep)
((have_torch)) && programs+=(torch torch-p)
for prog in "${programs[@]}"; do
    for size in 8192 16384 32768 65528; do
        for join in 0 1; do
            d=$tmp/c-$prog-$size-$join
            export ROCSYS_PERF_STACK=$size ROCSYS_PERF_JOIN=$join
            case $prog in
            deep) "$rocsys_top" -b -d 10 -f 1000 --engine perf --python off --record "$d" \
                -- "$deep" 300 "$secs" >"$d.out" 2>&1 || true ;;
            torch) "$rocsys_top" -b -d 10 -f 1000 --engine perf --python off --record "$d" \
                -- /usr/bin/python3 "$tmp/train.py" "$secs" >"$d.out" 2>&1 || true ;;
            torch-p)
                /usr/bin/python3 "$tmp/train.py" $((secs + 3)) &
                pid=$!
                sleep 2 # (imports)
                "$rocsys_top" -b -d 10 -f 1000 -n "$secs" -p "$pid" --record "$d" >"$d.out" \
                    2>&1 || true
                wait "$pid" || true
                ;;
            esac
            unset ROCSYS_PERF_STACK ROCSYS_PERF_JOIN
            if [[ -s $d/stacks.folded ]]; then
                printf '%-8s %6s %4s %s\n' "$prog" "$size" "$join" "$(whole_line "$d" "$d.out")"
            else
                printf '%-8s %6s %4s FAILED\n' "$prog" "$size" "$join"
            fi
            rm -rf "$d"
        done
    done
done
echo
fi
[[ " $parts " == *" 2 "* ]] || exit 0

# Part 2: fixed work, side by side.
variants=(bare rt-8192 rt-65528)
((have_dwarf)) && variants+=(dwarf-8192 dwarf-65528)
rec() { echo "$1 $2 $3 $4" >>"$tmp/results"; }

# Run variant $1 in round $2 and record its figures.
run_variant() {
    local v=$1 r=$2 base=$tmp/$1.$2 rc=0 cmd=() size=${1#*-}
    rm -f "$base.report"
    case $v in
    bare) cmd=("$deep" 300) ;;
    rt-*) cmd=(env ROCSYS_PERF_STACK="$size" "$rocsys_top" -b -d 10 -f 1000 --engine perf
        -- "$deep" 300) ;;
    dwarf-*) cmd=(perf record -e task-clock -F 1000 --call-graph "dwarf,$size" --user-callchains
        -o "$tmp/perf.data" -- "$deep" 300) ;;
    esac
    TP_DEEP_DESCENTS=$desc TP_BENCH_REPORT=$base.report "$timeit" -o "$base.time" "${cmd[@]}" \
        >"$base.out" 2>"$base.log" || rc=$?
    rm -f "$tmp/perf.data" "$tmp/perf.data.old"
    if [[ $rc -ne 0 || ! -s $base.report ]]; then
        note "$v failed in round $r (status $rc)"
        tail -n 3 "$base.log" | sed 's/^/    /' >&2
        return 0
    fi
    local tw tc w u s last samples=- lost=-
    read -r tw tc <"$base.report"
    read -r w u s _ <"$base.time"
    rec "$v" "$r" twall "$tw"
    rec "$v" "$r" tcpu "$tc"
    rec "$v" "$r" fe "$(awk -v a="$u" -v b="$s" -v c="$tc" 'BEGIN { printf "%.6f", a + b - c }')"
    case $v in
    rt-*)
        last=$(status_lines "$base.out" | tail -n 1)
        samples=$(field_after "$last" 'samples')
        lost=$(field_after "$last" 'dropped')
        ;;
    dwarf-*)
        samples=$(grep -oE '\(([0-9]+) samples\)' "$base.log" | grep -oE '[0-9]+' | tail -n 1 ||
            true)
        lost=$(grep -oE 'lost [0-9]+' "$base.log" | awk '{ n += $2 } END { print n + 0 }' || true)
        ;;
    esac
    rec "$v" "$r" samples "${samples:--}"
    rec "$v" "$r" lost "${lost:--}"
}

echo "== 2. cost: TP_DEEP_DESCENTS=$desc tp_deep_stack 300, $runs rounds =="
for ((r = 1; r <= runs; r++)); do
    n=${#variants[@]}
    for ((k = 0; k < n; k++)); do
        run_variant "${variants[$(((k + r - 1) % n))]}" "$r"
    done
done
med() {
    awk -v v="$1" -v k="$2" '$1 == v && $3 == k && $4 != "-" { print $4 }' "$tmp/results" |
        median
}
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b == 0)
                                          print "-"; else printf "%.3f", a / b }'
}
printf '%-12s %8s %7s %8s %7s %8s %8s %7s\n' variant tcpu_s cpu_x twall_s wall_x fe_cpu_s \
    samples lost
bc=$(med bare tcpu) bw=$(med bare twall)
for v in "${variants[@]}"; do
    printf '%-12s %8s %7s %8s %7s %8s %8s %7s\n' "$v" "$(med "$v" tcpu)" \
        "$(ratio "$(med "$v" tcpu)" "$bc")" "$(med "$v" twall)" "$(ratio "$(med "$v" twall)" "$bw")" \
        "$(med "$v" fe)" "$(med "$v" samples)" "$(med "$v" lost)"
done
echo
echo "== ratios =="
for size in 8192 65528; do
    line="  stack $size: target CPU rocsys-top/bare $(ratio "$(med "rt-$size" tcpu)" "$bc")"
    if ((have_dwarf)); then
        line+=", perf-record/bare $(ratio "$(med "dwarf-$size" tcpu)" "$bc")"
        line+=", rocsys-top/perf-record $(ratio "$(med "rt-$size" tcpu)" "$(med "dwarf-$size" tcpu)")"
        line+="; profiler CPU rocsys-top/perf-record $(ratio "$(med "rt-$size" fe)" "$(med "dwarf-$size" fe)")"
    fi
    echo "$line"
done
echo "($(cut -d' ' -f1-3 /proc/loadavg) load average at end)"
