#!/usr/bin/env bash
# "Adding a view is one file and one row" (docs/architecture.md, Adding a view), shown: the
# example view file of the docs (ending with its TUI_VIEW_DEFINE) and its one TUI_VIEW_ROW,
# added to a copy of tui/views.c and
# linked with the built core library (nothing else changed), give a view that has its key in
# --help's keys, its help line, its section in a batch frame with the model's process, and the
# list layer's keys, clicks and search. Also: --help's keys list every view of the real table.
source "$(dirname "$0")/lib.sh"
: "${ROCSYS_SOURCE:?run through ctest}"
S=$ROCSYS_SOURCE
DOC=$S/docs/architecture.md
AR=$(dirname "$ROCSYS_TOP")/librocsys_core.a
CC=${CC:-cc}

[ -f "$AR" ] || skip "no $AR next to rocsys-top"
command -v pkg-config >/dev/null || skip "no pkg-config to link the core library"

# the example file: the first C block of the "Adding a view" paragraph with more than one line
awk '/^\*\*Adding a view\*\*/{a=1} a && /^```c$/{n++; if (n == 2) {c=1; next}} c && /^```$/{exit} c' \
    "$DOC" >"$WORK/view_procs.c"
row=$(awk '/^\*\*Adding a view\*\*/{a=1} a && /TUI_VIEW_ROW\(/{print; exit}' "$DOC" | sed 's/^ *//')
def=$(grep -oE 'TUI_VIEW_DEFINE\([a-z]+, *"[^"]+", *'"'"'.'"'" "$WORK/view_procs.c" || true)
check "the docs' example view file found ($(wc -l <"$WORK/view_procs.c") lines)" \
    test "$(wc -l <"$WORK/view_procs.c")" -ge 40
check "the docs' row found: ${row:-none}" test -n "$row"
check "the example's TUI_VIEW_DEFINE found: ${def:-none}" test -n "$def"
name=$(echo "$def" | sed -E 's/TUI_VIEW_DEFINE\([a-z]+, *"([^"]+)", *'"'"'(.)'"'"'.*/\1/')
key=$(echo "$def" | sed -E 's/TUI_VIEW_DEFINE\([a-z]+, *"([^"]+)", *'"'"'(.)'"'"'.*/\2/')
check "the example's key $key is not taken by a view" \
    sh -c "! grep -hE '^TUI_VIEW_DEFINE' '$S'/tui/view_*.c | grep -qF \"'$key'\""

# one row: after the last row of TUI_VIEW_LIST
sed -E '/^ +TUI_VIEW_ROW\([a-z0-9_]+\).*[^\\]$/ s|$| \\\n    '"$row"'|' "$S/tui/views.c" >"$WORK/views.c"
check "the row is in the copy of the table" grep -qF "$row" "$WORK/views.c"
check "one row more than the real table" test "$(grep -c 'TUI_VIEW_ROW([a-z]' "$WORK/views.c")" -eq \
    "$(($(grep -c 'TUI_VIEW_ROW([a-z]' "$S/tui/views.c") + 1))"

cat >"$WORK/main.c" <<'EOT'
#include "model/model.h"
#include "tui/tui.h"
#include "tui/tui_internal.h"

#include <stdio.h>

int main(void)
{
    struct model *m = model_new();

    model_proc_start(m, 4242, 1, "/usr/bin/recipe-target", "recipe-target", 1000000000ull);
    tui_help_keys(stdout);
    tui_batch_frame(stdout, m, 1, 0);
    for (int i = 0; i < tui_view_count; i++) /* the list layer takes its keys, clicks, search */
        printf("view %s: list %d\n", tui_views[i]->name, tui_views[i]->list != NULL);
    model_free(m);
    return 0;
}
EOT
flags=()
[ "$(nm "$AR" 2>/dev/null | grep -c __asan_ || true)" -eq 0 ] ||
    flags=(-fsanitize=address,undefined)
# the project's warnings (CMakeLists.txt: a table row may leave its last fields out)
# shellcheck disable=SC2046 # pkg-config's words are separate flags
check "the example view and the one-row table build with the core library" \
    "$CC" -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -Wmissing-prototypes -Werror "${flags[@]}" -I"$S" -o "$WORK/recipe" \
    "$WORK/main.c" "$WORK/views.c" "$WORK/view_procs.c" "$AR" \
    $(pkg-config --libs ncursesw libdw libunwind zlib) -lpthread -lstdc++ -lm
if [ -x "$WORK/recipe" ]; then
    "$WORK/recipe" >"$WORK/out" 2>&1 || true
    check "--help's keys list the new view ($key $name)" grep -qF "$key $name" "$WORK/out"
    check "--help's keys have its help line" grep -q "processes: sort by pid or by CPU" "$WORK/out"
    check "a batch frame has its section" grep -q "^== $name ==" "$WORK/out"
    check "the list layer takes its keys, clicks and search" grep -qx "view $name: list 1" "$WORK/out"
    check "its section lists the model's process" grep -qE '^ +4242 +1 .*/usr/bin/recipe-target' \
        "$WORK/out"
fi

# the real table: --help's keys list every view
"$ROCSYS_TOP" --help >"$WORK/help"
grep -ohE 'TUI_VIEW_DEFINE\([a-z0-9_]+, *"[^"]+", *'"'"'.'"'" "$S"/tui/view_*.c |
    sed -E 's/TUI_VIEW_DEFINE\([a-z0-9_]+, *"([^"]+)", *'"'"'(.)'"'"'/\2 \1/' >"$WORK/views"
check "views parsed" test "$(wc -l <"$WORK/views")" -ge 10
while read -r k n; do
    check "--help lists view $k $n" grep -qF -- "$k $n" "$WORK/help"
done <"$WORK/views"
finish
