#!/usr/bin/env bash
# End-to-end: causal profiling of a latency point (rocsys_user_begin / rocsys_user_end, Little's
# law) on a single-threaded server loop (tests/programs/tp_causal_latency.c): a request runs
# serve_request (60 % of it) then send_reply (40 %); think runs between requests, as long as a
# request. The latency predicted at 100 % must be serve_request's share of the request (which
# the program measures itself) within 10 points, and think's must stay within 10 points of 0
# (a throughput point would give think half the time: the test tells the two apart). 10
# points (20 in a sanitizer build), not 3: single 30 s runs spread so far on the loaded 2-core
# development machine (see docs/causal.md). The recording's profile.coz has latency-point lines.
# The program first ends a request it never began ("stray-end"), as a request begun before the
# collector knew the process looked: counted, that end left the count in flight one low, and no
# experiment counted for the whole run (1 run in 8-15 under load, when the front end named the
# process after its exec).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/causal_lib.sh"
L="$TP/tp_causal_latency"
[ -x "$L" ] || skip "tp_causal_latency not built"

causal_run latency "$L" 30 100 stray-end
share=$(awk '/^latency:/{for (i=1;i<=NF;i++) if ($i=="serve_request") print 100*$(i+1)}' \
    "$WORK/latency.log")
check "the program measured serve_request's share of a request ('$share')" test -n "$share"
check "the Causal section measures the latency point" \
    grep -q '^== Causal profile: progress latency from rocsys_user_begin' "$WORK/latency.last"
causal_rows latency | sed 's/^/  /'
if [ -z "$(causal_rows latency)" ]; then # (rare: the Causal section as it was, to tell why)
    echo "  no rows: the last frame's Causal section and the run's stderr:"
    awk '/^== Causal profile/{c=1} /^== /&&!/^== Causal/{c=0} c' "$WORK/latency.last" |
        head -30 | sed 's/^/    /'
    head -c 1000 "$WORK/latency.err" | sed 's/^/    /'
fi
serve=$(causal_field latency serve_request 3) serve_ci=$(causal_field latency serve_request 4)
think=$(causal_field latency think 3) think_ci=$(causal_field latency think 4)
echo "latency predicted at 100 %: serve_request $serve +- $serve_ci (share $share)," \
    "think $think +- $think_ci (truth 0)"
# a method that ignores what was in flight during the delays predicts serve's share of the
# whole loop (30) and think's (50)
tol=10
causal_sanitized && tol=20 # (see causal_lib.sh)
check "serve_request: latency prediction at 100 % ($serve) is its share ($share) within $tol" \
    within "$serve" "$share" "$tol"
check "think (outside the requests): latency prediction at 100 % ($think) within 10 of 0" \
    within "$think" 0 10
check "profile.coz has latency-point lines" \
    grep -q $'^latency-point\tname=.*\tarrivals=[0-9]*\tdepartures=[0-9]*\tdifference=' \
    "$WORK/latency.rec/profile.coz"
finish
