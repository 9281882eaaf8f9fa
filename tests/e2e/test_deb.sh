#!/usr/bin/env bash
# End-to-end: the Debian package. `cpack -G DEB` makes it from the build tree under test,
# `apt-get install ./rocsys-top_*.deb` installs it, and the installed files work on their own:
# /usr/bin/rocsys-top --version, the manual, a batch run of the installed demo with the installed
# collector, the installed Python module; the Depends line covers every library the binaries
# load, and no binary carries an RPATH. `apt-get purge` then takes every file away again.
# Root only (it installs into /usr); the package is removed even when a check fails.
source "$(dirname "$0")/lib.sh"

build=$(dirname "$ROCSYS_TOP")
[ "$(id -u)" -eq 0 ] || skip "installing a package needs root"
for tool in apt-get dpkg dpkg-query dpkg-deb cpack readelf flock; do
    command -v "$tool" > /dev/null || skip "$tool is missing (a Debian system with scripts/deps)"
done
command -v dpkg-shlibdeps > /dev/null || skip "dpkg-shlibdeps is missing (package dpkg-dev)"
# A package is made from a release build: a sanitizer build's binaries need the ASan runtime
# and its environment, which an installed tool does not have.
if grep -Eq '^ROCSYS_(SANITIZE|FUZZ):BOOL=ON' "$build/CMakeCache.txt"; then
    skip "$build is a sanitizer build: the package is tested from the release build"
fi
# one package test at a time on this machine (another build directory's run, dpkg's lock), and
# not while test_archive checks that rocsys-top is not installed
install_lock
if dpkg-query -W -f='${Status}' rocsys-top 2> /dev/null | grep -q 'install ok installed'; then
    skip "a rocsys-top package is already installed here; this test does not replace it"
fi
[ ! -e /usr/bin/rocsys-top ] || skip "/usr/bin/rocsys-top exists (not from a package): not overwritten"

export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -y -q -o DPkg::Lock::Timeout=120)
installed=0
# deb_cleanup: purge the package if this run installed it, then the usual cleanup
deb_cleanup() {
    if [ "$installed" -eq 1 ]; then
        "${APT[@]}" purge rocsys-top > "$WORK/cleanup.log" 2>&1 ||
            { echo "test_deb: could not purge rocsys-top:" >&2; cat "$WORK/cleanup.log" >&2; }
    fi
    e2e_cleanup
}
trap deb_cleanup EXIT

# ---- build the package from this build tree ----
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$WORK/pkg" > "$WORK/cpack.log" 2>&1 ||
    { cat "$WORK/cpack.log" >&2; fail "cpack -G DEB"; finish; }
debs=("$WORK"/pkg/rocsys-top_*_*.deb)
check "one package rocsys-top_<version>_<arch>.deb (${debs[*]##*/})" \
    test "${#debs[@]}" -eq 1 -a -f "${debs[0]}"
deb=${debs[0]}
version=$("$ROCSYS_TOP" --version | grep -Eo '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
check "file name has the version $version and the architecture" \
    test "${deb##*/}" = "rocsys-top_${version}_$(dpkg --print-architecture).deb"
for field in Maintainer Description Section; do
    check "control field $field" test -n "$(dpkg-deb -f "$deb" "$field")"
done
check "section devel" test "$(dpkg-deb -f "$deb" Section)" = devel
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# the package names Depends lists, one a line (alternatives too)
dpkg-deb -f "$deb" Depends | tr ',|' '\n\n' | sed 's/^ *//; s/[ :].*//' > "$WORK/depends.txt"

# ---- install it ----
installed=1 # from here on the trap purges, even if the install half-failed
"${APT[@]}" install "$deb" > "$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log" >&2; fail "apt-get install ${deb##*/}"; finish; }
check "dpkg says installed" \
    sh -c "dpkg-query -W -f='\${Status}' rocsys-top | grep -q 'install ok installed'"
dpkg -L rocsys-top > "$WORK/files.txt"
# what cmake --install installs: the tool, the collector beside its Python module and
# --causal's wrappers (librocsys-causal.so), the manual,
# the demos, the user API's library, header, pkg-config and CMake files
for want in /usr/bin/rocsys-top /usr/bin/rocsys-demo /usr/bin/rocsys-regions \
    '/usr/lib/.*rocsys-top/librocsys-collector\.so' '/usr/lib/.*rocsys-top/librocsys-causal\.so' \
    '/usr/lib/.*rocsys-top/python/rocsys/__init__\.py' '/usr/share/man/man1/rocsys-top\.1(\.gz)?' \
    '/usr/include/rocsys/user\.h' '/usr/lib/.*librocsys-user\.so\.0' \
    '/usr/lib/.*pkgconfig/rocsys-user\.pc' '/usr/lib/.*cmake/rocsys-user/rocsys-userConfig\.cmake'; do
    check "package has $want" grep -Eqx "$want" "$WORK/files.txt"
done

# ---- the binaries: dependencies declared, no RPATH ----
while read -r f; do
    [ -f "$f" ] && [ ! -L "$f" ] && head -c 4 "$f" | grep -q ELF || continue
    check "$f has no RPATH/RUNPATH" sh -c "! readelf -d '$f' | grep -Eq 'RPATH|RUNPATH'"
    # every library it links (NEEDED) comes from a package that Depends names (or this one)
    ldd "$f" > "$WORK/ldd.txt" 2>&1 || true
    for name in $(readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
        lib=$(awk -v n="$name" '$1 == n && $3 ~ /^\// {print $3}' "$WORK/ldd.txt")
        [ -n "$lib" ] || continue # the dynamic loader itself
        owner=$(dpkg -S "$(readlink -f "$lib")" 2> /dev/null | head -1 | cut -d: -f1) ||
            owner=$(dpkg -S "$lib" 2> /dev/null | head -1 | cut -d: -f1) || true
        [ -n "$owner" ] && [ "$owner" != rocsys-top ] || continue
        check "Depends names $owner (for $lib of $f)" grep -qxF "$owner" "$WORK/depends.txt"
    done
done < "$WORK/files.txt"

# ---- the installed tool works from /usr ----
got=$(/usr/bin/rocsys-top --version 2>&1 || true)
check "/usr/bin/rocsys-top --version ($got)" grep -q "$version" <<< "$got"
if command -v man > /dev/null; then
    page=$(man -w rocsys-top 2> /dev/null || true)
    check "man -w rocsys-top finds the installed manual ($page)" grep -Eq '^/usr/share/man/man1/rocsys-top\.1' <<< "$page"
else
    page=$(grep -E '^/usr/share/man/man1/rocsys-top\.1' "$WORK/files.txt" | head -1)
fi
check "the manual is a rocsys-top man page" sh -c "zcat -f '$page' | grep -q '^\.TH ROCSYS-TOP'"
rc=0
/usr/bin/rocsys-top -b -d 10 --rows 0 -- /usr/bin/rocsys-demo --seconds 3 \
    > "$WORK/frames.txt" 2> "$WORK/err.txt" || rc=$?
check "installed rocsys-top runs the installed demo (exit $rc; $(head -c 300 "$WORK/err.txt"))" \
    test "$rc" -eq 0
n=$(grep -c '^rocsys-top frame ' "$WORK/frames.txt" || true)
check "batch frames printed ($n)" test "$n" -ge 2
last_frame "$WORK/frames.txt" > "$WORK/last.txt"
for fn in demo_solve demo_butterfly demo_reduce; do
    check "$fn sampled by the installed collector" test -n "$(hot_self "$fn" < "$WORK/last.txt")"
done
if command -v python3 > /dev/null; then
    /usr/bin/rocsys-top -b --output-log "$WORK/py.log" -- \
        python3 -c 'import rocsys; print(rocsys.active, rocsys.__file__)' > /dev/null || true
    check "the target imports the installed rocsys module ($(cat "$WORK/py.log"))" \
        grep -Eqx 'True /usr/lib/.*rocsys-top/python/rocsys/__init__\.py' "$WORK/py.log"
fi

# ---- remove it: every file it installed is gone ----
"${APT[@]}" purge rocsys-top > "$WORK/remove.log" 2>&1 ||
    { cat "$WORK/remove.log" >&2; fail "apt-get purge rocsys-top"; }
installed=0
check "dpkg no longer lists rocsys-top" \
    sh -c "! dpkg-query -W -f='\${Status}' rocsys-top 2>/dev/null | grep -q 'ok installed'"
left=$(while read -r f; do if [ -f "$f" ] || [ -L "$f" ]; then echo "$f"; fi; done < "$WORK/files.txt")
check "no installed file is left (${left//$'\n'/ })" test -z "$left"
check "no rocsys-top directory under /usr/lib is left" \
    test -z "$(find /usr/lib /usr/include -maxdepth 3 -name 'rocsys*' 2> /dev/null)"
finish
