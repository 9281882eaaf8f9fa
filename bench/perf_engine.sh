#!/usr/bin/env bash
# The perf engine's cost (--engine perf), side by side with the signal engine and perf record.
#
# usage: bench/perf_engine.sh BUILD_DIR [RUNS]
#
# RUNS rounds (default 3); in each round the variants of a group run one after the other, the
# first one rotating from round to round, so that slow drifts of the machine hit all alike.
#
# 1. CPU mode, 1 and 16 threads, 1000 Hz, ~36-frame stacks: tp_deep_work T 32 UNITS, a FIXED
#    amount of work (UNITS units of ~0.5 ms split among T threads, at the bottom of 32 levels
#    of recursion through two functions) in each of
#      bare     the program alone
#      perf     rocsys-top -b -d 10 -f 1000 --engine perf (per-CPU task-clock events; the kernel
#               copies registers + 8 KiB of stack per sample, rocsys-top unwinds them)
#      signal   rocsys-top -b -d 10 -f 1000 --engine signal --cpu-timer perf (a perf event per
#               thread raises a signal; the handler in the target unwinds with libunwind)
#      dwarf    perf record -F 1000 --call-graph dwarf (8 KiB of stack per sample, as perf)
#    and the same four with 1 unit per thread ("start-up": fixed costs, almost no samples).
#    Per variant and round: the target's own CPU and wall time (getrusage in the target), the
#    profiler's own CPU (= user+sys of the whole command, from wait4, minus the target's own),
#    the samples (rocsys-top's last batch frame; perf record's "(N samples)").
#    target ns/sample    = (target CPU - bare target CPU) / samples
#    front end ns/sample = profiler's own CPU / samples
#    marginal            = the same after subtracting the start-up run's figures of the round
#    front end % core    = profiler's own CPU / (target CPU / min(T, CPUs)): the share of one
#               core it takes while the target keeps min(T, CPUs) CPUs busy (load-independent;
#               "hdr%" is rocsys-top's own "front end X% cpu", which a loaded machine lowers)
# 2. The front end's CPU % for 16 threads with --engine perf (goal: <= 5 % of a core).
# 3. Wall mode with many mostly-blocked threads: tp_blocked_many (200 threads x 600 rounds of
#    nanosleep 5 ms + ~10 us of work: fixed work) bare, under rocsys-top --sample wall --engine
#    perf, and under --sample wall --engine signal (reference; BENCH_WALL_SIGNAL=0 skips it):
#    target slowdown (wall, CPU), context switches/s, front end CPU, samples, dropped.
#
# Environment: BENCH_UNITS (units of part 1, default 6000: ~3 s of CPU), BENCH_BLOCKED
# (tp_blocked_many's arguments, default "200 600 5000 4000"), BENCH_WALL_SIGNAL=0|1,
# BENCH_KEEP=1 keeps the work directory (per-run timings, batch frames, logs, and "results":
# one line per figure, VARIANT ROUND KEY VALUE). About 2-4 minutes at RUNS=3 on 2 CPUs.
# See docs/performance.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

bench_args "BUILD_DIR [RUNS]" 1 2 "$@"
runs=${2:-3}
positive_int RUNS "$runs"
units=${BENCH_UNITS:-6000}
positive_int BENCH_UNITS "$units"
read -r -a blocked_args <<<"${BENCH_BLOCKED:-200 600 5000 4000}"
wall_signal=${BENCH_WALL_SIGNAL:-1}

bench_rocsys_top
deep=$(find_program "$build" tp_deep_work)
blocked=$(find_program "$build" tp_blocked_many)
timeit=$(find_program "$build" tp_timeit)
ncpu=$(nproc)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocsys-perfeng.XXXXXX")
if [[ ${BENCH_KEEP:-0} == 1 ]]; then
    note "keeping work directory $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi

have_dwarf=0
perf_works "$tmp" && have_dwarf=1

# Groups of variants (GROUP-ENGINE); the variants of a group alternate within each round.
engines=(bare perf signal)
((have_dwarf)) && engines+=(dwarf)
groups=(c1 c16 fix)
wall_variants=(w-bare w-perf)
[[ $wall_signal == 1 ]] && wall_variants+=(w-signal)

# Threads and units of a part-1 group.
group_threads() { case $1 in c1) echo 1 ;; *) echo 16 ;; esac; }
group_units() { case $1 in fix) echo 16 ;; *) echo "$units" ;; esac; }

# rec VARIANT ROUND KEY VALUE: one measured figure.
rec() { echo "$1 $2 $3 $4" >>"$tmp/results"; }

# Run variant $1 in round $2; records its figures. Returns 1 when it failed.
run_variant() {
    local v=$1 r=$2 rc=0 group=${1%%-*} engine=${1#*-} base=$tmp/$1.$2
    local cmd=() prog=()
    rm -f "$base.report"
    if [[ $group == w ]]; then
        prog=("$blocked" "${blocked_args[@]}")
    else
        prog=("$deep" "$(group_threads "$group")" 32 "$(group_units "$group")")
    fi
    case $engine in
    bare) cmd=("${prog[@]}") ;;
    perf | signal)
        cmd=("$rocsys_top" -b -d 10 -f 1000 --engine "$engine")
        if [[ $group == w ]]; then
            cmd+=(--sample wall)
        elif [[ $engine == signal ]]; then
            cmd+=(--cpu-timer perf)
        fi
        cmd+=(-- "${prog[@]}")
        ;;
    dwarf) cmd=(perf record --call-graph dwarf -F 1000 -o "$tmp/perf.data" -- "${prog[@]}") ;;
    esac
    TP_BENCH_REPORT=$base.report "$timeit" -o "$base.time" "${cmd[@]}" >"$base.out" \
        2>"$base.log" || rc=$?
    rm -f "$tmp/perf.data" "$tmp/perf.data.old"
    if [[ $rc -ne 0 || ! -s $base.report || ! -s $base.time ]]; then
        note "$v failed in round $r (status $rc); its output:"
        tail -n 5 "$base.log" | sed 's/^/    /' >&2
        return 1
    fi
    local tw tu ts ctx w u s samples=- dropped=- fehdr=- cost=- last
    read -r tw tu ts ctx <"$base.report"
    read -r w u s _ <"$base.time"
    rec "$v" "$r" twall "$tw"
    rec "$v" "$r" tcpu "$(awk -v a="$tu" -v b="$ts" 'BEGIN { printf "%.6f", a + b }')"
    rec "$v" "$r" ctx "$ctx"
    rec "$v" "$r" wall "$w"
    rec "$v" "$r" fe "$(awk -v a="$u" -v b="$s" -v c="$tu" -v d="$ts" \
        'BEGIN { printf "%.6f", (a + b) - (c + d) }')"
    case $engine in
    perf | signal)
        last=$(status_lines "$base.out" | tail -n 1)
        samples=$(field_after "$last" 'samples')
        dropped=$(field_after "$last" 'dropped')
        fehdr=$(field_after "$last" 'front end')
        cost=$(field_after "$last" 'sample cost')
        [[ $engine == perf ]] && rec "$v" "$r" unwind "$(field_after "$last" 'unwind')"
        ;;
    dwarf)
        samples=$(grep -oE '\(([0-9]+) samples\)' "$base.log" | grep -oE '[0-9]+' | tail -n 1)
        dropped=$(grep -oE 'lost [0-9]+' "$base.log" | grep -oE '[0-9]+' |
            awk '{ n += $1 } END { print n + 0 }')
        ;;
    esac
    rec "$v" "$r" samples "${samples:--}"
    rec "$v" "$r" dropped "${dropped:--}"
    rec "$v" "$r" fehdr "$fehdr"
    rec "$v" "$r" cost "$cost"
    return 0
}

# run_group ROUND VARIANT...: the variants once each, the first one rotating with the round.
run_group() {
    local r=$1 n k v line
    shift
    n=$#
    local vs=("$@")
    line="  "
    for ((k = 0; k < n; k++)); do
        v=${vs[$(((k + r - 1) % n))]}
        if run_variant "$v" "$r"; then
            line+=" $v $(awk '{ printf "%.2f", $1 }' "$tmp/$v.$r.time")s"
        else
            line+=" $v FAILED"
        fi
    done
    echo "$line"
}

echo "rocsys-top perf engine benchmark: $runs rounds"
echo "  part 1: tp_deep_work {1,16} 32 $units (and 16 32 16 for start-up), 1000 Hz"
echo "  part 3: tp_blocked_many ${blocked_args[*]}"
machine_info
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "engines: ${engines[*]}; wall mode: ${wall_variants[*]}"
echo
start_s=$SECONDS
for ((r = 1; r <= runs; r++)); do
    echo "round $r/$runs:"
    for g in "${groups[@]}"; do
        gv=()
        for e in "${engines[@]}"; do gv+=("$g-$e"); done
        run_group "$r" "${gv[@]}"
    done
    run_group "$r" "${wall_variants[@]}"
done
echo "($((SECONDS - start_s)) s of runs; load average at end: $(cut -d' ' -f1-3 /proc/loadavg))"
echo

# med VARIANT KEY: the median over rounds of a recorded figure ("-" if none).
med() {
    awk -v v="$1" -v k="$2" '$1 == v && $3 == k && $4 != "-" { print $4 }' "$tmp/results" |
        median
}

# per_round EXPR VARIANT BASE FIXV FIXB: the median over rounds of EXPR, an awk expression of
# the round's figures of VARIANT (tc, fe, n = samples), BASE (btc), FIXV (ftc, ffe) and FIXB
# (fbtc); rounds missing a figure the expression needs are left out.
per_round() {
    awk -v v="$2" -v b="${3:-}" -v fv="${4:-}" -v fb="${5:-}" '
        $4 == "-" { next }
        $1 == v && $3 == "tcpu" { tc[$2] = $4 } $1 == v && $3 == "fe" { fe[$2] = $4 }
        $1 == v && $3 == "samples" { n[$2] = $4 }
        $1 == b && $3 == "tcpu" { btc[$2] = $4 }
        $1 == fv && $3 == "tcpu" { ftc[$2] = $4 } $1 == fv && $3 == "fe" { ffe[$2] = $4 }
        $1 == fb && $3 == "tcpu" { fbtc[$2] = $4 }
        END {
            for (r in tc) {
                if (!(r in n) || n[r] <= 0) continue
                if (b != "" && !(r in btc)) continue
                if (fv != "" && (!(r in ftc) || !(r in fbtc))) continue
                print '"$1"'
            }
        }' "$tmp/results" | median
}

# fmt VALUE DECIMALS: a number or "-".
fmt() {
    awk -v a="$1" -v d="${2:-3}" 'BEGIN { if (a == "-" || a == "") print "-"; else printf "%.*f", d, a }'
}
# ratio A B: a / b, 3 decimals, or "-".
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b == 0)
                                          print "-"; else printf "%.3f", a / b }'
}

echo "== 1. CPU mode, 1000 Hz, ~36-frame stacks: medians over $runs rounds =="
echo "  tcpu_s/twall_s: the target's own CPU / wall time; ratios against bare"
echo "  fe_cpu_s: the profiler's own CPU (user+sys of the command minus the target's)"
echo "  tgt_ns/s, fe_ns/s: per sample, all-in; marg: minus the round's start-up run (16 32 16)"
echo "  fe_%core: fe_cpu / (tcpu / min(T, $ncpu CPUs)); hdr%: rocsys-top's 'front end' figure"
echo "  coll_ns: the signal collector's own sample cost (median of its last frame)"
row='%-10s %8s %7s %7s %7s %8s %8s %8s %8s %8s %8s %7s %6s %7s %7s\n'
# shellcheck disable=SC2059 # the format is the variable
printf "$row" variant tcpu_s cpu_x twall_x fe_cpu_s samples dropped tgt_ns/s tgt_marg \
    fe_ns/s fe_marg fe_%core hdr% coll_ns smp/cpus
for g in c1 c16 fix; do
    nt=$(group_threads "$g")
    busy=$((nt < ncpu ? nt : ncpu))
    for e in "${engines[@]}"; do
        v=$g-$e
        tc=$(med "$v" tcpu)
        tgt=- tgtm=- fens=- fem=- fepct=- smp=- drop=- rate=-
        if [[ $e != bare ]]; then # (the start-up runs' per-sample figures mean nothing)
            smp=$(med "$v" samples)
            drop=$(med "$v" dropped)
            if [[ $g != fix ]]; then
                rate=$(fmt "$(per_round 'n[r] / tc[r]' "$v")" 0)
                tgt=$(per_round '(tc[r] - btc[r]) / n[r] * 1e9' "$v" "$g-bare")
                fens=$(per_round 'fe[r] / n[r] * 1e9' "$v")
                fepct=$(per_round "fe[r] / (tc[r] / $busy) * 100" "$v")
                tgtm=$(per_round '((tc[r] - btc[r]) - (ftc[r] - fbtc[r])) / n[r] * 1e9' \
                    "$v" "$g-bare" "fix-$e" fix-bare)
                fem=$(per_round '(fe[r] - ffe[r]) / n[r] * 1e9' "$v" "" "fix-$e" fix-bare)
            fi
        fi
        # shellcheck disable=SC2059
        printf "$row" "$v" "$(fmt "$tc")" "$(ratio "$tc" "$(med "$g-bare" tcpu)")" \
            "$(ratio "$(med "$v" twall)" "$(med "$g-bare" twall)")" \
            "$(fmt "$(med "$v" fe)")" "$(fmt "$smp" 0)" "$(fmt "$drop" 0)" \
            "$(fmt "$tgt" 0)" "$(fmt "$tgtm" 0)" "$(fmt "$fens" 0)" "$(fmt "$fem" 0)" \
            "$(fmt "$fepct" 2)" "$(fmt "$(med "$v" fehdr)" 1)" "$(fmt "$(med "$v" cost)" 0)" \
            "$rate"
    done
done
echo "  (smp/cpus: samples per second of the target's CPU; 1000 when every sample is taken)"
echo

echo "== ratios (perf engine against the others) =="
for g in c1 c16; do
    nt=$(group_threads "$g")
    for k in tgt fe; do
        if [[ $k == tgt ]]; then
            expr='(tc[r] - btc[r]) / n[r] * 1e9' base=$g-bare what="target ns/sample"
        else
            expr='fe[r] / n[r] * 1e9' base="" what="front end ns/sample"
        fi
        p=$(per_round "$expr" "$g-perf" "$base")
        line="  $nt thread(s), $what: perf $(fmt "$p" 0)"
        for e in signal dwarf; do
            [[ " ${engines[*]} " == *" $e "* ]] || continue
            o=$(per_round "$expr" "$g-$e" "$base")
            line+=", $e $(fmt "$o" 0) (perf/$e $(ratio "$p" "$o"))"
        done
        echo "$line"
    done
    line="  $nt thread(s), target CPU slowdown: perf $(ratio "$(med "$g-perf" tcpu)" "$(med "$g-bare" tcpu)")"
    for e in signal dwarf; do
        [[ " ${engines[*]} " == *" $e "* ]] || continue
        line+=", $e $(ratio "$(med "$g-$e" tcpu)" "$(med "$g-bare" tcpu)")"
    done
    echo "$line"
done
echo

echo "== 2. front end CPU, 16 threads, 1000 Hz, --engine perf (goal <= 5 % of a core) =="
# verdict PCT: whether PCT meets the 5 % goal.
verdict() {
    awk -v a="$1" 'BEGIN { if (a == "-" || a == "") print "unknown"; else if (a <= 5) print "met";
                           else print "NOT met" }'
}
busy=$((16 < ncpu ? 16 : ncpu))
fe16=$(per_round "fe[r] / (tc[r] / $busy) * 100" c16-perf)
fe16m=$(per_round "(fe[r] - ffe[r]) / (tc[r] / $busy) * 100" c16-perf "" fix-perf fix-bare)
echo "  $(fmt "$fe16" 2) % of a core with all $busy CPUs busy in the target" \
    "($(fmt "$fe16m" 2) % without start-up/shut-down);" \
    "rocsys-top's own figure: $(fmt "$(med c16-perf fehdr)" 1) %;" \
    "goal: $(verdict "$fe16") all-in, $(verdict "$fe16m") without start-up"
echo "  unwinding: $(fmt "$(med c16-perf unwind)" 1) us/sample at 16 threads," \
    "$(fmt "$(med c1-perf unwind)" 1) us/sample at 1 thread (rocsys-top's own figure)"
echo

echo "== 3. wall mode, tp_blocked_many ${blocked_args[*]}: medians over $runs rounds =="
echo "  ctxsw/s: the target's context switches (getrusage) / its wall time"
echo "  fe_%core: the profiler's own CPU / the target's wall time"
echo "  tgt_us/sw, fe_us/sw: (target CPU - bare target CPU), profiler's CPU, per context switch"
wrow='%-10s %8s %7s %7s %7s %8s %9s %8s %9s %9s %8s %7s\n'
# shellcheck disable=SC2059
printf "$wrow" variant twall_s wall_x tcpu_s cpu_x ctxsw/s tgt_us/sw fe_cpu_s fe_us/sw fe_%core \
    samples dropped
for v in "${wall_variants[@]}"; do
    tw=$(med "$v" twall) tc=$(med "$v" tcpu)
    cs=$(awk -v v="$v" '$1 == v && $3 == "ctx" { c[$2] = $4 } $1 == v && $3 == "twall" { w[$2] = $4 }
        END { for (r in c) if (r in w && w[r] > 0) print c[r] / w[r] }' "$tmp/results" | median)
    fp=$(awk -v v="$v" '$1 == v && $3 == "fe" { f[$2] = $4 } $1 == v && $3 == "twall" { w[$2] = $4 }
        END { for (r in f) if (r in w && w[r] > 0) print f[r] / w[r] * 100 }' "$tmp/results" | median)
    smp=- drop=- fe=- tsw=- fsw=-
    if [[ $v != w-bare ]]; then
        smp=$(med "$v" samples) drop=$(med "$v" dropped) fe=$(med "$v" fe)
        tsw=$(awk -v v="$v" '$1 == v && $3 == "ctx" { c[$2] = $4 } $1 == v && $3 == "tcpu" { t[$2] = $4 }
            $1 == "w-bare" && $3 == "tcpu" { b[$2] = $4 } $1 == v && $3 == "fe" { f[$2] = $4 }
            END { for (r in c) if (r in t && r in b && c[r] > 0) print (t[r] - b[r]) / c[r] * 1e6 }' \
            "$tmp/results" | median)
        fsw=$(awk -v v="$v" '$1 == v && $3 == "ctx" { c[$2] = $4 } $1 == v && $3 == "fe" { f[$2] = $4 }
            END { for (r in c) if (r in f && c[r] > 0) print f[r] / c[r] * 1e6 }' "$tmp/results" |
            median)
    else
        fp=-
    fi
    # shellcheck disable=SC2059
    printf "$wrow" "$v" "$(fmt "$tw")" "$(ratio "$tw" "$(med w-bare twall)")" "$(fmt "$tc")" \
        "$(ratio "$tc" "$(med w-bare tcpu)")" "$(fmt "$cs" 0)" "$(fmt "$tsw" 2)" "$(fmt "$fe")" \
        "$(fmt "$fsw" 2)" "$(fmt "$fp" 2)" "$(fmt "$smp" 0)" "$(fmt "$drop" 0)"
done
