# Shared by the causal-profiling tests (sourced after lib.sh).
# causal_run NAME PROGRAM ARGS...: PROGRAM under rocsys-top --causal with batch frames
# in $WORK/NAME.txt (last frame in $WORK/NAME.last), its output in $WORK/NAME.log and a recording
# in $WORK/NAME.rec (extra rocsys-top options in CAUSAL_OPTS)
causal_run() {
    local name=$1 rc=0; shift
    local extra
    read -ra extra <<< "${CAUSAL_OPTS:-}"
    "$ROCSYS_TOP" --causal -b -d 20 --rows 0 "${extra[@]}" --output-log "$WORK/$name.log" \
        --record "$WORK/$name.rec" -- "$@" > "$WORK/$name.txt" 2> "$WORK/$name.err" || rc=$?
    check "$name: exit 0 (got $rc: $(head -c 300 "$WORK/$name.err"))" test "$rc" -eq 0
    last_frame "$WORK/$name.txt" > "$WORK/$name.last"
}
# causal_rows NAME: the function rows of the Causal section of NAME's last frame
causal_rows() {
    awk '/^== Causal profile/{c=1; next} /^== /{c=0} c && /%/ && !/gain@20/' "$WORK/$1.last"
}
# causal_field NAME FUNCTION COLUMN: 1 gain at 20 %, 2 its interval, 3 gain at 100 % (the fitted
# line), 4 its interval, 5 experiments (percent signs dropped); empty when FUNCTION has no row
causal_field() {
    causal_rows "$1" | awk -v fn="$2" -v c="$3" '$(NF-1)==fn {v=$c; sub(/%$/, "", v); print v; exit}'
}
# causal_reached NAME: how often the progress point was reached, from the Causal section's title
causal_reached() {
    sed -n 's/^== Causal profile: .*(\([0-9]*\) reached).*/\1/p' "$WORK/$1.last"
}
# causal_sanitized: true in a sanitizer build (its collector's handler and progress points cost
# several times more: measured there, test_causal_single's cold_part came out 6.6 points low and
# test_causal_latency's serve_request 17.7, where the plain build is within 3)
causal_sanitized() {
    grep -Eq '^ROCSYS_SANITIZE:BOOL=ON' "$(dirname "$ROCSYS_TOP")/CMakeCache.txt" 2> /dev/null
}
# causal_check_pipeline NAME MAIN REST OFF FLAT20 FLAT50: the checks of a pipeline whose first
# stage (MAIN, 60 % of its work, and REST, 40 %) limits the throughput and whose function OFF
# (off the critical path) does not matter: each has had experiments; MAIN's and REST's curves
# rise (their fitted line's 95 % interval excludes 0); MAIN's prediction at 100 % is 20 points
# above OFF's at least; OFF's line stays flat within FLAT20 points at 20 % and FLAT50 at 50 %.
# The predictions against the truth are printed.
causal_check_pipeline() {
    local name=$1 main=$2 rest=$3 off=$4 flat20=$5 flat50=$6 fn n
    for fn in "$main" "$rest" "$off"; do
        n=$(causal_field "$name" "$fn" 5)
        check "$fn: experiments ran ($n)" test "${n:-0}" -ge 6
    done
    local main100 main_ci rest100 rest_ci off100 off20 off50
    main100=$(causal_field "$name" "$main" 3) main_ci=$(causal_field "$name" "$main" 4)
    rest100=$(causal_field "$name" "$rest" 3) rest_ci=$(causal_field "$name" "$rest" 4)
    off100=$(causal_field "$name" "$off" 3)
    echo "predicted at 100 %: $main $main100 +- $main_ci (60), $rest $rest100 +- $rest_ci (40), $off $off100 (0)"
    check "$main's curve rises: $main100 +- $main_ci excludes 0" \
        awk -v v="$main100" -v c="$main_ci" 'BEGIN{exit !(v != "" && v - c > 0)}'
    check "$rest's curve rises: $rest100 +- $rest_ci excludes 0" \
        awk -v v="$rest100" -v c="$rest_ci" 'BEGIN{exit !(v != "" && v - c > 0)}'
    check "$main's prediction at 100 % ($main100) is 20 points above $off's ($off100) at least" \
        awk -v a="$main100" -v b="$off100" 'BEGIN{exit !(a != "" && b != "" && a - b >= 20)}'
    off20=$(awk -v v="$off100" 'BEGIN{print v / 5}') off50=$(awk -v v="$off100" 'BEGIN{print v / 2}')
    check "$off stays flat: $off20 at 20 % within $flat20 points of 0" within "$off20" 0 "$flat20"
    check "$off stays flat: $off50 at 50 % within $flat50 points of 0" within "$off50" 0 "$flat50"
}
