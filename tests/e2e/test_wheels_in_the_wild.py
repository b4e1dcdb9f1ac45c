"""No finding where there is nothing wrong, on wheels from PyPI: native extensions built the ways the
world builds them (PyO3: orjson, pydantic_core, cryptography; pybind11: contourpy; Cython: msgpack;
cffi and plain C: zstandard, regex; numpy with the libraries auditwheel bundled beside it), by
default and with every module recorded, in a venv of the build's Python (tools/pypi-venv.sh,
tools/wild-requirements.txt, cached outside the tree). And opencv's loader, which is the one legal
way to import a name twice: `cv2/__init__.py` takes itself out of sys.modules and imports the native
`cv2` under the same name, once."""
import pytest

from conftest import pypi_python

IMPORTS = ["orjson", "pydantic", "cryptography.hazmat.bindings._rust", "contourpy", "msgpack", "zstandard", "regex",
           "numpy, numpy.linalg, numpy.fft, numpy.random", "cv2"]


@pytest.fixture(scope="module")
def wild_python():
    return pypi_python("wild-requirements.txt")


@pytest.mark.parametrize("match", [None, "*"])
@pytest.mark.parametrize("modules", IMPORTS)
def test_a_clean_import_of_a_wheel_has_no_finding(importscope, wild_python, modules, match):
    args = ["--match", match] if match else []
    run = importscope(*args, "-c", f"import {modules}", python=wild_python)
    assert run.status == 0, run.stderr
    assert run.findings() == [], [f["message"] for f in run.findings()]
    assert run.report["problems"] == []
    extensions = [m for m in run.report["modules"] if m["kind"] == "extension"]
    assert extensions, "no extension was recorded"
    # Each extension initialized once, under one name.
    inits = [m["name"] for m in extensions if m["initialized_extension"]]
    assert len(inits) == len(set(inits)), inits


def test_opencvs_loader_imports_cv2_twice_and_is_no_finding(importscope, wild_python):
    run = importscope("--match", "cv2", "-c", "import cv2; cv2.getBuildInformation()", python=wild_python)
    assert run.status == 0, run.stderr
    assert run.findings() == []
    records = run.modules("cv2")
    kinds = sorted(m["kind"] for m in records)
    assert kinds == ["extension", "source"], [(m["kind"], m["origin"]) for m in records]
    [native] = [m for m in records if m["kind"] == "extension"]
    assert native["initialized_extension"] and native["status"] == "ok"
