"""importscope's environment fingerprint, run by the supervisor right after the target starts, with the
target's interpreter and environment (never inside the target).

Usage: python -I -S fingerprint.py
Prints one JSON object: the interpreter and the platform, and the directories of the sys.path that
start-up would build (`scanned`, in order) with their modification times, so that the supervisor
can reuse the answer while none of them changes; importscope reads the distributions' metadata on
that path itself (collect/distributions.cpp), with the reader the analysis uses. It runs while the
target runs, so it is given nothing about the run.
It runs with -I -S, so that no sitecustomize, .pth file or PYTHONPATH module of the environment
executes for it, and takes the sys.path that start-up would have built from startup_path.py, which
`scan` uses too: PYTHONPATH, a virtual environment's prefix from its pyvenv.cfg, its site-packages
(and the base installation's when include-system-site-packages says so, and the user's where site
would add it), and the directories that .pth files name (their `import` lines are not run).
"""
import json
import os
import sys

# startup_path.py is installed beside this file; run with -I, this file's directory is not on sys.path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup_path import startup_path, virtual_environment  # noqa: E402

del sys.path[0]


def main():
    venv, _ = virtual_environment()
    path = startup_path(os.path.dirname(os.path.abspath(__file__))).path
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError, AttributeError):
        libc = None
    uname = os.uname()
    scanned = []
    for entry in path:
        try:
            scanned.append([os.path.abspath(entry or "."), os.stat(entry or ".").st_mtime_ns])
        except OSError:
            pass
    print(json.dumps({
        "scanned": scanned,
        "python": {
            "version": ".".join(map(str, sys.version_info[:3])),
            "implementation": sys.implementation.name.replace("cpython", "CPython"),
            "executable": sys.executable,
            "prefix": venv or sys.prefix,
            "base_prefix": sys.base_prefix,
            "in_venv": venv is not None,
        },
        "platform": f"{uname.sysname}-{uname.release}-{uname.machine}",
        "machine": uname.machine,
        "libc": libc,
    }, sort_keys=True))


if __name__ == "__main__":
    main()
