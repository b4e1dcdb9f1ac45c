"""importscope as a CI step trusts it: the exit status never hides a failure, any command can be
wrapped as a shell would run it, blind spots are named, and the terminal is left as the target drew it.

Statuses (docs/ci-gate.md): 0 success, 3 findings, the target's own failure passed on (128+N for
signal N), 124 timeout, 125 importscope's own failure, 126/127 a command that cannot run / is missing.
"""
import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, PROBES, PYTHON, TARGETS, Run, run_on_a_terminal, run_then_signal

CAPI_SO = next((PROBES / "deepgemm_capi/vllm_mini/third_party/deep_gemm").glob("_C*.so"))


def _script(path, text):
    path.write_text(text)
    path.chmod(0o755)
    return path


def _python_with_pytest():
    """The embedded Python if it has pytest, else Debian's (another installation of the same version)."""
    for python in (PYTHON, "/usr/bin/python3"):
        if os.path.exists(python) and subprocess.run([python, "-c", "import pytest, sys; "
                                                      f"assert sys.version_info[:2] == {tuple(map(int, PYTHON_MINOR))}"],
                                                     capture_output=True).returncode == 0:
            return python
    return None


PYTHON_MINOR = subprocess.run([PYTHON, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True,
                              text=True).stdout.split()


# 1. The exit status.

@pytest.mark.skipif(not _python_with_pytest(), reason="no Python of this version with pytest")
def test_a_failing_pytest_suite_fails_the_step_with_pytests_status(importscope, tmp_path):
    (tmp_path / "test_sample.py").write_text("def test_ok():\n    pass\n\ndef test_broken():\n    assert 1 == 2\n")
    run = importscope("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_sample.py", python=_python_with_pytest())
    assert run.status == 1, run.stderr  # pytest's "tests failed"
    assert run.report["run"]["outcome"]["reason"] == "target-failed"
    assert "1 failed, 1 passed" in run.stdout


@pytest.mark.skipif(not shutil.which("pytest"), reason="no pytest command on PATH")
def test_the_real_pytest_command_by_name_fails_the_step(importscope, tmp_path):
    (tmp_path / "test_sample.py").write_text("def test_broken():\n    assert 1 == 2\n")
    run = importscope("pytest", "-q", "-p", "no:cacheprovider", "test_sample.py", python=None)
    assert run.status == 1, run.stderr
    assert "1 failed" in run.stdout
    assert run.report["processes"], "pytest ran traced"


def test_a_failing_unittest_suite_passes_its_status_on(importscope, tmp_path):
    (tmp_path / "test_sample.py").write_text(
        "import unittest\nclass T(unittest.TestCase):\n    def test_broken(self):\n        self.assertEqual(1, 2)\n")
    run = importscope("-m", "unittest", "test_sample")
    assert run.status == 1
    assert run.exit["code"] == 1


def test_a_missing_module_is_the_targets_failure(importscope):
    run = importscope("-m", "no_such_module_anywhere")
    assert run.status == 1, run.stderr
    assert "No module named no_such_module_anywhere" in run.stderr
    outcome = run.report["run"]["outcome"]
    assert outcome == {"exit_status": 1, "reason": "target-failed", "failures": [],
                       "message": "the target exited with status 1, with no finding that --fail-on selects"}
    assert run.stderr.splitlines()[-1] == ("importscope: exit status 1: the target exited with status 1, with no "
                                           "finding that --fail-on selects")


@pytest.mark.parametrize("code", [124, 125, 126, 127])
def test_a_targets_exit_in_importscopes_own_range_is_passed_on_as_1(importscope, code):
    run = importscope("-c", f"raise SystemExit({code})")
    assert run.status == 1, run.stderr  # 124-127 always mean importscope's timeout, failure, cannot run, not found
    assert run.exit["code"] == code     # the target's true status stays in the report
    message = (f"the target exited with status {code} (passed on as 1: importscope keeps 124-127 for itself), "
               "with no finding that --fail-on selects")
    assert run.report["run"]["outcome"] == {"exit_status": 1, "reason": "target-failed", "failures": [],
                                            "message": message}
    assert run.stderr.splitlines()[-1] == f"importscope: exit status 1: {message}"


def test_a_program_exiting_127_is_the_targets_and_one_not_executed_is_importscopes(importscope, tmp_path):
    assert importscope("--", "/bin/sh", "-c", "exit 127").status == 1
    assert importscope("--timeout", "0.5", "-c", "import time; time.sleep(30)").status == 124
    broken = _script(tmp_path / "broken-interpreter", "#!/no/such/interpreter\n")
    run = importscope("--", broken)
    assert run.status == 127, run.stderr
    assert run.report["run"]["outcome"]["reason"] == "not-executed"
    assert importscope("--ignore-target-status", "--", broken).status == 127  # nothing ran: never green


def test_a_killed_target_fails_with_128_plus_the_signal(importscope):
    assert importscope("-c", "import os; os.abort()").status == 128 + signal.SIGABRT
    assert importscope("-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)").status == 128 + signal.SIGKILL


def test_ctrl_c_fails_the_step(tmp_path):
    run = run_then_signal(tmp_path, [TARGETS / "hang.py"], signal.SIGINT, "ready")
    assert run.status == 128 + signal.SIGINT, run.stderr
    assert run.exit["forwarded_signal"] == "SIGINT"


def test_findings_win_over_the_targets_own_status(importscope):
    run = importscope(TARGETS / "chain.py", "0", CAPI_SO, "-c", "x")
    assert run.status == 3
    run = importscope("-c", f"import runpy, sys; sys.argv = ['chain.py', '0', {str(CAPI_SO)!r}]; "
                      f"runpy.run_path({str(TARGETS / 'chain.py')!r}, run_name='__main__'); sys.exit(7)")
    assert run.status == 3 and run.exit["code"] == 7
    assert run.report["run"]["outcome"]["reason"] == "findings"


def test_ignore_target_status_looks_at_findings_only(importscope):
    assert importscope("--ignore-target-status", "-c", "raise SystemExit(9)").status == 0
    assert importscope("--ignore-target-status", TARGETS / "chain.py", "0", CAPI_SO).status == 3


# 2. importscope's own failures are never the target's.

def test_a_broken_pythonhome_is_importscopes_failure(importscope):
    run = importscope("-c", "pass", env=dict(os.environ, PYTHONHOME="/nonexistent/home"))
    assert run.status == 125, run.stderr
    assert run.stderr.rstrip().splitlines()[-1].startswith(
        "importscope: error: importscope could not do its job: the embedded Python interpreter did not start")
    assert run.report["run"]["outcome"]["reason"] == "tool-failure"


def test_a_start_up_that_ends_before_the_target_is_importscopes_failure(importscope, tmp_path):
    # The environment's own sitecustomize ends the process while site runs: the target never ran.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import os\nos._exit(0)\n")
    run = importscope("-c", "print('target ran')", env=dict(os.environ, PYTHONPATH=str(site)))
    assert "target ran" not in run.stdout
    assert run.status == 125, run.stderr
    [failure] = run.report["run"]["outcome"]["failures"]
    assert "before the interpreter was ready to run the target" in failure


def test_a_child_journal_that_cannot_be_written_is_a_tool_failure(importscope):
    # The child's journal file may not grow past 4 kB: its writes fail (EFBIG) after a few events.
    code = ("import resource, signal, subprocess, sys\n"
            "child = ('import resource, signal\\n'\n"
            "         'signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\\n'\n"
            "         'resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\\n'\n"
            "         'import json, csv, decimal, email.parser, http.client, xml.dom.minidom, sqlite3, asyncio\\n')\n"
            "subprocess.run([sys.executable, '-c', child], check=True)\n")
    run = importscope("--match", "*", "-c", code)
    assert run.status == 125, run.stderr
    [failure] = run.report["run"]["outcome"]["failures"]
    assert "a write failed (File too large)" in failure
    assert failure in run.report["problems"]


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a small tmpfs: needs root")
def test_a_full_tmpdir_is_a_tool_failure(tmp_path):
    small = tmp_path / "small"
    small.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(small)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        # Leave nothing free: the child's journal cannot take its first line.
        with open(small / "filler", "wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"x" * 4096)
            except OSError:
                pass
        code = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import json, csv, decimal'])"
        proc = subprocess.run([BIN, "run", "--python", PYTHON, "--match", "*", "-o", str(tmp_path / "r.json"),
                               "-c", code], capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, TMPDIR=str(small)))
        run = Run(proc, tmp_path / "r.json")
        assert run.status == 125, run.stderr
        failures = run.report["run"]["outcome"]["failures"]
        assert failures and all("No space left on device" in f for f in failures), failures
        assert any("journal" in f and "a write failed" in f for f in failures)
    finally:
        subprocess.run(["umount", "-l", str(small)])


def test_a_target_that_removes_the_run_directory_is_a_tool_failure(importscope):
    run = importscope("-c", "import os, shutil; shutil.rmtree(os.environ['IMPORTSCOPE_RUN_DIR'])")
    assert run.status == 125
    assert "was removed while the target ran" in run.report["run"]["outcome"]["failures"][0]


# 3. Any command, as a shell would run it.

def test_a_console_script_by_name_runs_embedded_with_its_interpreter(importscope, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _script(bin_dir / "dp-tool", f"#!{PYTHON}\nimport runpy, sys\n"
                                 f"sys.argv = ['chain.py', '0', {str(CAPI_SO)!r}]\n"
                                 f"runpy.run_path({str(TARGETS / 'chain.py')!r}, run_name='__main__')\n")
    run = importscope("dp-tool", "--flag", env=dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}"))
    assert run.status == 3, run.stderr
    [main] = run.report["processes"]
    assert main["start_method"] == "main"  # embedded, hooks in before its first line
    assert main["argv"] == [PYTHON, str(bin_dir / "dp-tool"), "--flag"]
    assert run.report["run"]["target"]["kind"] == "script"
    # The same after --, and with a #!/usr/bin/env line.
    _script(bin_dir / "env-tool", "#!/usr/bin/env python3\nimport sys; print(sys.argv[1:])\n")
    run = importscope("--", "env-tool", "-q", env=dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}"))
    assert run.status == 0 and run.stdout == "['-q']\n"


def test_a_python_command_line_is_parsed_by_python(importscope):
    run = importscope("--", PYTHON, "-X", "dev", "-u", "-m", "json.tool", "--help")
    assert run.status == 0, run.stderr
    assert "usage:" in run.stdout
    [main] = run.report["processes"]
    assert main["argv"] == [PYTHON, "-X", "dev", "-u", "-m", "json.tool", "--help"]  # sys.orig_argv
    target = run.report["run"]["target"]
    assert (target["kind"], target["value"], target["interpreter_options"]) == ("module", "json.tool",
                                                                               ["-X", "dev", "-u"])


def test_the_report_argv_is_python_orig_argv_for_a_module(importscope):
    run = importscope("-m", "json.tool", "--help")
    assert run.report["processes"][0]["argv"] == [PYTHON, "-m", "json.tool", "--help"]


def test_a_shell_script_that_starts_python_is_traced_through_its_child(importscope, tmp_path):
    wrapper = _script(tmp_path / "launch.sh",
                      f"#!/bin/sh\necho wrapper says hi\n\"{PYTHON}\" \"{TARGETS / 'chain.py'}\" 0 \"$1\"\n"
                      "exit $?\n")
    run = importscope(wrapper, CAPI_SO)
    assert run.status == 3, run.stderr
    assert "wrapper says hi" in run.stdout
    assert run.report["run"]["target"]["kind"] == "program"
    [child] = run.report["processes"]
    assert child["start_method"] == "exec"
    [finding] = run.findings("duplicate-extension-init")
    assert finding["pid"] == child["pid"]


def test_an_srun_like_wrapper_traces_every_rank(importscope, tmp_path):
    srun = _script(tmp_path / "srun",
                   "#!/bin/sh\n# srun -n N COMMAND...: N copies, in the background, then wait for all\n"
                   "n=$2; shift 2\ni=0\nwhile [ $i -lt $n ]; do \"$@\" & i=$((i+1)); done\nwait\n")
    run = importscope("--", srun, "-n", "2", PYTHON, TARGETS / "chain.py", "0", CAPI_SO)
    assert run.status == 3, run.stderr
    assert len(run.report["processes"]) == 2
    assert len({f["pid"] for f in run.findings("duplicate-extension-init")}) == 2


def test_a_file_that_is_not_python_is_never_run_as_python(importscope):
    run = importscope("/bin/ls", "/nonexistent-path")
    assert run.status == 2  # ls's own status
    assert run.report["run"]["target"]["kind"] == "program"
    assert "SyntaxError" not in run.stderr


def test_a_command_that_is_missing_or_cannot_run(tmp_path):
    missing = subprocess.run([BIN, "run", "--", "no-such-command-xyz"], capture_output=True, text=True, cwd=tmp_path)
    assert missing.returncode == 127
    assert missing.stderr == ("importscope: error: no-such-command-xyz: command not found on PATH (for a Python file "
                              "in this directory, write ./no-such-command-xyz)\n")
    plain = tmp_path / "data.txt"
    plain.write_text("not a program\n")
    cannot = subprocess.run([BIN, "run", "--", str(plain)], capture_output=True, text=True, cwd=tmp_path)
    assert cannot.returncode == 126 and "not executable" in cannot.stderr
    assert not (tmp_path / "importscope-report.json").exists()


def test_a_script_on_standard_input(importscope):
    run = importscope("-", "arg", input="import sys\nprint('from stdin', sys.argv)\n")
    assert run.status == 0, run.stderr
    assert run.stdout == "from stdin ['-', 'arg']\n"
    assert run.report["run"]["target"]["kind"] == "stdin"


# 4. What was not seen is said.

def test_an_isolated_child_is_named_as_untraced(importscope):
    code = ("import subprocess, sys\n"
            "subprocess.run([sys.executable, '-c', 'pass'])\n"
            "subprocess.run([sys.executable, '-I', '-c', 'pass'])\n"
            "subprocess.run([sys.executable, '-c', 'pass'], env={'PATH': '/usr/bin:/bin'})\n"
            "subprocess.run([sys.executable, '--version'])\n")
    run = importscope("-c", code)
    assert run.status == 0
    untraced = run.report["untraced"]
    assert [u["argv"][1] for u in untraced] == ["-I", "-c"]
    assert "isolated mode (-I)" in untraced[0]["reason"]
    assert "without IMPORTSCOPE_RUN_DIR" in untraced[1]["reason"]
    assert run.report["summary"]["python_processes"] == 4 and run.report["summary"]["processes"] == 2
    assert "2 of 4 Python processes traced; not traced:" in run.stderr


def test_an_isolated_python_started_by_a_shell_is_named_as_untraced(importscope, tmp_path):
    # No traced process started it: importscope saw it running in its tree (/proc, every 250 ms).
    wrapper = _script(tmp_path / "wrapper.sh",
                      f"#!/bin/sh\n\"{PYTHON}\" -c 'import time; time.sleep(0.7)'\n"
                      f"\"{PYTHON}\" -I -c 'import time; time.sleep(0.7)'\n")
    run = importscope(wrapper)
    assert run.status == 0, run.stderr
    [untraced] = run.report["untraced"]
    assert untraced["via"] == "seen running"
    assert untraced["argv"][1] == "-I" and "isolated mode (-I)" in untraced["reason"]
    assert run.report["summary"]["python_processes"] == 2 and run.report["summary"]["processes"] == 1


def test_venv_with_ensurepip_names_the_pythons_it_could_not_trace(importscope, tmp_path):
    # venv runs ensurepip with an environment of its own, and ensurepip runs pip in a grandchild:
    # importscope traces the main process and says so of the two others.
    run = importscope("-m", "venv", tmp_path / "env", timeout=300)
    assert run.status == 0, run.stderr
    assert (tmp_path / "env" / "bin" / "pip").exists()
    summary = run.report["summary"]
    # pip's grandchild is seen in /proc (it runs for a second or more); ensurepip always is named.
    assert summary["processes"] == 1 and summary["python_processes"] >= 2
    ensurepip = [u for u in run.report["untraced"] if u["argv"][1:3] == ["-m", "ensurepip"]]
    assert ensurepip and ensurepip[0]["via"] == "subprocess.Popen"
    assert f"1 of {summary['python_processes']} Python processes traced" in run.stderr


# 5. The terminal.

def test_usage_errors_are_one_line_with_a_suggestion(tmp_path):
    def cli(*args):
        return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=tmp_path)

    typo = cli("run", "--timout", "5", "x.py")
    assert typo.returncode == 125
    assert typo.stderr == ("importscope: error: unknown option --timout (did you mean --timeout?); "
                           "see 'importscope run --help'\n")
    command = cli("runn", "x.py")
    assert command.returncode == 2
    assert command.stderr == "importscope: error: unknown command 'runn' (did you mean run?); see 'importscope --help'\n"
    bare = cli()
    assert bare.returncode == 2
    assert "usage: importscope COMMAND" in bare.stderr and "  run " in bare.stderr
    report = cli("report", "--formt", "x")
    assert report.returncode == 2 and "(did you mean --format?)" in report.stderr


def test_the_status_line_never_covers_what_the_target_wrote(tmp_path):
    pyte = pytest.importorskip("pyte")
    # Progress dots with no newline for a second, as pytest draws them, while the status line redraws.
    code = ("import sys, time\nprint('first line')\nfor _ in range(20):\n"
            "    sys.stderr.write('.'); sys.stderr.flush(); time.sleep(0.05)\nprint(' done')\n")
    # Wide enough that the last line, which names the report's path under pytest's temporary
    # directory, never wraps.
    status, output = run_on_a_terminal([BIN, "run", "--python", PYTHON, "-o", str(tmp_path / "r.json"), "-c", code],
                                       columns=200)
    assert status == 0
    assert "| 1 process |" in output  # the status line was drawn
    screen = pyte.Screen(200, 24)
    pyte.Stream(screen).feed(output.replace("\n", "\r\n"))
    rows = [row.rstrip() for row in screen.display if row.strip()]
    assert rows[:2] == ["first line", "." * 20 + " done"]
    assert rows[-1] == f"importscope: report written to {tmp_path / 'r.json'}"
    assert not any(row.startswith("importscope: ") and "|" in row for row in rows)  # erased at the end


def test_standard_input_closed_stays_closed_for_the_target(tmp_path):
    code = "import os, sys; print(sys.stdin is None, sys.__stdin__ is None); print(os.open('/dev/null', os.O_RDONLY))"
    plain = subprocess.run(f"{PYTHON} -c \"{code}\" <&-", shell=True, capture_output=True, text=True,
                           cwd=tmp_path, executable="/bin/bash")
    assert plain.stdout == "True True\n0\n", plain.stderr
    report = tmp_path / "report.json"
    traced = subprocess.run(f"{BIN} run -o {report} --python {PYTHON} -c \"{code}\" <&-", shell=True,
                            capture_output=True, text=True, cwd=tmp_path, executable="/bin/bash", timeout=120)
    assert traced.returncode == 0, traced.stderr
    assert traced.stdout == plain.stdout
    program = subprocess.run(f"{BIN} run -o {report} -- /bin/sh -c '[ -e /proc/$$/fd/0 ] || echo closed' <&-",
                             shell=True, capture_output=True, text=True, cwd=tmp_path,
                             executable="/bin/bash", timeout=120)
    assert (program.returncode, program.stdout) == (0, "closed\n"), program.stderr
    with_stdin = subprocess.run([BIN, "run", "-o", report, "--python", PYTHON, "-c", code], input="",
                                capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert with_stdin.stdout.splitlines()[0] == "False False"


def test_a_pythonpath_too_long_for_the_bootstrap_is_refused_before_the_run(importscope, tmp_path):
    # One long entry (no such directory), so that a python whose sys.path holds it stays quick.
    value = ("/" + "x" * 127) * 1024
    value = value[:131072 - len("PYTHONPATH=") - 10]  # fits execve's 128 KiB per string, by 10
    code = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'pass'], check=True); print('child ran')"
    env = dict(os.environ, PYTHONPATH=value)
    plain = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert plain.stdout == "child ran\n", plain.stderr  # python itself runs its children
    run = importscope("-c", code, env=env)
    assert run.status == 125, run.stderr
    assert run.stdout == "" and run.report is None  # nothing ran
    assert "PYTHONPATH is 131051 bytes" in run.stderr and "E2BIG" in run.stderr and "--no-follow" in run.stderr
    assert run.stderr.count("\n") == 1
    shorter = dict(os.environ, PYTHONPATH=value[:100_000])
    assert importscope("-c", code, env=shorter).stdout == "child ran\n"


@pytest.mark.parametrize("pattern", ["torch\n", "torch\t", "\x1b[31mtorch"])
def test_a_match_pattern_with_a_control_character_is_refused(importscope, pattern):
    run = importscope("--match", pattern, "-c", "print('ran')")
    assert run.status == 125, run.stderr
    assert run.stdout == "" and run.report is None
    assert "has a control character" in run.stderr and "check the quoting" in run.stderr
