"""Helpers for the end-to-end tests: run the built importscope binary and read its report.

Every report a test reads is first validated against docs/report.schema.json.
"""
import json
import os
import signal
import subprocess
from pathlib import Path

import jsonschema
import pytest

BIN = os.environ["IMPORTSCOPE_BIN"]
BUILD = Path(os.environ["IMPORTSCOPE_BUILD_DIR"])
SOURCE = Path(os.environ["IMPORTSCOPE_SOURCE_DIR"])
PYTHON = os.environ["IMPORTSCOPE_PYTHON"]
PROBES = BUILD / "probes"
TARGETS = PROBES / "targets"
# make sanitize runs the suite with AddressSanitizer preloaded: slower, and larger in memory.
SANITIZED = "libasan" in os.environ.get("LD_PRELOAD", "")

_SCHEMA = json.loads((SOURCE / "docs" / "report.schema.json").read_text())
_VALIDATOR = jsonschema.Draft7Validator(_SCHEMA)


def validate(report):
    errors = sorted(_VALIDATOR.iter_errors(report), key=lambda e: list(e.path))
    assert not errors, "report does not match the schema:\n" + "\n".join(
        f"{list(e.path)}: {e.message}" for e in errors[:10])


class Run:
    def __init__(self, proc, report_path):
        self.proc = proc
        self.status = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.report_path = report_path
        self.report = None
        if report_path.exists():
            self.report = json.loads(report_path.read_text())
            validate(self.report)

    @property
    def exit(self):
        return self.report["run"]["exit"]

    def findings(self, kind=None):
        return [f for f in self.report["findings"] if kind is None or f["kind"] == kind]

    def modules(self, name):
        """The module records of `name`, each with its frames whole (the report names them by index)."""
        return [with_frames(self.report, m) for m in self.report["modules"] if m["name"] == name]


def with_frames(report, record):
    """A copy of a module record whose stack, call_site and caught_at are the frames of the report's
    "frames" that they name by index."""
    frames = report["frames"]
    whole = dict(record, stack=[frames[i] for i in record["stack"]])
    for key in ("call_site", "caught_at"):
        if record.get(key) is not None:
            whole[key] = frames[record[key]]
    return whole


@pytest.fixture
def importscope(tmp_path):
    """Runs `importscope run [--python PYTHON] -o <tmp>/report.json ARGS...`."""

    def run(*args, python=PYTHON, cwd=None, timeout=120, input=None, env=None, output=None):
        report = Path(output) if output else tmp_path / "report.json"
        command = [BIN, "run", "-o", str(report)]
        if python:
            command += ["--python", python]
        command += [str(a) for a in args]
        proc = subprocess.run(command, cwd=cwd or tmp_path, capture_output=True, text=True, timeout=timeout,
                              input=input if input is not None else "", env=env)
        return Run(proc, report)

    return run


def pypi_python(requirements):
    """The python of a venv of PYTHON with the pinned wheels of tools/<requirements> from PyPI
    (tools/pypi-venv.sh, cached outside the tree); the test is skipped when none can be made."""
    made = subprocess.run(["sh", str(SOURCE / "tools" / "pypi-venv.sh"), PYTHON, str(SOURCE / "tools" / requirements)],
                          capture_output=True, text=True, timeout=900)
    if made.returncode != 0:
        pytest.skip(f"no venv of tools/{requirements} could be made (tools/pypi-venv.sh installs it from PyPI): " +
                    made.stderr[-400:])
    return made.stdout.strip()


def probe(variant, script="broken.py"):
    return PROBES / variant / script


_PLAIN_ENDINGS = {}


def plain_ending(script, *args, env=None):
    """How `PYTHON script args` ends without importscope: (code, signal), one of them None. Whether
    the pybind11 probes abort at exit depends on the pybind11 and CPython versions (pybind11 2.10
    on CPython 3.11 does; pybind11 2.13 on 3.12 and pybind11 3 do not)."""
    key = (str(script), args, tuple(sorted((env or {}).items())))
    if key not in _PLAIN_ENDINGS:
        status = subprocess.run([PYTHON, str(script), *args], capture_output=True, timeout=120,
                                env=env).returncode
        _PLAIN_ENDINGS[key] = (None, -status) if status < 0 else (status, None)
    return _PLAIN_ENDINGS[key]


SIGNALS = signal.Signals


def run_then_signal(tmp_path, args, sig, ready):
    """Starts `importscope run ARGS`, waits for the target to print `ready`, sends `sig` to
    importscope itself, and returns the finished run."""
    report = tmp_path / "report.json"
    proc = subprocess.Popen([BIN, "run", "--python", PYTHON, "-o", str(report), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == ready
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    return Run(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), report)


def run_on_a_terminal(command, rows=24, columns=100, **popen):
    """Runs `command` with stderr (and, unless given, stdout) on a pseudo-terminal of that size;
    returns its exit status and everything written to the terminal."""
    import fcntl
    import pty
    import struct
    import termios

    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    popen.setdefault("stdout", terminal)
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=terminal, **popen)
    os.close(terminal)
    chunks = []
    while True:
        try:
            data = os.read(controller, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    status = proc.wait(timeout=60)
    os.close(controller)
    return status, b"".join(chunks).decode(errors="replace")


def install_twins(tmp_path, python="/usr/bin/python3"):
    """Two projects that both ship the package "twin" (twin-a 1.0 and twin-b 2.0), installed by
    Debian's pip into one directory, as two distributions that provide one top-level name
    (opencv-python and opencv-python-headless, say) end up: their files mixed, each one's RECORD
    claiming the directory. Returns that directory; skips without Debian's pip, setuptools, wheel."""
    check = "import setuptools, wheel, importlib.util; assert importlib.util.find_spec('pip')"
    if subprocess.run([python, "-c", check], capture_output=True).returncode != 0:
        pytest.skip("Debian's python3-pip, python3-setuptools and python3-wheel are not installed")
    for project, version in (("a", "1.0"), ("b", "2.0")):
        (tmp_path / project / "twin").mkdir(parents=True)
        (tmp_path / project / "setup.py").write_text(
            f"from setuptools import setup\nsetup(name='twin-{project}', version='{version}', packages=['twin'])\n")
        (tmp_path / project / "twin" / "__init__.py").write_text(f"FROM = {project!r}\n")
    site = tmp_path / "site"
    pip = subprocess.run([python, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                          "--disable-pip-version-check", "--target", str(site), str(tmp_path / "a"),
                          str(tmp_path / "b")], capture_output=True, text=True, cwd=tmp_path)
    assert pip.returncode == 0, pip.stderr
    return site
