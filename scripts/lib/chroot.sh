# Debian chroots for testing on other releases (sourced by scripts/chroot-test: Debian 13's
# suite run inside, and the sid test bed running the host's build). Needs root, debootstrap and
# the Debian archive that this machine's apt uses. Functions print one-line errors to stderr and return non-zero; the caller
# decides whether that is a skip or a failure.
#
#   chroot_archive                 the archive URL of this machine's apt sources
#   chroot_make SUITE ROOT URL     debootstrap SUITE into ROOT (reused when already complete)
#   chroot_mount ROOT SRC DEST     /proc /sys /dev (with pts, shm) and SRC at ROOT/DEST
#   chroot_bind ROOT DIR DEST      DIR at ROOT/DEST as well (after chroot_mount)
#   chroot_umount ROOT             unmount everything under ROOT (safe to call twice)
#   chroot_run ROOT CMD...         run CMD as root inside, with a clean environment
#   chroot_runtime_pkgs ROOT       the packages of rocsys-top's runtime libraries, by the suite's
#                                  names (*t64 from trixie on; needs apt-get update done)
#   chroot_missing_libs ROOT BUILD the libraries BUILD's binaries need that ROOT lacks ("": none)

# chroot_archive: the URI of the first apt source carrying this machine's own suite (the main
# archive, not -security or -updates): deb822 .sources files and one-line .list files
chroot_archive() {
    local codename f uri
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$codename" ] || { echo "no VERSION_CODENAME in /etc/os-release" >&2; return 1; }
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        uri=$(awk -v want="$codename" '
            function flush() { if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " want " ") && uri != "") { print uri; found = 1; exit } }
            /^[ \t]*$/ { flush(); types = suites = uri = ""; next }
            /^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
            /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
            /^URIs:/ { sub(/^URIs:[ \t]*/, ""); split($0, u, /[ \t]+/); uri = u[1] }
            END { if (!found) flush() }' "$f")
        [ -n "$uri" ] && { echo "$uri"; return 0; }
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        uri=$(sed -E 's/\[[^]]*\]//' "$f" |
            awk -v want="$codename" '$1 == "deb" && $3 == want { print $2; exit }')
        [ -n "$uri" ] && { echo "$uri"; return 0; }
    done
    echo "no apt source for '$codename' in /etc/apt/sources.list{,.d}" >&2
    return 1
}

# chroot_make SUITE ROOT URL: a minimal Debian SUITE in ROOT with apt, DNS and no service
# starts; an existing complete one (ROOT/.rocsys-chroot names the suite) is reused
chroot_make() {
    local suite=$1 root=$2 url=$3 log
    if [ "$(cat "$root/.rocsys-chroot" 2> /dev/null)" = "$suite" ]; then
        echo "chroot: reusing $root ($suite)"
        cp /etc/resolv.conf "$root/etc/resolv.conf"
        return 0
    fi
    command -v debootstrap > /dev/null || { echo "debootstrap not installed (apt-get install debootstrap)" >&2; return 1; }
    if [ -e "$root" ] && [ -n "$(ls -A "$root" 2> /dev/null)" ]; then
        chroot_mounted "$root" && { echo "$root has mounts; not touching it" >&2; return 1; }
        rm -rf --one-file-system "$root"
    fi
    mkdir -p "$root"
    log=$(mktemp)
    echo "chroot: debootstrap --variant=minbase $suite $root $url"
    if ! debootstrap --variant=minbase "$suite" "$root" "$url" > "$log" 2>&1; then
        echo "debootstrap $suite from $url failed: $(grep -E '^E:|W: Failure' "$log" | head -n 1)" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    # an archive served as a snapshot outlives sid's Release files (valid for a week): accept them
    echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99rocsys-chroot"
    # services stay down in a chroot (debuginfod, openmpi's helpers)
    printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
    chmod +x "$root/usr/sbin/policy-rc.d"
    echo "$suite" > "$root/.rocsys-chroot"
}

# chroot_mounted ROOT: true when anything is mounted at or below ROOT
chroot_mounted() {
    local r
    r=$(realpath -m "$1")
    awk -v r="$r" '$5 == r || index($5, r "/") == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# chroot_mount ROOT SRC DEST: the kernel's file systems and the checkout SRC at ROOT/DEST;
# /sys and /dev are recursive bind mounts made slaves, so unmounting them never reaches the host
chroot_mount() {
    local root=$1 src=$2 dest=$3 d
    # the root a mount point of its own: unshare -m inside (the GPU tests) changes the
    # propagation of /, which fails on a plain directory
    mount --bind "$root" "$root"
    mount -t proc proc "$root/proc"
    for d in sys dev; do
        mount --rbind "/$d" "$root/$d"
        mount --make-rslave "$root/$d"
    done
    chroot_bind "$root" "$src" "$dest"
}

# chroot_bind ROOT DIR DEST: DIR seen at DEST inside ROOT (DEST made when missing)
chroot_bind() {
    mkdir -p "$1$3"
    mount --bind "$2" "$1$3"
}

# chroot_umount ROOT: every mount at or under ROOT, deepest first; lazily when one is busy
chroot_umount() {
    local root m
    root=$(realpath -m "$1")
    awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r |
        while read -r m; do
            umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null || echo "chroot: cannot unmount $m" >&2
        done
    ! chroot_mounted "$root"
}

# chroot_run ROOT CMD...: CMD inside ROOT as root with a minimal environment
chroot_run() {
    local root=$1
    shift
    chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive "$@"
}

# chroot_runtime_pkgs ROOT: the packages of what rocsys-top and its collector load (as ldd of a
# Debian 12 build lists them), by ROOT's suite's names
chroot_runtime_pkgs() {
    local lib pkgs=""
    for lib in libdw1 libelf1 libncursesw6 libunwind8 zlib1g libbpf1; do
        if chroot_run "$1" apt-cache show "${lib}t64" > /dev/null 2>&1; then pkgs="$pkgs ${lib}t64"; else pkgs="$pkgs $lib"; fi
    done
    echo "${pkgs# }"
}

# chroot_missing_libs ROOT BUILD: the libraries of BUILD's rocsys-top and collector that ROOT
# does not have, space-separated ("": none)
chroot_missing_libs() {
    chroot_run "$1" ldd "$2/rocsys-top" "$2/lib/librocsys-collector.so" |
        awk '/not found/ {print $1}' | sort -u | tr '\n' ' ' | sed 's/ $//'
}
