#!/bin/sh
# Prints "3.X PATH" for one CPython of each minor 3.10 to 3.13 on this machine: pyenv's newest
# version of that minor under $PYENV_ROOT (default ~/.pyenv), else python3.X on PATH. A minor
# with none is left out. Used by make matrix, make wheel and the wheel tests.
root=${PYENV_ROOT:-$HOME/.pyenv}
for minor in 10 11 12 13; do
    found=""
    for candidate in "$root"/versions/3."$minor".*/bin/python3."$minor"; do
        [ -x "$candidate" ] && found=$candidate
    done
    [ -z "$found" ] && found=$(command -v python3."$minor" || true)
    [ -n "$found" ] && echo "3.$minor $found"
done
exit 0
