#!/bin/sh
# make wheel: one wheel per architecture in $DIST (default dist/), each tagged
# py3-none-manylinux_2_28_<arch> and holding the supervisor, a worker and a bootstrap module for each
# of CPython 3.10 to 3.13, and the data files (docs/packaging.md).
#
#   toolchain  zig (ziglang from PyPI, tools/wheel/requirements.txt) for <arch>-linux-gnu.2.28
#              (cmake/zig-toolchain.cmake), in a venv under the cache
#   libraries  Debian 12's -dev packages of each architecture, unpacked into a sysroot by
#              tools/wheel/debian-root.sh (debootstrap)
#   CPython    the headers of one installation of each minor on this machine (pyenv's, or
#              $WHEEL_PYTHONS): the same headers serve both architectures (docs/packaging.md)
#
# Everything slow is cached under $IMPORTSCOPE_CACHE (default ~/.cache/importscope-build): the venv,
# the sysroots, zig's own cache, and the wheels themselves, keyed by the content of every file the
# build reads, so that a second run on the same tree copies them. auditwheel checks each wheel:
# the build fails unless it reports the manylinux_2_28 tag, or an older one, for it.
# Needs root on a first run (debootstrap). `build.sh toolchain ARCH` prints the directory of the
# compiler wrappers for ARCH alone.
set -eu
cd "$(dirname "$0")/../.."

CACHE=${IMPORTSCOPE_CACHE:-$HOME/.cache/importscope-build}
DIST=${DIST:-dist}
ARCHES=${WHEEL_ARCHES:-x86_64 aarch64}
JOBS=${JOBS:-2}
SUITE=bookworm
SYSROOT_PACKAGES="nettle-dev libcli11-dev libfmt-dev nlohmann-json3-dev"
PLATFORM_TAG=manylinux_2_28

say() { echo "== wheel: $*" >&2; }

# The build's tools: ziglang and auditwheel, at the versions in requirements.txt.
tools_venv() {
    key=$(cat tools/wheel/requirements.txt | sha256sum | cut -c1-12)
    venv=$CACHE/wheel-tools-$key
    if [ ! -f "$venv/.complete" ]; then
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv"/bin/pip install -q --disable-pip-version-check -r tools/wheel/requirements.txt
        touch "$venv/.complete"
    fi
    echo "$venv"
}

# One interpreter per minor, 3.10 to 3.13.
wheel_pythons() {
    if [ -n "${WHEEL_PYTHONS:-}" ]; then
        echo $WHEEL_PYTHONS
    else
        found=$(sh tools/find-pythons.sh)
        for minor in 3.10 3.11 3.12 3.13; do
            echo "$found" | grep -q "^$minor " ||
                { echo "wheel: no CPython $minor found; a wheel holds a worker for each of 3.10 to 3.13 (set WHEEL_PYTHONS)" >&2; exit 1; }
        done
        echo "$found" | cut -d' ' -f2- | tr '\n' ' '
    fi
}

# One include directory per interpreter.
python_includes() {
    includes=""
    for python in $1; do
        include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
        [ -f "$include/Python.h" ] || { echo "wheel: $python has no headers ($include/Python.h)" >&2; exit 1; }
        includes="$includes${includes:+;}$include"
    done
    echo "$includes"
}

# The wrappers that cmake/zig-toolchain.cmake names as the compilers of one architecture.
zig_wrappers() {
    arch=$1 venv=$2
    dir=$CACHE/zig-wrappers/$arch
    mkdir -p "$dir"
    zig=$("$venv"/bin/python -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
    caches="export ZIG_GLOBAL_CACHE_DIR='$CACHE/zig-cache' ZIG_LOCAL_CACHE_DIR='$CACHE/zig-cache'"
    # Rewritten only when they change: ccache (make wheel passes it through CMake) knows a compiler
    # by its file's size and time.
    for tool in cc c++ ar ranlib; do
        case $tool in
            cc|c++) command="exec \"$zig\" $tool -target $arch-linux-gnu.2.28 \"\$@\"" ;;
            *) command="exec \"$zig\" $tool \"\$@\"" ;;
        esac
        printf '#!/bin/sh\n%s\n%s\n' "$caches" "$command" > "$dir/$tool.new"
        chmod +x "$dir/$tool.new"
        if cmp -s "$dir/$tool.new" "$dir/$tool"; then rm "$dir/$tool.new"; else mv "$dir/$tool.new" "$dir/$tool"; fi
    done
    echo "$dir"
}

debian_arch() { case $1 in x86_64) echo amd64 ;; aarch64) echo arm64 ;; *) echo "wheel: unknown architecture $1" >&2; exit 1 ;; esac; }

# Everything the wheels are made of: the sources, the build's scripts, the toolchain's versions and
# the CPython headers' versions.
wheel_key() {
    {
        git ls-files -z -- CMakeLists.txt cmake src include data tools/wheel pyproject.toml LICENSE README.md |
            xargs -0 sha256sum
        echo "$1"
        for include in $(echo "$2" | tr ';' ' '); do sha256sum "$include/patchlevel.h" "$include/pyconfig.h"; done
        echo "$SUITE $SYSROOT_PACKAGES $PLATFORM_TAG"
    } | sha256sum | cut -c1-16
}

build_one() {
    arch=$1 venv=$2 includes=$3 out=$4 pythons=$5
    sysroot=$(sh tools/wheel/debian-root.sh "$SUITE" "$(debian_arch "$arch")" sysroot $SYSROOT_PACKAGES)
    wrappers=$(zig_wrappers "$arch" "$venv")
    build=build-wheel-$arch
    say "building for $arch in $build"
    export IMPORTSCOPE_ZIG_WRAPPERS="$wrappers" IMPORTSCOPE_ZIG_ARCH="$arch" IMPORTSCOPE_SYSROOT="$sysroot"
    mkdir -p "$build"
    cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/zig-toolchain.cmake" -DCMAKE_BUILD_TYPE=Release \
        -DIMPORTSCOPE_BUILD_TESTS=OFF -DIMPORTSCOPE_BUILD_PROBES=OFF -DIMPORTSCOPE_PYTHON_INCLUDES="$includes" \
        -DIMPORTSCOPE_BOOTSTRAP_PYTHONS="$(echo $pythons | tr ' ' ';')" \
        -DCMAKE_EXE_LINKER_FLAGS=-s -DCMAKE_MODULE_LINKER_FLAGS=-s > "$build/configure.log" 2>&1 ||
        { tail -30 "$build/configure.log" >&2; exit 1; }
    cmake --build "$build" -j "$JOBS" > "$build/build.log" 2>&1 || { tail -40 "$build/build.log" >&2; exit 1; }
    rm -rf "$build/stage"
    cmake --install "$build" --prefix "$build/stage" > /dev/null
    wheel=$("$venv"/bin/python tools/wheel/pack.py "$build/stage" "${PLATFORM_TAG}_$arch" "$out")
    "$venv"/bin/auditwheel show "$wheel" > "$wheel.auditwheel.txt" 2>&1 || { cat "$wheel.auditwheel.txt" >&2; exit 1; }
    "$venv"/bin/python tools/wheel/check_tag.py "$wheel.auditwheel.txt" "${PLATFORM_TAG}_$arch"
}

# build.sh toolchain ARCH: the directory of the compiler wrappers for ARCH (the tests build their
# probes for arm64 with it).
if [ "${1:-}" = toolchain ]; then
    zig_wrappers "$2" "$(tools_venv)"
    exit 0
fi

venv=$(tools_venv)
pythons=$(wheel_pythons)
includes=$(python_includes "$pythons")
zig_version=$("$venv"/bin/python -m ziglang version)
mkdir -p "$DIST"
for arch in $ARCHES; do
    key=$(wheel_key "zig $zig_version $arch" "$includes")
    cached=$CACHE/wheels/$arch-$key
    if [ -f "$cached/.complete" ]; then
        say "$arch: the wheel of this tree is cached ($cached)"
    else
        rm -rf "$cached"
        build_one "$arch" "$venv" "$includes" "$cached" "$pythons"
        touch "$cached/.complete"
        # The three newest trees' wheels are kept.
        ls -dt "$CACHE/wheels/$arch"-* | tail -n +4 | while read -r old; do rm -rf "$old"; done
    fi
    rm -f "$DIST"/importscope-*-"$arch".whl
    for wheel in "$cached"/*.whl; do
        cp "$wheel" "$DIST/"
        say "$DIST/$(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
        sed 's/^/    /' "$wheel.auditwheel.txt" >&2
    done
done
