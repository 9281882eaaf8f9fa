#!/usr/bin/env bash
# End-to-end: the relocatable archive (`cpack -G TGZ`) and its environment module, as a plain
# user of no account (setpriv, a clean environment, a home of its own) on a machine where
# rocsys-top is not installed: the user unpacks the archive into a fresh directory of its home,
# rocsys-top-check names the system libraries (and a missing one, with its package), and in a
# login shell `module use` / `module load` (Lmod; environment-modules where it is installed
# instead: they conflict) sets PATH, MANPATH, PKG_CONFIG_PATH,
# CMAKE_PREFIX_PATH and LD_LIBRARY_PATH to the unpacked tree; from there the demo runs under
# rocsys-top, a Python program (/usr/bin/python3) gets the archive's rocsys module and its
# region, the manual is found, and programs build against the user API with pkg-config and with
# CMake's find_package and run under it with their region counted. Then the tree is moved and
# still works (nothing in it names where it was unpacked).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root: runs as another user (setpriv)"
command -v setpriv > /dev/null || skip "setpriv (util-linux) missing"
command -v cpack > /dev/null || skip "cpack (cmake) missing"
command -v flock > /dev/null || skip "flock (util-linux) missing"
# not while test_deb has the package installed: this test checks that rocsys-top is not
install_lock
# the modules' shell init: Lmod's (scripts/deps), else environment-modules' (they conflict)
MODINIT=""
for f in /usr/share/lmod/lmod/init/bash /usr/share/modules/init/bash; do
    [ -r "$f" ] && { MODINIT=$f; break; }
done
[ -n "$MODINIT" ] || skip "no environment modules: Debian package lmod (scripts/deps) or environment-modules"
echo "    modules: $MODINIT"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"

build=$(dirname "$ROCSYS_TOP")
chmod 711 "$WORK"
# the archive, made from the build as a release would be
t0=$SECONDS
(cd "$WORK" && cpack -G TGZ --config "$build/CPackConfig.cmake" -B "$WORK/pkg") > "$WORK/cpack.log" 2>&1 ||
    { cat "$WORK/cpack.log" >&2; fail "cpack -G TGZ failed"; finish; }
tgz=$(ls "$WORK"/pkg/rocsys-top-*.tar.gz 2> /dev/null | head -1)
[ -n "$tgz" ] || { fail "cpack -G TGZ made no rocsys-top-*.tar.gz"; finish; }
echo "    archive: $(basename "$tgz") ($(du -k "$tgz" | cut -f1) KiB, $((SECONDS - t0)) s)"
top=$(basename "$tgz" .tar.gz)
for f in bin/rocsys-top bin/rocsys-top-check bin/rocsys-demo lib/rocsys-top/librocsys-collector.so \
    lib/rocsys-top/librocsys-causal.so \
    lib/rocsys-top/python/rocsys/__init__.py include/rocsys/user.h lib/pkgconfig/rocsys-user.pc \
    lib/cmake/rocsys-user/rocsys-userConfig.cmake share/man/man1/rocsys-top.1.gz \
    share/modulefiles/rocsys-top/ share/rocsys-top/examples/rocsys-top.sbatch; do
    check "archive holds $top/$f" tar tzf "$tgz" "$top/$f" > /dev/null
done
if tar tzf "$tgz" | grep -q "^$top/usr/"; then fail "archive has a usr/ directory: not relocatable"; fi
chmod 644 "$tgz"

# A user id of no account with a home of its own (0700); everything it runs starts from a login
# shell with a clean environment
U=$((40000 + $$ % 20000))
UH="$WORK/home"
mkdir -p "$UH"
chown "$U:$U" "$UH"
chmod 700 "$UH"
as_user() {
    env -i HOME="$UH" USER="rsuser" LOGNAME="rsuser" PATH="/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 \
        TERM=dumb ${ASAN_OPTIONS+ASAN_OPTIONS="$ASAN_OPTIONS"} ${UBSAN_OPTIONS+UBSAN_OPTIONS="$UBSAN_OPTIONS"} \
        setpriv --reuid="$U" --regid="$U" --clear-groups --inh-caps=-all "$@"
}
# ulogin SCRIPT: SCRIPT in the user's login shell (bash -l: /etc/profile, Lmod's profile.d),
# with `module` set up as a login shell has it (Debian's lmod: /etc/profile.d/lmod.sh, or its
# init script where profile.d does not define it)
ulogin() {
    as_user bash -l -c "type module > /dev/null 2>&1 || source $MODINIT; set -euo pipefail; $1"
}
check "the user id is not root" test "$(as_user id -u)" = "$U"
check "rocsys-top is not installed on the machine" sh -c '! PATH=/usr/local/bin:/usr/bin:/bin command -v rocsys-top'

# unpacked by the user into a fresh directory of its home
R="$UH/apps/fresh/$top"
as_user mkdir -p "$UH/apps/fresh"
as_user tar xzf "$tgz" -C "$UH/apps/fresh"
check "unpacked by the user: files are the user's" test "$(stat -c %u "$R/bin/rocsys-top")" = "$U"

# rocsys-top-check: the system libraries, all there
rc=0
as_user "$R/bin/rocsys-top-check" > "$WORK/check.out" 2>&1 || rc=$?
check "rocsys-top-check: exit 0 (got $rc)" test "$rc" -eq 0
for lib in libncursesw libdw libunwind libz; do
    check "rocsys-top-check names $lib" grep -Eq "^  ok +$lib" "$WORK/check.out"
done
# ... and a missing one: a program linked with a library that is then taken away
mkdir -p "$WORK/gone"
echo 'int gone(void) { return 1; }' > "$WORK/gone/gone.c"
echo 'int gone(void); int main(void) { return gone(); }' > "$WORK/gone/main.c"
cc -shared -fPIC -o "$WORK/gone/libgone.so.1" -Wl,-soname,libgone.so.1 "$WORK/gone/gone.c"
cc -o "$WORK/gone/prog" "$WORK/gone/main.c" "$WORK/gone/libgone.so.1"
rm "$WORK/gone/libgone.so.1"
chmod -R a+rX "$WORK/gone"
rc=0
as_user "$R/bin/rocsys-top-check" "$WORK/gone/prog" > "$WORK/gone.out" 2> "$WORK/gone.err" || rc=$?
check "rocsys-top-check of a missing library: exit 1 (got $rc)" test "$rc" -eq 1
check "rocsys-top-check names the missing library" grep -q "MISSING libgone.so.1" "$WORK/gone.out"
check "rocsys-top-check says why it failed" grep -q "missing system libraries" "$WORK/gone.err"

# the module, in a login shell
ulogin "module use '$R/share/modulefiles'; module load rocsys-top; module list 2>&1;
    echo PATH=\$PATH; echo MANPATH=\$MANPATH; echo PKG_CONFIG_PATH=\$PKG_CONFIG_PATH;
    echo CMAKE_PREFIX_PATH=\$CMAKE_PREFIX_PATH; echo LD_LIBRARY_PATH=\$LD_LIBRARY_PATH;
    echo which=\$(command -v rocsys-top); echo man=\$(man -w rocsys-top);
    echo pc=\$(realpath \$(pkg-config --variable=prefix rocsys-user)); module unload rocsys-top;
    echo after=\$(command -v rocsys-top || echo none)" > "$WORK/module.out" 2>&1 ||
    { cat "$WORK/module.out" >&2; fail "module use/load in a login shell failed"; }
check "module list shows rocsys-top" grep -q "rocsys-top/" "$WORK/module.out"
check "module: PATH" grep -q "^PATH=$R/bin:" "$WORK/module.out"
check "module: MANPATH" grep -q "^MANPATH=$R/share/man:" "$WORK/module.out"
check "module: PKG_CONFIG_PATH" grep -q "^PKG_CONFIG_PATH=$R/lib/pkgconfig" "$WORK/module.out"
check "module: CMAKE_PREFIX_PATH" grep -q "^CMAKE_PREFIX_PATH=$R\$" "$WORK/module.out"
check "module: LD_LIBRARY_PATH" grep -q "^LD_LIBRARY_PATH=$R/lib" "$WORK/module.out"
check "module: rocsys-top is the archive's" grep -q "^which=$R/bin/rocsys-top\$" "$WORK/module.out"
check "module: man finds the manual" grep -q "^man=$R/share/man/man1/rocsys-top.1.gz\$" "$WORK/module.out"
check "module: pkg-config's prefix (resolved) is the unpacked tree" grep -q "^pc=$R\$" "$WORK/module.out"
check "module unload takes it away" grep -q "^after=none\$" "$WORK/module.out"

# a site's module tree with a link to the archive's module file: the link is followed
ulogin "mkdir -p ~/site/rocsys-top && ln -s '$R/share/modulefiles/rocsys-top/'* ~/site/rocsys-top/ &&
    module use ~/site; module load rocsys-top; echo which=\$(command -v rocsys-top)" > "$WORK/site.out" 2>&1 ||
    { cat "$WORK/site.out" >&2; fail "module load through a link in a site's tree failed"; }
check "module through a link: rocsys-top is the archive's" grep -q "^which=$R/bin/rocsys-top\$" "$WORK/site.out"

# the demo, from the module
rc=0
ulogin "module use '$R/share/modulefiles'; module load rocsys-top; cd ~;
    rocsys-top -b -d 10 --rows 0 -- rocsys-demo --seconds 3" > "$WORK/demo.txt" 2> "$WORK/demo.err" || rc=$?
check "demo under the archive's rocsys-top: exit 0 (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$WORK/demo.err" >&2
last_frame "$WORK/demo.txt" > "$WORK/demo.last"
solve=$(hot_self demo_solve < "$WORK/demo.last")
check "demo: demo_solve ~50 % (${solve:-none})" within "${solve:-}" 50 10

# a Python program (/usr/bin/python3): the archive's rocsys module, its region counted
cat > "$WORK/prog.py" <<'PY'
import time
import rocsys

print("module", rocsys.__file__, flush=True)
with rocsys.region("archive py region"):
    end = time.monotonic() + 1.5
    x = 0
    while time.monotonic() < end:
        x += 1
print("python done", flush=True)
PY
chmod 644 "$WORK/prog.py"
rc=0
ulogin "module use '$R/share/modulefiles'; module load rocsys-top; cd ~;
    rocsys-top -b -d 5 --rows 0 --output-log ~/py.log -- /usr/bin/python3 '$WORK/prog.py'" \
    > "$WORK/py.txt" 2> "$WORK/py.err" || rc=$?
check "Python program: exit 0 (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$WORK/py.err" >&2
check "Python: the module is the archive's" grep -q "^module $R/lib/rocsys-top/python/rocsys/" "$UH/py.log"
check "Python: the program ran" grep -q "^python done" "$UH/py.log"
check "Python: its region is counted" grep -Eq '^ +1 .* archive py region$' <(last_frame "$WORK/py.txt")

# a program built against the user API: pkg-config and CMake, from the module's variables
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
    rocsys_user_push("archive region");
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
chmod 644 "$WORK/app.c"
cat > "$WORK/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(app C)
find_package(rocsys-user REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE rocsys::user)
CM
chmod 644 "$WORK/CMakeLists.txt"
rc=0
ulogin "module use '$R/share/modulefiles'; module load rocsys-top; cd ~; mkdir -p proj;
    cp '$WORK/app.c' '$WORK/CMakeLists.txt' proj/;
    cc -o app-pc proj/app.c \$(pkg-config --cflags --libs rocsys-user); ./app-pc;
    cmake -S proj -B proj/build > cmake.log 2>&1 || { cat cmake.log; exit 1; };
    cmake --build proj/build >> cmake.log 2>&1 || { cat cmake.log; exit 1; };
    rocsys-top -b -d 5 --rows 0 --output-log out-pc.log -- ./app-pc > f-pc.txt;
    rocsys-top -b -d 5 --rows 0 --output-log out-cm.log -- proj/build/app > f-cm.txt" \
    > "$WORK/app.out" 2>&1 || rc=$?
check "user API builds (pkg-config, CMake) and runs: exit 0 (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$WORK/app.out" >&2
check "pkg-config build runs alone: not active" grep -q "^active 0" "$WORK/app.out"
check "CMake found the archive's package" grep -q "$R/lib/cmake/rocsys-user" "$UH/proj/build/CMakeCache.txt"
for b in pc cm; do
    check "$b build under rocsys-top: active" grep -q "active 1" "$UH/out-$b.log"
    check "$b build under rocsys-top: the region is counted" grep -Eq '^ +1 .* archive region$' "$UH/f-$b.txt"
done

# moved elsewhere, it still runs (nothing names the first place; Python's byte-code cache aside)
as_user mv "$UH/apps/fresh" "$UH/moved"
R2="$UH/moved/$top"
rc=0
ulogin "module use '$R2/share/modulefiles'; module load rocsys-top; cd ~;
    echo which=\$(command -v rocsys-top);
    rocsys-top -b -d 5 --rows 0 -- rocsys-demo --seconds 1 > moved.txt" > "$WORK/moved.out" 2>&1 || rc=$?
check "moved tree: exit 0 (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$WORK/moved.out" >&2
check "moved tree: the module follows it" grep -q "^which=$R2/bin/rocsys-top\$" "$WORK/moved.out"
check "moved tree: the demo was sampled" grep -q "demo_solve" "$UH/moved.txt"
if grep -rlq --exclude-dir=__pycache__ "$UH/apps/fresh" "$R2" 2> /dev/null; then
    fail "moved tree: files name where it was unpacked: $(grep -rl --exclude-dir=__pycache__ "$UH/apps/fresh" "$R2" | head -3)"
fi
finish
