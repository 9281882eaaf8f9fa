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
