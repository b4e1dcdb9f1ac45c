"""importscope's environment fingerprint, run by the supervisor after the target with the target's
interpreter and environment (never inside the target).

Usage: python -I -S fingerprint.py
Prints one JSON object: the interpreter, the platform, the versions of the packages that matter for
the double-initialization family, and for every importable top-level module name the distributions
that own it (the supervisor keeps those of the modules the run recorded), and the directories it
read with their modification times, so that the supervisor can reuse the answer while none of
them changes. It runs while the target runs, so it is given nothing about the run.
It runs with -I -S, so that no sitecustomize, .pth file or PYTHONPATH module of the environment
executes for it, and takes the sys.path that start-up would have built from startup_path.py, which
`scan` uses too: PYTHONPATH, a virtual environment's prefix from its pyvenv.cfg, its site-packages
(and the base installation's when include-system-site-packages says so, and the user's where site
would add it), and the directories that .pth files name (their `import` lines are not run). It reads the
*.dist-info / *.egg-info metadata on that path directly (the first one found for a name wins, as
with importlib.metadata) instead of importing importlib.metadata, which costs more than all the
rest together.
"""
import json
import os
import sys

# startup_path.py is installed beside this file; run with -I, this file's directory is not on sys.path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup_path import startup_path, virtual_environment  # noqa: E402

del sys.path[0]

PACKAGES = ["vllm", "flashinfer-python", "torch", "deep_gemm", "deep-gemm", "pybind11", "triton"]


def normalize(name):
    return name.lower().replace("-", "_").replace(".", "_")


def read_header(path):
    """Name and Version from a METADATA or PKG-INFO file's header."""
    name = version = None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break
                if line.startswith("Name:") and name is None:
                    name = line[5:].strip()
                elif line.startswith("Version:") and version is None:
                    version = line[8:].strip()
    except OSError:
        pass
    return name, version


def top_levels(info_dir):
    try:
        with open(os.path.join(info_dir, "top_level.txt"), encoding="utf-8") as f:
            return {line.strip() for line in f if line.strip()}
    except OSError:
        pass
    names = set()
    try:
        with open(os.path.join(info_dir, "RECORD"), encoding="utf-8") as f:
            for line in f:
                first = line.split(",", 1)[0].split("/", 1)[0]
                if first and not first.endswith((".dist-info", ".egg-info", ".data")) and first != "..":
                    names.add(first[:-3] if first.endswith(".py") else first)
    except OSError:
        pass
    return names


def distributions(path):
    seen = set()
    for entry in path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for item in names:
            if not item.endswith((".dist-info", ".egg-info")):
                continue
            info_dir = os.path.join(entry or ".", item)
            metadata = os.path.join(info_dir, "METADATA" if item.endswith(".dist-info") else "PKG-INFO")
            name, version = read_header(metadata)
            if name and normalize(name) not in seen:
                seen.add(normalize(name))
                yield name, version, info_dir


def main():
    venv, _ = virtual_environment()
    path = startup_path(os.path.dirname(os.path.abspath(__file__))).path
    versions, owners = {}, {}
    for name, version, info_dir in distributions(path):
        versions[normalize(name)] = version
        for top in top_levels(info_dir):
            owners.setdefault(top, []).append({"name": name, "version": version})
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
        "packages": {name: versions.get(normalize(name)) for name in PACKAGES},
        "distributions": {top: sorted(dists, key=lambda d: d["name"]) for top, dists in sorted(owners.items())},
    }, sort_keys=True))


if __name__ == "__main__":
    main()
