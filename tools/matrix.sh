#!/bin/sh
# make matrix: importscope on every CPython 3.10 to 3.13 this machine has.
#
# For each minor found (pyenv's versions under $PYENV_ROOT, else python3.X on PATH; or the
# interpreters named in $MATRIX_PYTHONS):
#   1. a build for that interpreter (its worker, bootstrap module and probes) and the whole test
#      suite on it: unit, embedded and end-to-end tests, the probes built with pybind11 2.x (Debian's
#      2.10 where it supports the minor, PyPI's 2.13 for 3.12 and later), pybind11 3.x and nanobind;
#      the default build ($(BUILD), the minor `make test` already ran) is reused;
#   2. `pip install .` into a fresh venv of that interpreter, and the DeepGEMM probe run by the
#      venv's own importscope with no --python: it must run the target on the venv's Python and
#      find the duplicate init;
#   3. for the default minor, `pipx install .` (into a scratch PIPX_HOME), whose importscope is run
#      on the probe with --python (a pipx environment is no one's default interpreter).
# With MATRIX_PRUNE=1 (CI), a minor's own build tree and venv are removed once its checks have
# passed: four build trees at once take several GB.
# Everything is built one minor at a time (2 cores); a failure of any step fails the run.
set -eu
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build}
OUT=${MATRIX_DIR:-build-matrix}
JOBS=${JOBS:-2}
TOOLS_VENV=${TOOLS_VENV:-.venv-tools}
PYBIND11_2_TARGET=$TOOLS_VENV/pybind11-2
mkdir -p "$OUT"

find_pythons() {
    if [ -n "${MATRIX_PYTHONS:-}" ]; then
        echo "$MATRIX_PYTHONS"
        return
    fi
    sh tools/find-pythons.sh | cut -d' ' -f2-
}

minor_of() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }

# The minor of the default build, whose suite `make test` runs.
default_python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null || true)
default_minor=$( [ -n "$default_python" ] && minor_of "$default_python" || echo none)

probe_flags() {
    echo "-DIMPORTSCOPE_PYBIND11_3_INCLUDE=$("$TOOLS_VENV"/bin/python -c 'import pybind11; print(pybind11.get_include())')"
    echo "-DIMPORTSCOPE_NANOBIND_DIR=$("$TOOLS_VENV"/bin/python -m nanobind --cmake_dir)"
    case "$1" in
        3.10|3.11) ;;  # Debian's pybind11 2.10
        *)
            if [ ! -d "$PYBIND11_2_TARGET/pybind11" ]; then
                "$TOOLS_VENV"/bin/pip install -q --disable-pip-version-check --target "$PYBIND11_2_TARGET" "pybind11==2.13.6"
            fi
            echo "-Dpybind11_DIR=$PWD/$PYBIND11_2_TARGET/pybind11/share/cmake/pybind11" ;;
    esac
}

summary=""
pythons=$(find_pythons)
[ -n "$pythons" ] || { echo "matrix: no CPython 3.10 to 3.13 found" >&2; exit 1; }
for python in $pythons; do
    minor=$(minor_of "$python")
    echo "== matrix: CPython $minor ($python)"
    if [ "$minor" = "$default_minor" ]; then
        build=$BUILD
        echo "== matrix: $minor is the default build's; its suite ran in make test"
    else
        # Beside $BUILD, at the same depth: ccache's paths are relative to the source tree, so the
        # objects that do not include Python.h are those of the default build.
        build=$OUT-$minor
        # One importscope, two workers: this minor's (the tests' default) and that of Debian's
        # /usr/bin/python3, which some tests name.
        workers=$python
        if [ -x /usr/bin/python3 ] && [ "$(minor_of /usr/bin/python3)" != "$minor" ] &&
           [ -f "/usr/include/python$(minor_of /usr/bin/python3)/Python.h" ]; then
            workers="$python;/usr/bin/python3"
        fi
        # shellcheck disable=SC2046 # one flag a line
        cmake -S . -B "$build" -DPython3_EXECUTABLE="$python" -DIMPORTSCOPE_PYTHONS="$workers" \
            $(probe_flags "$minor") > "$OUT/configure-$minor.log"
        cmake --build "$build" -j "$JOBS" > "$OUT/build-$minor.log" || { tail -40 "$OUT/build-$minor.log"; exit 1; }
        (cd "$build" && ctest --output-on-failure -j "$JOBS")
    fi

    venv=$OUT/venv-$minor
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv"/bin/pip install -q --disable-pip-version-check . > "$OUT/pip-$minor.log" 2>&1 || { tail -40 "$OUT/pip-$minor.log"; exit 1; }
    report=$PWD/$OUT/deepgemm-$minor.json
    tool=$PWD/$venv/bin/importscope
    target=$PWD/$build/probes/deepgemm_pybind/broken.py
    set +e
    (cd "$OUT" && env -u VIRTUAL_ENV "$tool" run -q -o "$report" "$target" > /dev/null 2>&1)
    status=$?
    set -e
    /usr/bin/python3 tools/matrix_check.py "$report" "$status" "$venv" "$minor"
    summary="$summary  CPython $minor: suite passed; pip install . and the DeepGEMM probe from its venv passed
"
    if [ "${MATRIX_PRUNE:-0}" = 1 ] && [ "$minor" != "$default_minor" ]; then
        rm -rf "$build" "$venv"
    fi
    if [ "$minor" = "$default_minor" ]; then
        pipx_home=$PWD/$OUT/pipx
        rm -rf "$pipx_home"
        PIPX_HOME=$pipx_home PIPX_BIN_DIR=$pipx_home/bin "$TOOLS_VENV"/bin/pipx install --python "$python" . \
            > "$OUT/pipx.log" 2>&1 || { tail -40 "$OUT/pipx.log"; exit 1; }
        report=$PWD/$OUT/deepgemm-pipx.json
        venv_python=$PWD/$venv/bin/python3
        set +e
        (cd "$OUT" && "$pipx_home/bin/importscope" run -q --python "$venv_python" -o "$report" "$target" \
            > /dev/null 2>&1)
        status=$?
        set -e
        /usr/bin/python3 tools/matrix_check.py "$report" "$status" "$venv" "$minor" "pipx's importscope"
        summary="$summary  CPython $minor: pipx install . and the DeepGEMM probe run by it passed
"
    fi
done
echo "== matrix passed"
printf '%s' "$summary"
