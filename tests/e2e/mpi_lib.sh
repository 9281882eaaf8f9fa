# Shared by the MPI truth tests (sourced after lib.sh): reading what the ranks measured of
# themselves and what rocsys-top wrote per rank.
# truth FILE RANK KEY: the value after KEY on the rank's MPITRUTH line
truth() { awk -v r="$2" -v k="$3" '$1=="MPITRUTH" && $3==r { for (i=4;i<NF;i++) if ($i==k) print $(i+1) }' "$1" | head -1; }
# csv FILE CALL COLUMN: a column (1-based) of CALL's row of mpi.csv
csv() { awk -F, -v c="\"$2\"" -v k="$3" '$1==c {print $k}' "$1"; }
# pct PART WHOLE: 100 x PART / WHOLE
pct() { awk -v p="$1" -v w="$2" 'BEGIN { if (w > 0) printf "%.3f", 100 * p / w }'; }
