#!/usr/bin/env bash
# End-to-end: the user API as installed by `cmake --install`: a program builds against it with
# pkg-config and with CMake's find_package(rocsys-user), runs without rocsys-top (the stubs:
# not active), and under the installed rocsys-top its region shows up.
source "$(dirname "$0")/lib.sh"

build=$(dirname "$ROCSYS_TOP")
P="$WORK/prefix"
cmake --install "$build" --prefix "$P" > "$WORK/install.log"
libdir=$(dirname "$(find "$P" -name 'librocsys-user.so' | head -1)")
check "installed library" test -n "$libdir"
check "installed header" test -f "$P/include/rocsys/user.h"
check "installed pkg-config file" test -f "$libdir/pkgconfig/rocsys-user.pc"
check "installed CMake package" test -f "$libdir/cmake/rocsys-user/rocsys-userConfig.cmake"

cat > "$WORK/app.c" <<'C'
#include <rocsys/user.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
    struct timespec end, now;
    volatile unsigned long x = 0;

    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += 1;
    rocsys_user_push("installed region");
    do {
        for (int i = 0; i < 100000; i++)
            x += (unsigned long)i;
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
    rocsys_user_pop();
    printf("active %d\n", rocsys_user_active());
    return 0;
}
C
# pkg-config
if command -v pkg-config > /dev/null; then
    PKG_CONFIG_PATH="$libdir/pkgconfig" cc -o "$WORK/app-pc" "$WORK/app.c" \
        $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs rocsys-user)
    check "pkg-config build" test -x "$WORK/app-pc"
    check "runs alone: not active" grep -q "active 0" <(LD_LIBRARY_PATH="$libdir" "$WORK/app-pc")
fi
# CMake package
mkdir -p "$WORK/proj"
cp "$WORK/app.c" "$WORK/proj/"
cat > "$WORK/proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(app C)
find_package(rocsys-user REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE rocsys::user)
CM
cmake -S "$WORK/proj" -B "$WORK/proj/build" -DCMAKE_PREFIX_PATH="$P" > "$WORK/cmake.log" 2>&1 &&
    cmake --build "$WORK/proj/build" >> "$WORK/cmake.log" 2>&1 || cat "$WORK/cmake.log" >&2
check "CMake build" test -x "$WORK/proj/build/app"
rc=0
LD_LIBRARY_PATH="$libdir" "$P/bin/rocsys-top" -b -d 5 --rows 0 --output-log "$WORK/out.log" \
    -- "$WORK/proj/build/app" > "$WORK/f.txt" || rc=$?
check "under the installed rocsys-top: exit 0 (got $rc)" test "$rc" -eq 0
check "under rocsys-top: active" grep -q "active 1" "$WORK/out.log"
check "under rocsys-top: the region is counted" grep -Eq '^ +1 .* installed region$' "$WORK/f.txt"
finish
