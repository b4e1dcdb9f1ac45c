"""Helpers for the wheel tests (make wheel-check): the wheels of `make wheel`, the DeepGEMM probe
built for a given CPython and architecture, and Debian roots to run them in.

The roots come from tools/wheel/debian-root.sh (cached outside the clone). A test runs a command in
a root through a private mount namespace (unshare -m) with /proc and /dev bound in, so nothing is
mounted on the machine itself; whatever it writes lives in a scratch directory under the root's
/tmp that it removes.
"""
import glob
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2]
DIST = Path(os.environ.get("DIST", SOURCE / "dist"))
TOOLS_VENV = Path(os.environ.get("TOOLS_VENV", SOURCE / ".venv-tools"))
PROBES = SOURCE / "probes"
DUPLICATE = ["vllm_mini.third_party.deep_gemm._C", "deep_gemm._C"]


def wheel_for(arch):
    found = sorted(glob.glob(str(DIST / f"importscope-*-py3-none-manylinux_*_{arch}.whl")))
    assert len(found) == 1, f"expected one {arch} wheel in {DIST} (make wheel), found {found}"
    return Path(found[0])


def pybind11_include():
    python = TOOLS_VENV / "bin" / "python"
    assert python.exists(), f"{python} is missing (make tools-venv)"
    return subprocess.check_output([python, "-c", "import pybind11; print(pybind11.get_include())"],
                                   text=True).strip()


def build_probe(dest, compiler, python_include, ext_suffix):
    """The DeepGEMM probe (probes/deepgemm) in dest, its pybind11 extension _C built by `compiler`
    (a command list) against `python_include`; returns dest/broken.py."""
    shutil.copytree(PROBES / "deepgemm", dest, ignore=shutil.ignore_patterns("__pycache__"))
    out = dest / "vllm_mini" / "third_party" / "deep_gemm" / f"_C{ext_suffix}"
    command = [*compiler, "-O1", "-shared", "-fPIC", "-std=c++17", "-fvisibility=hidden",
               f"-I{pybind11_include()}", f"-I{python_include}", f"-I{PROBES / 'csrc'}",
               str(PROBES / "csrc" / "deep_gemm_pybind.cpp"), "-o", str(out)]
    subprocess.run(command, check=True)
    return dest / "broken.py"


def unpack_wheel(wheel, prefix):
    """The files the wheel installs at an environment's prefix, laid out under prefix, with their
    modes, as pip would (for a root with no pip)."""
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            parts = info.filename.split("/")
            if len(parts) < 3 or not parts[0].endswith(".data") or parts[1] != "data":
                continue
            target = prefix.joinpath(*parts[2:])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
            target.chmod((info.external_attr >> 16) & 0o777 or 0o644)


def debian_root(suite, arch, variant, *packages):
    if os.geteuid() != 0:
        pytest.skip("making and entering a Debian root needs root (debootstrap, chroot)")
    if not shutil.which("debootstrap"):
        pytest.skip("debootstrap is missing (apt-get install debootstrap)")
    return Path(subprocess.check_output(
        ["sh", str(SOURCE / "tools" / "wheel" / "debian-root.sh"), suite, arch, variant, *packages],
        text=True).strip())


def in_root(root, argv, **kwargs):
    """Runs argv in root: a private mount namespace, /proc and /dev bound in, then chroot."""
    script = ('mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && '
              'mount -t tmpfs tmpfs "$0/dev/shm" && exec chroot "$0" "$@"')
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(root),
                           *argv], capture_output=True, text=True, **kwargs)


def ensure_binfmt(arch):
    """Registers qemu-user-static for arch with binfmt_misc (with the F flag, so that it serves
    chroots), unless it is; skips the test when this machine cannot."""
    entry = Path(f"/proc/sys/fs/binfmt_misc/qemu-{arch}")
    if entry.exists() and "enabled" in entry.read_text():
        return
    config = Path(f"/usr/lib/binfmt.d/qemu-{arch}.conf")
    if not config.exists():
        pytest.skip(f"qemu-user-static is missing ({config}; apt-get install qemu-user-static)")
    if os.geteuid() != 0:
        pytest.skip("registering qemu with binfmt_misc needs root")
    register = Path("/proc/sys/fs/binfmt_misc/register")
    if not register.exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", "/proc/sys/fs/binfmt_misc"],
                       capture_output=True)
    try:
        register.write_text(config.read_text().strip())
    except OSError as error:
        pytest.skip(f"binfmt_misc cannot be used here ({error}), so no {arch} program can be run")


@pytest.fixture
def root_scratch(request):
    """A function that gives a fresh directory under a root's /tmp, removed after the test."""
    made = []

    def make(root):
        path = root / "tmp" / f"importscope-wheel-test-{os.getpid()}-{len(made)}"
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        made.append(path)
        return path

    yield make
    for path in made:
        shutil.rmtree(path, ignore_errors=True)


def host_pythons():
    """{"3.X": path}: one CPython of each minor 3.10 to 3.13 on this machine, as make matrix and
    make wheel find them (tools/find-pythons.sh)."""
    lines = subprocess.check_output(["sh", str(SOURCE / "tools" / "find-pythons.sh")], text=True).splitlines()
    return dict(line.split(" ", 1) for line in lines)


def python_fact(python, expression):
    return subprocess.check_output([python, "-c", f"import sysconfig; print({expression})"], text=True).strip()

