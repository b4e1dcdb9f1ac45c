"""The sys.path that an interpreter's start-up would build, worked out without running any of it.

`importscope scan` runs its scanner with `-I -S`: no PYTHONPATH, no site, no .pth file, no
sitecustomize or usercustomize of the examined environment runs in it. This module rebuilds what
the interpreter's path configuration and `site` would have added, from files read as text, as
fingerprint.py does for `run`: PYTHONPATH from the environment, a virtual environment's prefix from
its pyvenv.cfg (as site.venv() reads it), the user's site-packages where site would add it, the
site-packages directories, and the directories their .pth files name. The code that start-up
would run (a .pth file's `import` lines, sitecustomize, usercustomize) is recorded as facts,
never executed.
"""
import os
import site
import stat
import sys

# A .pth file or pyvenv.cfg larger than this is not read: site would read it, but no real one comes near.
TEXT_LIMIT = 1 << 20


def read_regular(path, limit):
    """The bytes of a regular file no larger than `limit`, or None (a FIFO, a device, a directory,
    a file too large or unreadable). Opened without blocking, so a FIFO never waits for a writer."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks) if size <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def read_lines(path):
    data = read_regular(path, TEXT_LIMIT)
    if data is None:
        return None
    return data.decode("utf-8-sig", errors="replace").splitlines()


def makepath(*paths):
    """site.makepath: an absolute path and its case-normalized key."""
    directory = os.path.abspath(os.path.join(*paths))
    return directory, os.path.normcase(directory)


def virtual_environment():
    """(prefix, include-system-site-packages) as site.venv() finds them, or (None, True)."""
    exe_dir = os.path.dirname(os.path.abspath(sys.executable))
    prefix = os.path.dirname(exe_dir)
    for directory in (exe_dir, prefix):
        lines = read_lines(os.path.join(directory, "pyvenv.cfg"))
        if lines is None:
            continue
        system_site = "true"
        for line in lines:
            key, sep, value = line.partition("=")
            if sep and key.strip().lower() == "include-system-site-packages":
                system_site = value.strip().lower()
        return prefix, system_site == "true"
    return None, True


def user_site_enabled():
    """site.check_enableusersite() as the examined interpreter would answer it when started
    normally (this process runs with -I, which disables the user site for itself)."""
    if os.environ.get("PYTHONNOUSERSITE"):
        return False
    if hasattr(os, "getuid") and (os.getuid() != os.geteuid() or os.getgid() != os.getegid()):
        return False
    return True


class StartupPath:
    """sys.path as start-up would make it, with the site directories, the .pth lines that added an
    entry, and the code start-up would run."""

    def __init__(self):
        self.path = []
        self.known = set()
        self.site_dirs = []
        self.pth_lines = {}  # real path -> (pth file, line number) of the first .pth line naming it
        self.startup_code = []  # [{"kind", "file", "line", "text"}]

    def append(self, directory):
        directory, key = makepath(directory)
        if key not in self.known:
            self.path.append(directory)
            self.known.add(key)

    def add_site_dir(self, site_dir):
        """site.addsitedir: the directory, then each of its .pth files in name order."""
        self.site_dirs.append(site_dir)
        self.append(site_dir)
        try:
            names = sorted(n for n in os.listdir(site_dir) if n.endswith(".pth") and not n.startswith("."))
        except OSError:
            return
        for name in names:
            self.add_pth(site_dir, os.path.join(site_dir, name))

    def add_pth(self, site_dir, pth):
        """site.addpackage, with its `import` lines recorded instead of executed."""
        for number, line in enumerate(read_lines(pth) or [], 1):
            if line.startswith("#") or not line.strip():
                continue
            if line.startswith(("import ", "import\t")):
                self.startup_code.append({"kind": "pth-import", "file": pth, "line": number, "text": line.strip()})
                continue
            directory, key = makepath(site_dir, line.rstrip())
            self.pth_lines.setdefault(os.path.realpath(directory), (pth, number))
            if key not in self.known and os.path.exists(directory):
                self.path.append(directory)
                self.known.add(key)

    def find_customize(self, name):
        """Where `import sitecustomize` (or usercustomize) would find its module on this path."""
        for entry in self.path:
            for candidate in (name + ".py", os.path.join(name, "__init__.py")):
                if os.path.isfile(os.path.join(entry, candidate)):
                    self.startup_code.append({"kind": name, "file": os.path.join(entry, candidate), "line": 0,
                                              "text": f"import {name}"})
                    return


def startup_path(own_dir):
    """Works out the interpreter's start-up sys.path. A virtual environment's prefix becomes this
    process's sys.prefix and sys.exec_prefix, as site.venv() makes it, so that sysconfig answers
    as it would in the examined environment."""
    found = StartupPath()
    python_path = os.environ.get("PYTHONPATH", "")
    for entry in python_path.split(os.pathsep) if python_path else []:
        found.append(entry)
    for entry in sys.path:
        if entry and os.path.abspath(entry) != own_dir:
            found.append(entry)
    prefixes = [sys.prefix, sys.exec_prefix]
    venv, system_site = virtual_environment()
    enable_user = user_site_enabled()
    if venv is not None:
        sys.prefix = sys.exec_prefix = venv
        for directory in site.getsitepackages([venv]):
            if os.path.isdir(directory):
                found.add_site_dir(directory)
        if system_site:
            prefixes.insert(0, venv)
        else:
            prefixes = [venv]
            enable_user = False
    user_site = site.getusersitepackages() if enable_user else None
    if user_site and os.path.isdir(user_site):
        found.add_site_dir(user_site)
    for directory in site.getsitepackages(prefixes):
        if os.path.isdir(directory):
            found.add_site_dir(directory)
    found.site_dirs = sorted(set(site.getsitepackages(prefixes)) | ({user_site} if user_site else set()))
    found.find_customize("sitecustomize")
    if enable_user:
        found.find_customize("usercustomize")
    return found
