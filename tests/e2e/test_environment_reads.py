"""The environment variables a target reads (docs/report-format.md, processes[].environment_read):
every read through os.environ, once per variable and line, with its value redacted as the fingerprint
redacts; copies of the whole environment apart; the settings read on a failing import path named in
the finding and the summary; and on Debian's torch, the variables it really reads."""
import os
import subprocess

import pytest

from conftest import probe
from test_pythons import DEBIAN_PYTHON, has_debian_libpython

READER = """
import os, subprocess, sys
os.environ["STAGE"] = "0"
def stage():
    return os.getenv("STAGE", "1")
for _ in range(3):
    stage()
unset = os.environ.get("IMPORTSCOPE_TEST_UNSET")
home = "HOME" in os.environ
everything = dict(os.environ)
copied = os.environ.copy()
listed = list(os.environ.items())
os.environ["SERVICE_API_TOKEN"] = "hf_abcdefghijklmnopqrstuvwxyz0123"
token = os.environ["SERVICE_API_TOKEN"]
try:
    os.environ["IMPORTSCOPE_TEST_MISSING"]
except KeyError as error:
    assert error.args == ("IMPORTSCOPE_TEST_MISSING",), error.args
assert os.environ.get("IMPORTSCOPE_TEST_MISSING", "d") == "d"
pid = os.fork()
if pid == 0:
    stage()
    os._exit(0)
os.waitpid(pid, 0)
subprocess.run([sys.executable, "-c", "import os; os.getenv('CHILD_SETTING')"], check=True)
print("reader done")
"""


def reads_of(process):
    return {v["name"]: v for v in process["environment_read"]}


def test_each_read_is_recorded_once_per_line_with_its_value(importscope, tmp_path):
    script = tmp_path / "reader.py"
    script.write_text(READER)
    run = importscope(script, env=dict(os.environ, HOME="/home/someone"))
    assert run.status == 0, run.stderr
    assert "reader done" in run.stdout
    main, fork_child, subprocess_child = (
        next(p for p in run.report["processes"] if p["role"] == role) for role in ("main", "fork child", "subprocess"))

    reads = reads_of(main)
    stage = reads["STAGE"]
    assert (stage["set"], stage["value"]) == (True, "0")
    assert [(f["file"], f["line"], f["function"]) for f in stage["read_at"]] == [(str(script), 5, "stage")]
    assert (reads["IMPORTSCOPE_TEST_UNSET"]["set"], reads["IMPORTSCOPE_TEST_UNSET"]["value"]) == (False, None)
    assert reads["HOME"]["value"] == "/home/someone"  # `in` reads it too
    assert reads["SERVICE_API_TOKEN"]["value"] == "<redacted>"
    missing = reads["IMPORTSCOPE_TEST_MISSING"]
    assert [f["line"] for f in missing["read_at"]] == [16, 19]  # a subscript and a get() with a default
    # dict(os.environ) is a bulk read of its own; copy() and items() are no reads of a setting.
    [bulk] = main["environment_bulk_read"]
    assert bulk["at"]["line"] == 10 and bulk["variables"] >= 16
    assert all(f["line"] not in (10, 11, 12) for v in main["environment_read"] for f in v["read_at"])

    # A forked child has a journal of its own, and reads are first reads there again.
    assert [f["line"] for f in reads_of(fork_child)["STAGE"]["read_at"]] == [5]
    assert reads_of(subprocess_child)["CHILD_SETTING"]["set"] is False


def test_the_setting_that_chose_the_fallback_path_is_named(importscope):
    env = dict(os.environ, FLASHINFER_MEGA_FUSED_STAGE="0")
    run = importscope(probe("deepgemm_pybind"), "--quantized", env=env)
    assert run.status == 3
    [duplicate] = run.findings("duplicate-extension-init")
    [stage] = [r for r in duplicate["evidence"]["environment_read"] if r["name"] == "FLASHINFER_MEGA_FUSED_STAGE"]
    assert stage["value"] == "0" and stage["on_import_path"] is True
    assert stage["file"].endswith("flashinfer_mini/fused_moe.py") and stage["line"] == 5
    assert "settings read on the failing import path: FLASHINFER_MEGA_FUSED_STAGE=0 (" in run.stderr
    [main] = run.report["processes"]
    assert reads_of(main)["FLASHINFER_MEGA_FUSED_STAGE"]["read_at"][0]["function"] == "_mega_fused_stage_enabled"


@pytest.mark.skipif(not has_debian_libpython(), reason="needs Debian's python3 and libpython3.11")
def test_the_variables_debian_torch_reads_at_import(importscope):
    if subprocess.run([DEBIAN_PYTHON, "-c", "import torch"], capture_output=True).returncode != 0:
        pytest.skip("Debian's python3-torch is not installed")
    env = {k: v for k, v in os.environ.items() if k != "TORCH_USE_RTLD_GLOBAL"}
    run = importscope("-c", "import torch", python=DEBIAN_PYTHON, env=env)
    assert run.status == 0, run.stderr
    reads = reads_of(run.report["processes"][0])
    rtld = reads["TORCH_USE_RTLD_GLOBAL"]  # torch/__init__.py chooses how to load libtorch by it
    assert rtld["set"] is False
    assert rtld["read_at"][0]["file"].endswith("torch/__init__.py")
    assert rtld["read_at"][0]["module"] == "torch"
    assert run.findings() == []
