#!/bin/sh
# Prints the path of a Debian root made by debootstrap from Debian's archive, making it first if
# the cache has none: debian-root.sh SUITE ARCH VARIANT [PACKAGE...]
#
#   VARIANT  "sysroot": the files of the packages (and of those they need) unpacked with dpkg-deb,
#            a sysroot to build against, made without running anything of ARCH;
#            "system": a complete root that chroot can run (through qemu-user-static and
#            binfmt_misc for a foreign ARCH).
#
# Roots live under $IMPORTSCOPE_CACHE/roots (default ~/.cache/importscope-build), keyed by
# everything that made them, and are made under a temporary name and renamed when complete, so an
# interrupted run leaves nothing that a later one would take for a root. Needs root (debootstrap).
set -eu
[ $# -ge 3 ] || { echo "usage: $0 SUITE ARCH sysroot|system [PACKAGE...]" >&2; exit 2; }
suite=$1 arch=$2 variant=$3
shift 3
packages=$(echo "$@" | tr ' ' '\n' | sort -u | tr '\n' ',' | sed 's/,$//')
# debootstrap's own default mirror, unless DEBIAN_MIRROR names another.
mirror=${DEBIAN_MIRROR:-}
cache=${IMPORTSCOPE_CACHE:-$HOME/.cache/importscope-build}
key=$(printf '%s\n' 3 "$suite" "$arch" "$variant" "$packages" "$mirror" | sha256sum | cut -c1-12)
root=$cache/roots/$suite-$arch-$variant-$key
if [ -f "$root/.complete" ]; then
    echo "$root"
    exit 0
fi
command -v debootstrap > /dev/null || { echo "$0: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
mkdir -p "$cache/roots"
partial=$root.partial.$$
rm -rf "$partial"
trap 'rm -rf "$partial" "$partial.debs"' EXIT
set -- --arch="$arch" --variant=minbase
[ -n "$packages" ] && set -- "$@" --include="$packages"
[ "$variant" = sysroot ] && set -- "$@" --download-only
echo "importscope: making a Debian $suite $arch root ($variant${packages:+: $packages}) in $root" >&2
set -- "$@" "$suite" "$partial"
[ -n "$mirror" ] && set -- "$@" "$mirror"
if ! debootstrap "$@" > "$partial.log" 2>&1; then
    tail -20 "$partial.log" >&2
    rm -f "$partial.log"
    exit 1
fi
rm -f "$partial.log"
if [ "$variant" = sysroot ]; then
    mv "$partial" "$partial.debs"
    mkdir "$partial"
    for deb in "$partial.debs"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$deb" "$partial"; done
    rm -rf "$partial.debs"
fi
touch "$partial/.complete"
mv "$partial" "$root"
trap - EXIT
echo "$root"
