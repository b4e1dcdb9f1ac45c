"""However the target ends, the report is complete and says how."""
import signal
import time

from conftest import TARGETS, run_then_signal


def test_sys_exit_code(importscope):
    run = importscope(TARGETS / "exit_code.py")
    assert run.status == 3 and run.exit["code"] == 3  # the target's own status, passed on
    assert run.exit["code"] == 3 and run.exit["signal"] is None
    assert run.exit["description"] == "exited with status 3"


def test_os_exit_loses_nothing(importscope):
    run = importscope("--match", "json", "--match", "csv", "-c", "import json, csv, os; print('bye', flush=True); os._exit(4)")
    assert run.status == 4
    assert run.exit["code"] == 4
    assert run.stdout == "bye\n"  # its own output passed through
    assert run.report["run"]["match"] == ["json", "csv"]
    assert [m["status"] for m in run.modules("json")] == ["ok"]
    assert [m["status"] for m in run.modules("csv")] == ["ok"]


def test_os_exit_script(importscope):
    run = importscope(TARGETS / "os_exit.py")
    assert run.exit["code"] == 4
    assert "os._exit(4)" in run.stdout


def test_segfault(importscope):
    run = importscope(TARGETS / "segfault.py")
    assert run.status == 128 + signal.SIGSEGV  # as a shell reports it
    assert run.exit["signal"] == signal.SIGSEGV
    assert run.exit["code"] is None
    assert "killed by SIGSEGV" in run.stderr


def test_uncaught_exception_is_in_the_report(importscope):
    run = importscope(TARGETS / "uncaught.py")
    assert run.exit["code"] == 1
    assert run.exit["exception"]["type"] == "RuntimeError"
    assert run.exit["exception"]["message"] == "boom from probe"
    assert "uncaught.py" in run.exit["exception"]["traceback"]


def test_system_exit_with_a_message(importscope):
    run = importscope(TARGETS / "system_exit_str.py")
    assert run.exit["code"] == 1
    assert "fatal: bad config" in run.stderr


def test_timeout_ends_a_hung_target_and_shows_where_it_was(importscope):
    started = time.monotonic()
    run = importscope("--timeout", "1", TARGETS / "hang.py")
    assert time.monotonic() - started < 15
    assert run.status == 124  # as timeout(1) says it
    assert run.exit["timed_out"] is True
    assert run.exit["signal"] == signal.SIGINT
    assert run.exit["exception"]["type"] == "KeyboardInterrupt"
    assert "hang.py" in run.exit["exception"]["traceback"]
    assert run.report["run"]["timeout_s"] == 1


def test_sigterm_to_importscope_reaches_the_target_and_the_report_is_written(tmp_path):
    run = run_then_signal(tmp_path, [TARGETS / "hang.py"], signal.SIGTERM, "ready")
    assert run.status == 128 + signal.SIGTERM, run.stderr
    assert run.exit["signal"] == signal.SIGTERM
    assert run.exit["forwarded_signal"] == "SIGTERM"


def test_sigkill_loses_nothing_written(importscope, tmp_path):
    # SIGKILL runs no handler: what the report holds is what was in the kernel's hands (the main
    # process journals into memory it shares with importscope) when the process died, inside the
    # import of deep_gemm_killed, after json and deep_gemm_done had been imported.
    (tmp_path / "deep_gemm_done.py").write_text("X = 1\n")
    (tmp_path / "deep_gemm_killed.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    run = importscope("--match", "json", "--match", "deep_gemm",
                      "-c", "import sys; sys.path.insert(0, '.'); import json, deep_gemm_done, deep_gemm_killed",
                      cwd=tmp_path)
    assert run.exit["signal"] == signal.SIGKILL and run.exit["code"] is None, run.exit
    assert [m["status"] for m in run.modules("json")] == ["ok"]
    assert [m["status"] for m in run.modules("deep_gemm_done")] == ["ok"]
    killed = run.modules("deep_gemm_killed")
    assert [m["status"] for m in killed] == ["incomplete"]
    assert killed[0]["call_site"]["line"] == 1 and killed[0]["call_site"]["file"] == "<string>"
    assert run.report["problems"] == []
