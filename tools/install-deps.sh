#!/bin/sh
# Installs the Debian packages that building and testing importscope need, skipping those present,
# plus any packages named as arguments (make fuzz adds clang's). Runs apt-get through sudo when not
# root.
set -eu

packages="cmake make g++ ccache pkg-config python3 python3-dev python3-venv python3-pip python3-setuptools python3-wheel libcli11-dev libfmt-dev nlohmann-json3-dev nettle-dev catch2 \
pybind11-dev python3-pytest python3-jsonschema python3-pyte python3-lxml python3-pikepdf python3-markdown-it graphviz \
python3-numpy python3-scipy python3-pandas python3-matplotlib python3-sklearn python3-torch python3-idna \
slurm-wlm munge $*"

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "importscope: these Debian packages are missing and neither root nor sudo is available:$missing" >&2
    exit 1
fi
echo "importscope: installing Debian packages:$missing" >&2
$as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends $missing
