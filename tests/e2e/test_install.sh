#!/usr/bin/env bash
# End-to-end: `cmake --install` into a prefix works, and the installed rocsys-top finds its
# installed collector (not the build tree's) and profiles a program, whose Python can import
# the installed `rocsys` module.
source "$(dirname "$0")/lib.sh"

build=$(dirname "$ROCSYS_TOP")
cmake --install "$build" --prefix "$WORK/prefix" > "$WORK/install.log"
check "installed binary" test -x "$WORK/prefix/bin/rocsys-top"
lib=$(find "$WORK/prefix" -name librocsys-collector.so | head -1)
check "installed collector" test -n "$lib"
mv "$WORK/prefix" "$WORK/moved" # the prefix is relocatable
rc=0
"$WORK/moved/bin/rocsys-top" -b --rows 0 -- "$TP/tp_exit" 5 300 > "$WORK/f.txt" || rc=$?
check "installed rocsys-top runs the target (exit $rc)" test "$rc" -eq 5
check "installed collector sampled it" grep -q ' exit_burn ' "$WORK/f.txt"
# the `rocsys` Python module is installed beside the collector and importable by the target
mod=$(find "$WORK/moved" -path '*/rocsys-top/python/rocsys/__init__.py' | head -1)
check "installed Python module beside the collector" test -n "$mod" -a "$(dirname "$(dirname "$(dirname "$mod")")")" = "$(dirname "$(find "$WORK/moved" -name librocsys-collector.so | head -1)")"
if command -v python3 > /dev/null; then
    "$WORK/moved/bin/rocsys-top" -b --output-log "$WORK/py.log" -- \
        python3 -c 'import rocsys; print(rocsys.active, rocsys.__file__)' > /dev/null || true
    check "the target imports the installed module ($(cat "$WORK/py.log"))" \
        grep -qxF "True $mod" "$WORK/py.log"
fi
finish
