#!/usr/bin/env bash
# End-to-end: (1) code in a library loaded with dlopen after start is symbolized by name (the
# collector reports the new module map); (2) the collector is prepended to an existing
# LD_PRELOAD and appended to an existing HSA_TOOLS_LIB, and the target's environment is
# otherwise its own.
source "$(dirname "$0")/lib.sh"

rc=0
"$ROCSYS_TOP" -b --rows 0 --cpu-timer perf -- "$TP/tp_dlopen" "$TP/libtp_plugin.so" 800 \
    > "$WORK/frames.txt" || rc=$?
check "exit 0 (got $rc)" test "$rc" -eq 0
last_frame "$WORK/frames.txt" > "$WORK/last.txt"
check "plugin_inner symbolized" grep -Eq ' plugin_inner +libtp_plugin.so plugin.c:[0-9]+' "$WORK/last.txt"
check "plugin_work symbolized" grep -Eq ' plugin_work ' "$WORK/last.txt"
check "main_work symbolized" grep -Eq ' main_work ' "$WORK/last.txt"
got=$(hot_self plugin_inner < "$WORK/last.txt")
check "plugin_inner holds most of the CPU (${got:-missing}%)" within "$got" 65 25
check "no unknown frames in the plugin" bash -c "! grep -q 'libtp_plugin.so+0x' '$WORK/last.txt'"

plib=$(ls /lib/x86_64-linux-gnu/libm.so.6 2>/dev/null || echo "")
[ -n "$plib" ] || skip "no libm.so.6 to preload"
# (an ASan build of rocsys-top must be told that a preloaded library before its runtime is fine)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    LD_PRELOAD=$plib HSA_TOOLS_LIB=/opt/other-tool.so FOO=bar \
    "$ROCSYS_TOP" -b --output-log "$WORK/env.log" -- /usr/bin/env > /dev/null
check "LD_PRELOAD: collector first, then the existing value" \
    grep -Eq "^LD_PRELOAD=[^:]*librocsys-collector.so:$plib\$" "$WORK/env.log"
check "HSA_TOOLS_LIB: existing value, then the collector" \
    grep -Eq "^HSA_TOOLS_LIB=/opt/other-tool.so [^ ]*librocsys-collector.so\$" "$WORK/env.log"
check "the target's own environment is kept" grep -q "^FOO=bar\$" "$WORK/env.log"
env -u LD_PRELOAD -u HSA_TOOLS_LIB "$ROCSYS_TOP" -b --output-log "$WORK/env2.log" -- /usr/bin/env > /dev/null
check "LD_PRELOAD set when there was none" grep -Eq "^LD_PRELOAD=[^:]*librocsys-collector.so\$" "$WORK/env2.log"
finish
