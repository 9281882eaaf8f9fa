#!/usr/bin/env bash
# End-to-end: `cmake --install` into a prefix works, and the installed rocsys-top finds its
# installed collector (not the build tree's) and profiles a program.
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
finish
