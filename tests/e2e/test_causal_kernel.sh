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
echo "the program: $(grep "^causal:" "$WORK/gpu.log")"
read -r batches completed < <(awk '/^causal: batches/{print $3, $5}' "$WORK/gpu.log")
check "the GPU pipeline ran, every dispatch completed ($completed of $batches)" \
    test -n "$batches" -a "$batches" = "$completed"
check "the header names the kernel's completions" \
    grep -q "^== Causal profile: progress completions of kernel saxpy_c (" "$WORK/gpu.last"
reached=$(causal_reached gpu)
check "completions counted ($reached) of the program's $completed: at most, 95 % at least" \
    awk -v r="$reached" -v n="$completed" 'BEGIN{exit !(r != "" && n > 0 && r <= n && r >= 0.95 * n)}'
causal_rows gpu | sed 's/^/  /'
causal_check_pipeline gpu feed_kernel pack_args post_process "$flat20" "$flat50"
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
