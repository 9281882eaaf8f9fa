#!/usr/bin/env bash
# End-to-end: causal profiling with a GPU kernel's completions as the progress point
# (--progress kernel:NAME), the truth test on a GPU pipeline played by the in-tree HSA harness
# (tp_hsa_harness causal, tests/programs/hsa_harness_causal.c; no machine here has an AMD GPU:
# the completions come through the collector's HSA dispatch timing and the harness's
# async-events thread, as ROCr delivers them, not from hardware). The main thread feeds the
# kernel saxpy_c: feed_kernel (60 % of its host work) and pack_args (40 %) per batch, then one
# dispatch; a second thread runs post_process per batch (10 % of the feeder's time: room to
# spare). Making feed_kernel X % faster makes the kernel complete 0.6 X % more often, pack_args
# 0.4 X %, post_process nothing. Checked: the completions counted are the program's own count
# (all of them, less those before the kernel's name was known); the feeder's curves rise (their
# fitted line's 95 % interval excludes 0), feed_kernel's prediction at 100 % is 20 points above
# post_process's at least, post_process's line stays flat within 3 points at 20 % and 5 at 50 %
# (the same bounds as test_causal's pipeline; predictions against the truth are printed); a
# kernel no executable has is said in the Causal section, and no experiment runs.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/causal_lib.sh"
H="$TP/tp_hsa_harness"
[ -x "$H" ] || skip "tp_hsa_harness not built"

# a sanitizer build: longer (its collector's work per dispatch and per sample makes the
# experiments noisier: one run's 95 % intervals were 18-24 points wide at 40 s) and flat within
# 5 and 8 points (see causal_lib.sh)
secs=40 flat20=3 flat50=5
causal_sanitized && secs=60 flat20=5 flat50=8
CAUSAL_OPTS="--progress kernel:saxpy_c" causal_run gpu "$H" causal "$secs"
read -r batches completed < <(awk '/^causal: batches/{print $3, $5}' "$WORK/gpu.log")
check "the GPU pipeline ran, every dispatch completed ($completed of $batches)" \
    test -n "$batches" -a "$batches" = "$completed"
check "the header names the kernel's completions" \
    grep -q "^== Causal profile: progress completions of kernel saxpy_c (" "$WORK/gpu.last"
reached=$(causal_reached gpu)
check "completions counted ($reached) of the program's $completed: at most, 95 % at least" \
    awk -v r="$reached" -v n="$completed" 'BEGIN{exit !(r != "" && n > 0 && r <= n && r >= 0.95 * n)}'
causal_rows gpu | sed 's/^/  /'
for fn in feed_kernel pack_args post_process; do
    n=$(causal_field gpu "$fn" 5)
    check "$fn: experiments ran ($n)" test "${n:-0}" -ge 6
done
feed100=$(causal_field gpu feed_kernel 3) feed_ci=$(causal_field gpu feed_kernel 4)
pack100=$(causal_field gpu pack_args 3) pack_ci=$(causal_field gpu pack_args 4)
post100=$(causal_field gpu post_process 3)
echo "predicted at 100 %: feed_kernel $feed100 +- $feed_ci (60), pack_args $pack100 +- $pack_ci (40), post_process $post100 (0)"
check "feed_kernel's curve rises: $feed100 +- $feed_ci excludes 0" \
    awk -v v="$feed100" -v c="$feed_ci" 'BEGIN{exit !(v != "" && v - c > 0)}'
check "pack_args's curve rises: $pack100 +- $pack_ci excludes 0" \
    awk -v v="$pack100" -v c="$pack_ci" 'BEGIN{exit !(v != "" && v - c > 0)}'
check "feed_kernel's prediction at 100 % ($feed100) is 20 points above post_process's ($post100) at least" \
    awk -v a="$feed100" -v b="$post100" 'BEGIN{exit !(a != "" && b != "" && a - b >= 20)}'
p20=$(awk -v v="$post100" 'BEGIN{print v / 5}') p50=$(awk -v v="$post100" 'BEGIN{print v / 2}')
check "post_process stays flat: $p20 at 20 % within $flat20 points of 0" within "$p20" 0 "$flat20"
check "post_process stays flat: $p50 at 50 % within $flat50 points of 0" within "$p50" 0 "$flat50"
coz="$WORK/gpu.rec/profile.coz"
nexp=$(grep -c $'^experiment\tselected=' "$coz" || true)
check "profile.coz: the experiments ($nexp)" test "${nexp:-0}" -gt 10

# a kernel that no executable of the program has: said, and nothing runs
CAUSAL_OPTS="--progress kernel:no_such_kernel" causal_run none "$H" causal 13
check "no such kernel: said in the Causal section" \
    grep -q "progress kernel:no_such_kernel: no GPU kernel of that name was loaded" "$WORK/none.last"
check "no such kernel: no experiment ran" \
    grep -q "^== Causal profile: .* 0 experiments" "$WORK/none.last"
finish
