"""The command line: the target runs as under python, and bad input is refused before anything runs."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BIN, PROBES, PYTHON, TARGETS


def test_version_and_help_never_start_an_interpreter():
    # With a broken PYTHONHOME any interpreter start would fail loudly.
    env = dict(os.environ, PYTHONHOME="/nonexistent")
    version = subprocess.run([BIN, "--version"], capture_output=True, text=True, env=env)
    assert version.returncode == 0
    assert version.stdout.startswith("importscope ")
    for args in (["--help"], ["run", "--help"]):
        help_ = subprocess.run([BIN, *args], capture_output=True, text=True, env=env)
        assert help_.returncode == 0
        assert "Fatal Python error" not in help_.stderr
    assert "(SCRIPT | -m MODULE | -c CODE | - | NAME | -- COMMAND)" in help_.stdout
    assert "Exit status" in help_.stdout
    # --fail-on names the status its findings give, the one the exit-status table gives them.
    assert "Which findings make the exit status 3" in " ".join(help_.stdout.split())


def test_script_sees_what_python_would_show_it(importscope):
    run = importscope(TARGETS / "echo_env.py", "-o", "x", "--match", "y", input="hello\n")
    assert run.status == 0, run.stderr
    seen = json.loads(run.stdout.splitlines()[0])
    assert seen["argv"] == [str(TARGETS / "echo_env.py"), "-o", "x", "--match", "y"]
    assert seen["path0"] == str(TARGETS)
    assert seen["name"] == "__main__"
    assert os.path.realpath(seen["executable"]) == os.path.realpath(PYTHON)
    assert "hello" in run.stdout
    assert run.report["run"]["target"] == {"kind": "script", "value": str(TARGETS / "echo_env.py"),
                                           "args": ["-o", "x", "--match", "y"], "interpreter_options": []}


def test_module_target(importscope):
    run = importscope("-m", "pkg_main", "a", "--b", cwd=TARGETS)
    assert run.status == 0, run.stderr
    seen = json.loads(run.stdout.splitlines()[-1])
    assert seen["argv"][0].endswith("pkg_main/__main__.py")
    assert seen["argv"][1:] == ["a", "--b"]
    assert seen["name"] == "__main__"


def test_command_target(importscope):
    run = importscope("-c", "import sys, json; print(json.dumps(sys.argv)); sys.exit(5)", "a", "-v")
    assert json.loads(run.stdout) == ["-c", "a", "-v"]
    assert run.exit["code"] == 5
    assert run.report["run"]["target"]["kind"] == "command"


def test_match_star_records_every_module(importscope):
    run = importscope("--match", "*", "-c", "import json")
    names = {m["name"] for m in run.report["modules"]}
    assert {"json", "json.decoder"} <= names
    assert run.modules("json")[0]["kind"] == "source"


def test_default_match_records_extensions_but_not_other_modules(importscope):
    run = importscope("-c", "import json, _json")
    names = {m["name"] for m in run.report["modules"]}
    assert "json" not in names
    assert run.report["run"]["match"] == ["deep_gemm"]


def test_a_load_that_bypasses_sys_meta_path_is_seen(importscope):
    so = next((PROBES / "deepgemm_capi/vllm_mini/third_party/deep_gemm").glob("_C*.so"))
    run = importscope(TARGETS / "spec_from_file.py", so, "one._C", "two._C")
    assert run.status == 3
    [finding] = run.findings("duplicate-extension-init")
    assert finding["module_names"] == ["one._C", "two._C"]
    assert all(not m["via_finder"] for m in run.report["modules"] if m["name"] in ("one._C", "two._C"))


def test_a_symlinked_copy_is_the_same_file(importscope, tmp_path):
    so = next((PROBES / "deepgemm_capi/vllm_mini/third_party/deep_gemm").glob("_C*.so"))
    link_dir = tmp_path / "elsewhere"
    link_dir.mkdir()
    (link_dir / so.name).symlink_to(so)
    code = ("import importlib.util, sys\n"
            "for name, path in (('a._C', sys.argv[1]), ('b._C', sys.argv[2])):\n"
            "    spec = importlib.util.spec_from_file_location(name, path)\n"
            "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n")
    run = importscope("-c", code, so, link_dir / so.name)
    [finding] = run.findings("duplicate-extension-init")
    assert finding["module_names"] == ["a._C", "b._C"]


@pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="needs Debian's python3")
def test_another_installation_of_the_same_version_uses_its_own_stdlib_and_packages(importscope):
    code = ("import sys, os, jsonschema, _struct\n"
            "print(sys.executable); print(sys.prefix); print(os.__file__); print(jsonschema.__file__)")
    run = importscope("-c", code, python="/usr/bin/python3")
    assert run.status == 0, run.stderr
    executable, prefix, os_file, jsonschema_file = run.stdout.split()
    assert executable == "/usr/bin/python3"
    assert prefix == "/usr"
    assert os_file.startswith("/usr/lib/python3.")
    assert jsonschema_file.startswith("/usr/lib/python3/dist-packages/")
    assert run.exit["code"] == 0


@pytest.mark.parametrize("args, message", [
    ([str(TARGETS)], "is a directory without a __main__.py"),
    (["--no-such-option", "x.py"], "no-such-option"),
    (["--timeout", "0", str(TARGETS / "exit_code.py")], "--timeout 0 is not a positive number"),
    (["--timeout", "-2", str(TARGETS / "exit_code.py")], "timeout"),
    (["--python", "/bin/true", str(TARGETS / "exit_code.py")], "is not a working Python interpreter"),
    (["--python", "/nonexistent/python", str(TARGETS / "exit_code.py")], "no such executable"),
    (["-o", "/nonexistent/dir/r.json", str(TARGETS / "exit_code.py")], "does not exist"),
    ([], "nothing to run"),
])
def test_bad_input_is_one_clear_error_and_status_125(tmp_path, args, message):
    # run wraps a command: its own failures are 125, as timeout's and env's are, never a status
    # the target could have given.
    proc = subprocess.run([BIN, "run", *args], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 125, proc.stderr
    assert message in proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("importscope: error: ")
    assert proc.stdout == ""
    assert not (tmp_path / "importscope-report.json").exists()


def test_a_python_version_without_a_worker_is_refused_with_the_versions_there_are(tmp_path):
    fake = tmp_path / "python3.99"
    fake.write_text("#!/bin/sh\necho /opt/python3.99/bin/python3.99\necho 3.99.0\n")
    fake.chmod(0o755)
    proc = subprocess.run([BIN, "run", "--python", str(fake), "-c", "pass"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 125
    assert "is Python 3.99, and this importscope has no worker for it (it has: 3." in proc.stderr
    assert "/opt/python3.99/bin/python3.99 -m pip install ." in proc.stderr
    assert "-DIMPORTSCOPE_PYTHONS=" in proc.stderr
