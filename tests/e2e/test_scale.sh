#!/usr/bin/env bash
# Many distinct stacks: profile.txt stays a file for people (hot functions first, call-tree
# nodes below 0.5 % folded into "... N more below" rows, under 1 MB) while stacks.folded keeps
# every stack; --profile-min 0 writes every node; the sample counts agree between the files.
source "$(dirname "$0")/lib.sh"

R="$WORK/many"
"$ROCSYS_TOP" -b -d 600 -n 100 --rows 5 -f 10000 --record "$R" -- "$TP/tp_many_stacks" 30000 4 2 \
    > "$WORK/many.txt" 2>&1 || true
stacks=$(wc -l < "$R/stacks.folded")
bytes=$(stat -c %s "$R/profile.txt")
echo "    $stacks stacks in stacks.folded, profile.txt $bytes bytes"
# (30,000 paths in each of 2 threads: samples fewer than that mostly take paths not seen yet;
# how many samples there are depends on the CPU the target got, on a busy machine few)
samples=$(grep -o '"samples": [0-9]*' "$R/session.json" | grep -o '[0-9]*$')
check "stacks.folded keeps the distinct stacks: $stacks of $samples samples (at least half, 1000)" \
    test "$stacks" -ge 1000 -a "$((stacks * 2))" -ge "$((samples < 60000 ? samples : 60000))"
check "profile.txt under 1 MB ($bytes bytes)" test "$bytes" -lt 1000000
first=$(grep -m1 '^== ' "$R/profile.txt")
check "profile.txt leads with the hot functions ($first)" grep -q '^== Hot functions: all threads' <<<"$first"
check "profile.txt folds small nodes into '... N more below 0.5 %' rows" \
    grep -Eq '\|_\.\.\. [0-9]+ more below 0\.5 % +\| +[0-9]+ \|' "$R/profile.txt"
# the folded rows keep the totals: each thread's root rows sum to its samples
bad=$(awk -F'|' '
    /^== Thread/ { if (want != "" && got != want) bad++; want = $0; sub(/.*: /, "", want); sub(/ samples.*/, "", want); got = 0; next }
    /^\| \|[0-9][0-9]>>> \|_/ { n = $5; d = $6; gsub(/ /, "", n); gsub(/ /, "", d); if (d == "0") got += n }
    END { if (want != "" && got != want) bad++; print bad + 0 }' "$R/profile.txt")
check "profile.txt: depth-0 rows add up to each thread's samples ($bad threads do not)" test "$bad" -eq 0
leaf=$(awk '{ s += $NF } END { print s }' "$R/stacks.folded")
hot=$(awk -F'|' '/^== Hot functions: all threads/ { sub(/.*\(/, ""); sub(/ samples.*/, ""); print; exit }' "$R/profile.txt")
check "stacks.folded and profile.txt count the same samples ($leaf, $hot)" test "$leaf" = "$hot"

# --profile-min 0: every node, no size limit
R0="$WORK/many0"
"$ROCSYS_TOP" -b -d 600 -n 100 --rows 5 -f 10000 --profile-min 0 --record "$R0" -- \
    "$TP/tp_many_stacks" 3000 2 2 > "$WORK/many0.txt" 2>&1 || true
check "--profile-min 0: no folded rows" bash -c "! grep -q 'more below' '$R0/profile.txt'"
n0=$(grep -c '|_many_leaf ' "$R0/profile.txt" || true)
f0=$(grep -c ';many_leaf ' "$R0/stacks.folded" || true)
check "--profile-min 0: a tree row for every leaf stack ($n0 rows, $f0 stacks)" test "$n0" -eq "$f0"
finish
