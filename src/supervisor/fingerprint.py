"""importscope's environment fingerprint, run by the supervisor after the target with the target's
interpreter and environment (never inside the target).

Usage: python -S fingerprint.py
Prints one JSON object: the interpreter, the platform, the versions of the packages that matter for
the double-initialization family, and for every importable top-level module name the distributions
that own it (the supervisor keeps those of the modules the run recorded), and the directories it
read with their modification times, so that the supervisor can reuse the answer while none of
them changes. It runs while the target runs, so it is given nothing about the run.
It runs with -S, so that no sitecustomize or .pth file of the environment executes for it, and
works out what site would have made of the environment without running any of it: a virtual
environment's prefix from its pyvenv.cfg (as site.venv() reads it), its site-packages (and the base
installation's when include-system-site-packages says so, and the user's where site would add it),
and the directories that .pth files name (their `import` lines are not run). It reads the
*.dist-info / *.egg-info metadata on that path directly (the first one found for a name wins, as
with importlib.metadata) instead of importing importlib.metadata, which costs more than all the
rest together.
"""
import json
import os
import site
import sys

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


def distributions():
    seen = set()
    for entry in sys.path:
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


def virtual_environment():
    """(prefix, include-system-site-packages) of the virtual environment sys.executable belongs to,
    found as site.venv() finds it, or (None, True) outside one."""
    exe_dir = os.path.dirname(os.path.abspath(sys.executable))
    for directory in (exe_dir, os.path.dirname(exe_dir)):
        config = os.path.join(directory, "pyvenv.cfg")
        try:
            with open(config, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        system_site = False
        for line in lines:
            key, sep, value = line.partition("=")
            if sep and key.strip().lower() == "include-system-site-packages":
                system_site = value.strip().lower() == "true"
        return os.path.dirname(exe_dir), system_site
    return None, True


def pth_directories(site_dir):
    """The existing directories that the .pth files of site_dir add, as site.addpackage() reads
    them; their `import` lines, which site would run, are skipped."""
    try:
        names = sorted(n for n in os.listdir(site_dir) if n.endswith(".pth") and not n.startswith("."))
    except OSError:
        return []
    found = []
    for name in names:
        try:
            with open(os.path.join(site_dir, name), encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for line in lines:
            if not line.strip() or line.startswith("#") or line.startswith(("import ", "import\t")):
                continue
            directory = os.path.abspath(os.path.join(site_dir, line.rstrip()))
            if os.path.exists(directory):
                found.append(directory)
    return found


def site_path(venv, system_site):
    """What site.main() would append to sys.path: the site-packages directories, each followed by
    the directories its .pth files name."""
    # A venv's own site-packages, as CPython (and Debian's site.py, which answers differently for
    # a prefix when site has not set sys.prefix) lays it out.
    version = "python%d.%d" % sys.version_info[:2]
    libdirs = dict.fromkeys([getattr(sys, "platlibdir", "lib"), "lib"])
    directories = [os.path.join(venv, libdir, version, "site-packages") for libdir in libdirs] if venv else []
    if system_site:
        if site.check_enableusersite():
            directories.insert(0, site.getusersitepackages())
        directories += site.getsitepackages([sys.base_prefix])
    path = []
    for directory in directories:
        if os.path.isdir(directory):
            path.append(directory)
            path.extend(pth_directories(directory))
    return path


def main():
    venv, system_site = virtual_environment()
    sys.path.extend(p for p in site_path(venv, system_site) if p not in sys.path)
    versions, owners = {}, {}
    for name, version, info_dir in distributions():
        versions[normalize(name)] = version
        for top in top_levels(info_dir):
            owners.setdefault(top, []).append({"name": name, "version": version})
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError, AttributeError):
        libc = None
    uname = os.uname()
    scanned = []
    for entry in sys.path:
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
