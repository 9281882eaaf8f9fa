#!/usr/bin/env bash
# The docs stay true to the code: every option of --help is in the man page and the README;
# the README's quick start is what CI runs; the recording's files, the views, the environment
# variables the code reads and the screenshots the README links are the ones that exist.
source "$(dirname "$0")/lib.sh"
: "${ROCSYS_SOURCE:?run through ctest}"
S=$ROCSYS_SOURCE
README=$S/README.md
MAN=$S/docs/rocsys-top.1
CONF=$S/docs/configuration.md
FORMATS=$S/docs/formats.md

for f in "$README" "$MAN" "$CONF" "$FORMATS" "$S/docs/architecture.md" "$S/docs/troubleshooting.md"; do
    check "$f exists" test -s "$f"
done

# ---- options: --help against the man page and the README ----
"$ROCSYS_TOP" --help >"$WORK/help"
grep -oE -- '--[a-z][a-z-]+' "$WORK/help" | sort -u >"$WORK/long"
grep -oE -- '^ +-[a-zA-Z],' "$WORK/help" | tr -d ' ,' | sort -u >"$WORK/short"
check "--help lists options" test "$(wc -l <"$WORK/long")" -ge 20
sed 's/\\-/-/g' "$MAN" >"$WORK/man" # roff spells - as \-
while read -r o; do
    check "man page documents $o" grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" "$WORK/man"
    check "README documents $o" grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" "$README"
    check "configuration.md documents $o" grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" "$CONF"
done <"$WORK/long"
while read -r o; do
    check "man page documents $o" grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" "$WORK/man"
    check "README documents $o" grep -qE -- "\`$o," "$README"
done <"$WORK/short"
# the man page's options section has no option --help does not know
grep -oE -- '^\.BR? --[a-z-]+|^\.BR -[a-zA-Z] ", " --[a-z-]+' "$WORK/man" | grep -oE -- '--[a-z-]+' |
    sort -u >"$WORK/man_long"
extra=$(comm -13 "$WORK/long" "$WORK/man_long" | tr '\n' ' ')
check "man page options unknown to --help: ${extra:-none}" test -z "$extra"
# the synopsis forms of --help are in the man page
grep -E '^(Usage:| {7})' "$WORK/help" | sed -E 's/^Usage: +//; s/^ +//; s/ +\(.*//' |
    while read -r form; do
        first=$(echo "$form" | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^--/) {print $i; exit}}')
        [ -z "$first" ] && continue
        grep -q -- "^\.B.*$first" "$WORK/man" || echo "$form"
    done >"$WORK/forms_missing"
check "synopsis forms missing from the man page: $(tr '\n' ';' <"$WORK/forms_missing")" \
    test ! -s "$WORK/forms_missing"

# ---- the man page renders without warnings ----
if command -v groff >/dev/null; then
    groff -man -ww -z "$MAN" >"$WORK/groff" 2>&1 || true
    check "man page renders cleanly: $(head -3 "$WORK/groff")" test ! -s "$WORK/groff"
fi

# ---- quick start: exactly scripts/demo and scripts/test, and CI runs scripts/test ----
awk '/^## Quick start/{q=1; next} q && /^```/{if (c++) exit; next} q && c' "$README" |
    sed 's/ *#.*//' | grep -v '^$' >"$WORK/quick"
check "README quick start is scripts/demo then scripts/test (got: $(tr '\n' ';' <"$WORK/quick"))" \
    test "$(tr '\n' ' ' <"$WORK/quick")" = "scripts/demo scripts/test "
check "scripts/demo is executable" test -x "$S/scripts/demo"
check "scripts/test is executable" test -x "$S/scripts/test"
check ".ci/run runs scripts/test" grep -qE '^scripts/test( |$)' "$S/.ci/run"

# ---- the recording's files: README table == record_files[] == a real recording ----
sed -n '/^const struct record_file record_files\[\]/,/^};/p' "$S/record/record.c" |
    grep -oE '"[^"]+"' | tr -d '"' | sort >"$WORK/files_code"
check "record_files[] parsed" test "$(wc -l <"$WORK/files_code")" -ge 5
awk '/^## Recordings/{r=1; next} /^## /{r=0} r && /^\| `/' "$README" |
    sed -E 's/^\| `([^`]+)`.*/\1/' | sort >"$WORK/files_readme"
diff "$WORK/files_code" "$WORK/files_readme" >"$WORK/files_diff" || true
check "README's recording table matches record_files[]: $(tr '\n' ' ' <"$WORK/files_diff")" \
    test ! -s "$WORK/files_diff"
"$ROCSYS_TOP" --record "$WORK/rec" --gpu-interval 0 -- "$TP/tp_exit" 0 >"$WORK/rec.out" 2>&1 ||
    "$ROCSYS_TOP" --record "$WORK/rec" --force --gpu-interval 0 -- /bin/true >"$WORK/rec.out" 2>&1 || true
ls "$WORK/rec" 2>/dev/null | sort >"$WORK/files_run"
grep -vx profile.coz "$WORK/files_code" | diff - "$WORK/files_run" >"$WORK/run_diff" || true # (--causal)
check "a real recording writes exactly record_files[]: $(tr '\n' ' ' <"$WORK/run_diff")" \
    test ! -s "$WORK/run_diff"
while read -r f; do
    check "formats.md describes $f" grep -q -- "$f" "$FORMATS"
    check "man page FILES names $f" grep -q -- "$f" "$WORK/man"
done <"$WORK/files_code"
# session.json's keys are in formats.md
if [ -s "$WORK/rec/session.json" ]; then
    grep -oE '^  "[a-z_]+"' "$WORK/rec/session.json" | tr -d ' "' | sort -u >"$WORK/keys"
    while read -r k; do
        check "formats.md documents session.json key $k" grep -q -- "\`$k\`" "$FORMATS"
    done <"$WORK/keys"
fi

# ---- views: tui_views[] in the README and the man page ----
# (each view's row is its TUI_VIEW_DEFINE(v, "Name", 'key', ...) in tui/view_<v>.c)
grep -ohE 'TUI_VIEW_DEFINE\([a-z0-9_]+, *"[^"]+", *'"'"'[0-9a-z]'"'" "$S"/tui/view_*.c |
    sed -E 's/TUI_VIEW_DEFINE\([a-z0-9_]+, *"([^"]+)", *'"'"'([0-9a-z])'"'"'/\2 \1/' >"$WORK/views"
check "views parsed" test "$(wc -l <"$WORK/views")" -ge 4
while read -r key name; do
    check "README lists view $name ($key)" grep -qF -- "| $name (\`$key\`)" "$README"
    check "man page lists view $key $name" grep -qF -- ".B $key $name" "$WORK/man"
done <"$WORK/views"

# ---- environment variables the code reads or sets ----
{
    grep -rhoE 'getenv\("[A-Z_]+"\)' "$S"/cli "$S"/inject "$S"/collector "$S"/gpu "$S"/base "$S"/model "$S"/symbols "$S"/tui "$S"/record |
        grep -oE '"[A-Z_]+"' | tr -d '"'
    grep -hoE '^#define ROCSYS_ENV_[A-Z_]+ +"[A-Z_]+"' "$S/collector/protocol.h" | grep -oE '"[A-Z_]+"' | tr -d '"'
    sed -n '/session_mpi_rank/,/^}/p' "$S/session/merge.c" | grep -oE '"[A-Z_]+"' | tr -d '"'
} | grep -vxE 'PATH|TMPDIR' | sort -u >"$WORK/envs"
check "environment variables parsed" test "$(wc -l <"$WORK/envs")" -ge 8
while read -r v; do
    check "configuration.md documents $v" grep -q -- "\`$v\`" "$CONF"
    check "man page documents $v" grep -qw -- "$v" "$WORK/man"
done <"$WORK/envs"

# ---- screenshots the README links exist ----
grep -oE 'screenshots/[a-z0-9-]+\.png' "$README" | sort -u >"$WORK/shots"
while read -r p; do
    check "README's $p exists" test -s "$S/$p"
done <"$WORK/shots"
check "README says how to regenerate the screenshots" grep -q 'scripts/screenshots' "$README"
check "scripts/screenshots is executable" test -x "$S/scripts/screenshots"

finish
