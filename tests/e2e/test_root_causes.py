"""Findings grouped under their root cause, on Debian's own packages (docs/findings.md, "Root
causes"): a sys.modules alias of scipy whose submodules were not aliased, with default options and
with every module recorded; pikepdf's own directory on sys.path; and a clean import with none. Run
under Debian's /usr/bin/python3, which sees python3-scipy and python3-pikepdf."""
import collections
import subprocess

import pytest

from test_pythons import DEBIAN_PYTHON, has_debian_libpython

pytestmark = pytest.mark.skipif(not has_debian_libpython(), reason="needs Debian's python3 and libpython3.11")

SCIPY_ALIAS = """
import sys, scipy
sys.modules.setdefault("sp", scipy)
import sp.linalg
"""


def require(package):
    if subprocess.run([DEBIAN_PYTHON, "-c", f"import {package}"], capture_output=True).returncode != 0:
        pytest.skip(f"Debian's python3-{package} is not installed")


def kinds_caused_by(run, cause_id):
    return collections.Counter(f["kind"] for f in run.findings() if f.get("caused_by") == cause_id)


@pytest.mark.parametrize("match", [None, "*"])
def test_an_alias_of_scipy_is_one_cause_with_every_finding_under_it(importscope, tmp_path, match):
    require("scipy")
    script = tmp_path / "alias.py"
    script.write_text(SCIPY_ALIAS)
    run = importscope(*(["--match", match] if match else []), script, python=DEBIAN_PYTHON)
    assert run.status == 3, run.stderr
    [cause] = run.report["causes"]
    assert cause["id"] == "alias:sp"
    assert cause["kind"] == "sys.modules alias"
    assert cause["severity"] == "error"
    assert cause["evidence"]["key"] == "sp" and cause["evidence"]["module"] == "scipy"
    assert cause["evidence"]["first_seen_at"][-1]["file"] == str(script)
    assert cause["evidence"]["first_seen_at"][-1]["line"] == 4
    assert "sys.modules.setdefault(\"sp\" + name[len(\"scipy\"):], module)" in cause["advice"]
    # Every finding of the run is a consequence of the alias, the partial alias found by default.
    assert all(f.get("caused_by") == "alias:sp" for f in run.findings())
    assert cause["findings"] == len(run.findings())
    kinds = kinds_caused_by(run, "alias:sp")
    assert kinds["partial-alias"] == 1
    assert kinds["duplicate-extension-init"] >= 2
    # Every source module of scipy.linalg ran again: found with default options too, where the first
    # import of each, unrecorded, is recorded late when its file is found under the alias.
    assert kinds["duplicate-source-exec"] >= 10
    if match is None:
        late = {m["name"] for m in run.report["modules"] if m.get("late")}
        assert "scipy.linalg._basic" in late
    # The summary leads with the cause and lists its consequences a line each under it.
    lines = run.stderr.splitlines()
    headline = [i for i, line in enumerate(lines) if "root cause:" in line]
    assert len(headline) == 1
    assert lines[headline[0]].startswith("importscope: error: root cause: sys.modules[\"sp\"] is scipy")
    assert f"it explains {len(run.findings())} findings" in lines[headline[0] + 1]
    errors_in_full = [line for line in lines if line.startswith("importscope: error: duplicate-extension-init")]
    assert len(errors_in_full) == 1  # one consequence whole; the others a line each
    assert len(lines) < 40, run.stderr


def test_pikepdfs_directory_on_sys_path_is_the_cause_of_the_duplicate_and_the_type_conflict(importscope):
    require("pikepdf")
    code = ("import os, sys, pikepdf\n"
            "sys.path.insert(0, os.path.dirname(pikepdf.__file__))\n"
            "import _qpdf\n")
    run = importscope("-c", code, python=DEBIAN_PYTHON)
    assert run.status == 3, run.stderr
    [cause] = run.report["causes"]
    assert cause["kind"] == "package directory on sys.path"
    assert cause["id"] == "sys.path:" + cause["evidence"]["entry"]
    assert cause["evidence"]["entry"].endswith("/pikepdf") and cause["evidence"]["package"] == "pikepdf"
    assert "stands on sys.path" in cause["advice"] and "setdefault" not in cause["advice"]
    assert kinds_caused_by(run, cause["id"]) == {"duplicate-extension-init": 1, "native-type-conflict": 1}
    assert "root cause: " + cause["evidence"]["entry"] in run.stderr
    # Who put it there: the program, before the import on line 3.
    added_by = cause["evidence"]["added_by"]
    assert added_by["origin"] == "program"
    assert added_by["before_import_at"][-1]["line"] == 3
    assert "remove the sys.path change that adds" in cause["advice"]


def test_scipy_imported_plainly_has_no_cause(importscope):
    require("scipy")
    run = importscope("-c", "import scipy.linalg", python=DEBIAN_PYTHON)
    assert run.status == 0, run.stderr
    assert run.report["causes"] == [] and run.findings() == []
    assert "root cause" not in run.stderr
