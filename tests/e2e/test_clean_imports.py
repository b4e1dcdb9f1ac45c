"""No finding where there is nothing wrong: clean imports of Debian's heavy packages, by default and
with every module recorded, and the standard library's own names, which are no second
installation of anything (encodings.idna is not the idna package, os is not installed twice)."""
import subprocess

import pytest

from test_pythons import DEBIAN_PYTHON, has_debian_libpython

pytestmark = pytest.mark.skipif(not has_debian_libpython(), reason="needs Debian's python3 and libpython3.11")

HEAVY = ["torch", "scipy.linalg, scipy.sparse, scipy.optimize", "pandas", "matplotlib.pyplot", "sklearn.linear_model"]


def importable(modules):
    return subprocess.run([DEBIAN_PYTHON, "-c", f"import {modules}"], capture_output=True).returncode == 0


@pytest.mark.parametrize("match", [None, "*"])
@pytest.mark.parametrize("modules", HEAVY)
def test_a_clean_import_of_a_heavy_package_has_no_finding(importscope, modules, match):
    if not importable(modules):
        pytest.skip(f"Debian's package for {modules} is not installed (tools/install-deps.sh installs it)")
    args = ["--match", match] if match else []
    run = importscope(*args, "-c", f"import {modules}", python=DEBIAN_PYTHON)
    assert run.status == 0, run.stderr
    assert run.findings() == [], [f["message"] for f in run.findings()]
    assert len(run.report["modules"]) > (100 if match else 5)


@pytest.mark.parametrize("code, match", [("import encodings.idna, idna", "idna"), ("import idna, encodings.idna", "idna"),
                                         ("import os, os.path, posixpath", "os")])
def test_the_standard_librarys_own_names_are_no_second_installation(importscope, code, match):
    if not importable("idna"):
        pytest.skip("Debian's python3-idna is not installed")
    run = importscope("--match", match, "-c", code, python=DEBIAN_PYTHON)
    assert run.status == 0, run.stderr
    assert run.findings("multiple-installations") == []
    if match == "idna":
        [stdlib_one] = run.modules("encodings.idna")
        assert stdlib_one["origin"].endswith("/encodings/idna.py")
