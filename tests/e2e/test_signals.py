"""Signals and job control around a run: Ctrl-Z in an interactive shell, signals while the report is
written into a slow FIFO, a FIFO nobody reads, the signals whose default ends a process, and a
target that ignores SIGTERM."""
import fcntl
import json
import os
import pty
import re
import select
import signal
import subprocess
import termios
import time
from pathlib import Path

import pytest

from conftest import BIN, PYTHON, validate


def _kill_session(sid):
    """SIGKILL to every process of the session `sid` (the test's own shell and what it started)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid:
            try:
                os.kill(int(stat.parent.name), signal.SIGKILL)
            except ProcessLookupError:
                pass


class Terminal:
    """What a pseudo-terminal's controller reads, waited for by pattern."""

    def __init__(self, fd):
        self.fd = fd
        self.text = b""

    def expect(self, pattern, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.text)
            if found:
                return found
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} on the terminal; it shows:\n{self.text.decode(errors='replace')}"
            if select.select([self.fd], [], [], min(left, 0.5))[0]:
                try:
                    self.text += os.read(self.fd, 65536)
                except OSError:
                    pass


def test_ctrl_z_stops_the_job_and_fg_continues_it(tmp_path):
    # As with `python script.py`: ^Z makes the shell say the job stopped, and fg finishes the run.
    flag = tmp_path / "go-on"
    target = tmp_path / "waits.py"
    target.write_text("import os, time\nprint('READY', flush=True)\n"
                      f"while not os.path.exists({str(flag)!r}):\n    time.sleep(0.05)\nprint('DONE', flush=True)\n")
    report = tmp_path / "report.json"
    pid, fd = pty.fork()
    if pid == 0:
        os.execve("/bin/bash", ["bash", "--norc", "--noprofile", "-i"], dict(os.environ, PS1="$ ", TERM="dumb"))
    try:
        shell = Terminal(fd)
        os.write(fd, f"{BIN} run -q --python {PYTHON} -o {report} {target}\n".encode())
        shell.expect(rb"READY")
        os.write(fd, b"\x1a")
        shell.expect(rb"Stopped")
        flag.touch()
        os.write(fd, b"fg; echo EXIT=$?\n")
        status = int(shell.expect(rb"EXIT=(\d+)").group(1))
        assert b"DONE" in shell.text
        assert status == 0, shell.text.decode(errors="replace")
        written = json.loads(report.read_text())
        validate(written)
        assert written["run"]["exit"]["code"] == 0
        os.write(fd, b"exit\n")
    finally:
        _kill_session(pid)
        os.waitpid(pid, 0)
        os.close(fd)


# A report larger than a pipe holds (64 KiB): every module of these is recorded with --match '*'.
_MANY_IMPORTS = ("import asyncio, email.mime.multipart, http.server, xml.dom.minidom, unittest, logging.handlers\n"
                 "import concurrent.futures, decimal, argparse, json, csv, sqlite3, tarfile, zipfile, pydoc\n")

_REPORT_PHASE_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGXFSZ",
                         "SIGVTALRM", "SIGPROF"]


@pytest.mark.parametrize("name", _REPORT_PHASE_SIGNALS)
def test_a_signal_while_the_report_goes_into_a_slow_fifo_ends_nothing(tmp_path, name):
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    run_dirs = tmp_path / "tmp"
    run_dirs.mkdir()
    target = tmp_path / "many.py"
    target.write_text(_MANY_IMPORTS)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    proc = subprocess.Popen([BIN, "run", "-q", "--python", PYTHON, "--match", "*", "-o", str(fifo), str(target)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=dict(os.environ, TMPDIR=str(run_dirs)))
    try:
        # The pipe is full: importscope is inside the report's write, and waits for the reader.
        deadline = time.monotonic() + 90
        while int.from_bytes(fcntl.ioctl(reader, termios.FIONREAD, b"\0" * 4), "little") < 65536:
            assert proc.poll() is None and time.monotonic() < deadline, "the report never filled the pipe"
            time.sleep(0.05)
        proc.send_signal(getattr(signal, name))
        time.sleep(0.5)
        fcntl.fcntl(reader, fcntl.F_SETFL, fcntl.fcntl(reader, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        chunks = []
        while chunk := os.read(reader, 1 << 20):
            chunks.append(chunk)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(reader)
    written = json.loads(b"".join(chunks))
    validate(written)
    assert proc.returncode == 0, proc.stderr.read().decode()
    assert list(run_dirs.iterdir()) == []


def test_a_fifo_nobody_reads_fails_within_the_timeout_and_the_report_is_kept(tmp_path):
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    run_dirs = tmp_path / "tmp"
    run_dirs.mkdir()
    target = tmp_path / "quick.py"
    target.write_text("print('hi')\n")
    started = time.monotonic()
    proc = subprocess.Popen([BIN, "run", "-q", "--python", PYTHON, "--timeout", "3", "-o", str(fifo), str(target)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, TMPDIR=str(run_dirs)))
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 125, err
    assert time.monotonic() - started < 50
    assert "no process opened for reading" in err
    kept = re.search(r"and the report as (\S+)\)", err).group(1)
    assert Path(kept).parent.parent == run_dirs
    validate(json.loads(Path(kept).read_text()))


@pytest.mark.parametrize("name", ["SIGBUS", "SIGSYS", "SIGTRAP", "SIGRTMIN"])
def test_signals_whose_default_ends_a_process_are_passed_on_and_reported(tmp_path, name):
    number = int(getattr(signal, name))
    target = tmp_path / "waits.py"
    target.write_text("import time\nprint('ready', flush=True)\ntime.sleep(120)\n")
    report = tmp_path / "report.json"
    proc = subprocess.Popen([BIN, "run", "-q", "--python", PYTHON, "-o", str(report), str(target)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(number)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + number, err
    written = json.loads(report.read_text())
    validate(written)
    assert written["run"]["exit"]["signal"] == number
    assert written["run"]["exit"]["forwarded_signal"] is not None


def test_a_target_that_ignores_sigterm_is_killed_after_the_grace_period(tmp_path):
    target = tmp_path / "stubborn.py"
    target.write_text("import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                      "print('ready', flush=True)\ntime.sleep(300)\n")
    report = tmp_path / "report.json"
    proc = subprocess.Popen([BIN, "run", "-q", "--python", PYTHON, "-o", str(report), str(target)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGKILL, err
    assert 9 < waited < 50
    exit_ = json.loads(report.read_text())["run"]["exit"]
    assert (exit_["signal"], exit_["forwarded_signal"]) == (signal.SIGKILL, "SIGTERM")
    assert "did not end after SIGTERM" in exit_["description"]


def test_ctrl_c_while_site_runs_ends_as_python_ends_not_as_importscopes_failure(tmp_path):
    # A KeyboardInterrupt in sitecustomize makes CPython's start-up fail ("Failed to import the site
    # module"): the user's Ctrl-C, not importscope's failure to start the target.
    (tmp_path / "sitecustomize.py").write_text("import time\nprint('ready', flush=True)\ntime.sleep(30)\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))

    def interrupted(command):
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        return proc.returncode, err

    python_status, _ = interrupted([PYTHON, "-c", "print('ran')"])
    report = tmp_path / "report.json"
    status, err = interrupted([BIN, "run", "--python", PYTHON, "-o", str(report), "-c", "print('ran')"])
    assert status == python_status != 0, err
    assert "could not do its job" not in err
    document = json.loads(report.read_text())
    assert document["run"]["exit"]["forwarded_signal"] == "SIGINT"
    assert any("ended during the interpreter's start-up" in p and "site" in p for p in document["problems"])
