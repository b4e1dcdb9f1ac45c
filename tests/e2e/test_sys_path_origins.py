"""Who put a package's directory on sys.path (docs/findings.md, duplicate-extension-init's
evidence.cause.added_by): the script's own directory, PYTHONPATH, a line of a .pth file, or the
program; each with the fix that fits. The script-directory case runs on the DeepGEMM probe's tree;
the others on Debian's python3-pikepdf, whose pybind11 _qpdf refuses a second init."""
import os
import shutil
import subprocess

import pytest

from conftest import probe
from test_pythons import DEBIAN_PYTHON, has_debian_libpython


def cause_of(run):
    [cause] = run.report["causes"]
    assert cause["kind"] == "package directory on sys.path"
    return cause


def test_a_script_inside_the_package_is_named_as_sys_path_0(importscope, tmp_path):
    shutil.copytree(probe("deepgemm_pybind").parent / "vllm_mini", tmp_path / "vllm_mini")
    package = tmp_path / "vllm_mini" / "third_party" / "deep_gemm"
    (package / "tool.py").write_text("import vllm_mini.third_party.deep_gemm\nimport _C\n")
    run = importscope(package / "tool.py", env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert run.status == 3, run.stderr
    cause = cause_of(run)
    assert cause["evidence"]["entry"] == str(package)
    assert cause["evidence"]["added_by"] == {"path": str(package), "origin": "script directory"}
    assert "move the script out of the package, or run it with python -m" in cause["advice"]
    assert "(it is there as the script's directory, sys.path[0])" in run.stderr


debian = pytest.mark.skipif(not has_debian_libpython(), reason="needs Debian's python3 and libpython3.11")


def pikepdf_dir():
    found = subprocess.run([DEBIAN_PYTHON, "-c", "import os, pikepdf; print(os.path.dirname(pikepdf.__file__))"],
                           capture_output=True, text=True)
    if found.returncode != 0:
        pytest.skip("Debian's python3-pikepdf is not installed")
    return found.stdout.strip()


@debian
def test_pythonpath_names_the_package_directory(importscope):
    directory = pikepdf_dir()
    run = importscope("-c", "import pikepdf, _qpdf", python=DEBIAN_PYTHON, env=dict(os.environ, PYTHONPATH=directory))
    assert run.status == 3, run.stderr
    cause = cause_of(run)
    assert cause["evidence"]["added_by"] == {"path": directory, "origin": "PYTHONPATH"}
    assert f"take {directory} out of PYTHONPATH" in cause["advice"]


@debian
def test_a_pth_file_line_is_named_with_its_file(importscope, tmp_path):
    directory = pikepdf_dir()
    version = subprocess.run([DEBIAN_PYTHON, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True).stdout.strip()
    user_site = tmp_path / "userbase" / "lib" / f"python{version}" / "site-packages"
    user_site.mkdir(parents=True)
    pth = user_site / "pikepdf-dir.pth"
    pth.write_text(f"# a comment\nimport os\n{directory}\n")
    env = dict(os.environ, PYTHONUSERBASE=str(tmp_path / "userbase"))
    env.pop("PYTHONNOUSERSITE", None)
    run = importscope("-c", "import pikepdf, _qpdf", python=DEBIAN_PYTHON, env=env)
    assert run.status == 3, run.stderr
    cause = cause_of(run)
    assert cause["evidence"]["added_by"] == {"path": directory, "origin": ".pth file", "pth_file": str(pth)}
    assert f"delete the line of {pth}" in cause["advice"]
    assert f"(it is there as a line of {pth})" in run.stderr


@debian
def test_sys_path_of_a_clean_run_holds_no_cause(importscope):
    pikepdf_dir()
    run = importscope("-c", "import pikepdf", python=DEBIAN_PYTHON)
    assert run.status == 0, run.stderr
    assert run.report["causes"] == [] and run.findings() == []
