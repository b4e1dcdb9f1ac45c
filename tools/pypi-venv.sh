#!/bin/sh
# A venv of PYTHON with the pinned packages of a requirements file from PyPI, for the end-to-end
# tests that run real wheels (tests/e2e/test_ray.py, tests/e2e/test_wheels_in_the_wild.py).
#
#   sh tools/pypi-venv.sh PYTHON REQUIREMENTS [--no-deps]     prints the venv's python on stdout
#
# With --no-deps, pip installs the file's packages and nothing they require: a file that names
# every package it needs, where the packages' own requirements would download gigabytes that the
# test does not use (vllm's whole stack, torch's CUDA wheels).
# The venv is cached outside the tree, in ${XDG_CACHE_HOME:-~/.cache}/importscope-build/, as
# <name>-venv-<key> for tools/<name>-requirements.txt, the key hashing the file's requirement lines
# (not its comments) and the interpreter (its real path and version), so that a second run, or a
# second clone, downloads nothing. It is made where it stays (its scripts, `ray` among them, name
# their venv's path), and marked whole once pip succeeded: one without the mark is made again.
# Exits 1, with pip's last words on stderr, when it cannot be made (no network, say).
set -eu
cd "$(dirname "$0")/.."
python=${1:?usage: sh tools/pypi-venv.sh PYTHON REQUIREMENTS}
requirements=${2:?usage: sh tools/pypi-venv.sh PYTHON REQUIREMENTS [--no-deps]}
deps=${3:-}
case $deps in
    '' | --no-deps) ;;
    *) echo "usage: sh tools/pypi-venv.sh PYTHON REQUIREMENTS [--no-deps]" >&2; exit 2 ;;
esac
name=$(basename "$requirements" -requirements.txt)

interpreter=$("$python" -c 'import os, sys; print(os.path.realpath(sys.executable), sys.version)')
key=$({ grep -v '^#' "$requirements"; echo "$interpreter"; [ -z "$deps" ] || echo "$deps"; } | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/importscope-build
venv=$cache/$name-venv-$key
mkdir -p "$cache"

if [ ! -f "$venv/.complete" ]; then
    # One builder at a time (two suites may start together); the second finds the venv made.
    exec 9>"$cache/$name-venv-$key.lock"
    flock 9
    if [ ! -f "$venv/.complete" ]; then
        rm -rf "$venv"
        log=$cache/$name-venv-$key.log
        if ! { "$python" -m venv "$venv" &&
               "$venv/bin/pip" install -q --disable-pip-version-check --no-input \
                   $deps -r "$requirements"; } > "$log" 2>&1; then
            tail -5 "$log" >&2
            rm -rf "$venv"
            exit 1
        fi
        touch "$venv/.complete"
    fi
fi
echo "$venv/bin/python"
