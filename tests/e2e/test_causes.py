"""The cause and the severity of a duplicate extension init, on Debian's own packages: a package
directory on sys.path (lxml, pikepdf), Cython's guard (lxml gives its module back), and a load that
never reached PyInit. Run under Debian's /usr/bin/python3, which sees python3-lxml and
python3-pikepdf (tools/install-deps.sh installs them)."""
import os
import subprocess
import time

import pytest

from test_pythons import DEBIAN_PYTHON, has_debian_libpython
from conftest import install_twins

pytestmark = pytest.mark.skipif(not has_debian_libpython(), reason="needs Debian's python3 and libpython3.11")

PACKAGE_DIR_ON_PATH = """
import os, sys
import {package}
sys.path.insert(0, os.path.dirname({package}.__file__))
import {module}
"""


def plain_status(code):
    """How Debian's python ends `code` on its own: without the sanitizer runtime that a sanitized
    build's tests preload (its LeakSanitizer ends a plain python with an error at exit)."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.endswith("SAN_OPTIONS")}
    return subprocess.run([DEBIAN_PYTHON, "-c", code], capture_output=True, text=True, env=env).returncode


def require(package):
    if subprocess.run([DEBIAN_PYTHON, "-c", f"import {package}"], capture_output=True).returncode != 0:
        pytest.skip(f"Debian's python3-{package} is not installed")


def only_finding(run):
    [finding] = run.findings("duplicate-extension-init")
    return finding


def test_lxml_from_its_own_directory_is_a_warning_that_names_the_sys_path_entry(importscope):
    require("lxml")
    code = PACKAGE_DIR_ON_PATH.format(package="lxml.etree", module="etree") + "print(etree is lxml.etree)"
    run = importscope("-c", code, python=DEBIAN_PYTHON)
    assert run.stdout == "True\n"  # Cython gave the module it had made back
    assert run.status == plain_status(code) == 0, run.stderr  # a warning: --fail-on error lets it pass
    finding = only_finding(run)
    assert finding["severity"] == "warning"
    assert finding["module_names"] == ["lxml.etree", "etree"]
    assert "each init after the first gave back the module it made (etree is lxml.etree)" in finding["message"]
    assert "Cython's guard" in finding["explanation"]
    second = finding["evidence"]["initializations"][1]
    assert second["existing_module"] == "lxml.etree"
    assert [m["existing_module"] for m in run.modules("etree")] == ["lxml.etree"]
    cause = finding["evidence"]["cause"]
    lxml_dir = subprocess.run([DEBIAN_PYTHON, "-c", "import lxml, os; print(os.path.dirname(lxml.__file__))"],
                              capture_output=True, text=True).stdout.strip()
    assert {k: v for k, v in cause.items() if k != "added_by"} == {
        "kind": "package directory on sys.path", "entry": lxml_dir, "package": "lxml"}
    assert cause["added_by"]["origin"] == "program"  # PACKAGE_DIR_ON_PATH's sys.path.insert
    assert f"{lxml_dir} is the directory of the package lxml" in finding["advice"]
    assert "setdefault" not in finding["advice"]


def test_an_alias_of_lxml_whose_init_gives_its_module_back_passes_and_says_nothing_ran_twice(importscope):
    # Through a partial alias, lxml.etree's init runs again for lx2.etree and Cython's guard gives
    # back the module it made: python runs it fine, so a CI gate must not fail on it.
    require("lxml")
    code = ('import sys, lxml.etree\nsys.modules["lx2"] = sys.modules["lxml"]\nimport lx2.etree\n'
            'print(lx2.etree is lxml.etree)')
    run = importscope("-c", code, python=DEBIAN_PYTHON)
    assert run.stdout == "True\n"
    assert run.status == plain_status(code) == 0, run.stderr
    assert only_finding(run)["severity"] == "warning"
    [alias] = run.findings("partial-alias")
    assert alias["severity"] == "warning"
    assert alias["message"].endswith("importing through the alias ran the init of lx2.etree again, which gave back "
                                     "the module it had made (lx2.etree is lxml.etree): nothing was executed twice")
    assert alias["evidence"]["nothing_ran_twice"] is True
    [cause] = run.report["causes"]
    assert cause["severity"] == "warning"
    assert "nothing ran twice" in cause["message"]
    assert "executes the package's files again" not in run.stderr
    assert "executed a module again" not in run.stderr


def test_an_alias_of_pandas_tells_the_module_executed_again_from_the_init_that_gave_its_module_back(importscope):
    require("pandas")
    code = 'import sys, pandas\nsys.modules["pd2"] = sys.modules["pandas"]\nimport pd2._libs.lib\n'
    run = importscope("-c", code, python=DEBIAN_PYTHON)
    assert run.status == plain_status(code) == 0, run.stderr
    [alias] = run.findings("partial-alias")
    assert alias["severity"] == "warning"
    assert alias["message"].endswith(
        "importing through the alias executed a module again as pd2._libs, and ran the init of pd2._libs.lib "
        "again, which gave back the module it had made (pd2._libs.lib is pandas._libs.lib)")
    assert {f["kind"]: f["severity"] for f in run.findings()} == {
        "duplicate-extension-init": "warning", "duplicate-source-exec": "warning", "partial-alias": "warning"}


def test_a_second_init_of_numpy_is_explained_as_a_c_extensions_not_pybind11s(importscope):
    require("numpy")
    code = 'import sys, numpy\nsys.modules["np2"] = numpy\nimport np2.core._multiarray_umath\n'
    run = importscope("-c", code, python=DEBIAN_PYTHON)
    assert run.status == 3, run.stderr
    finding = only_finding(run)
    assert finding["evidence"]["binding"] == "C API"
    assert "pybind11" not in finding["explanation"] and "C++" not in finding["explanation"]
    assert "cannot load module more than once per process" in finding["explanation"]


def test_on_3_11_the_line_that_aliased_numpy_is_found_in_the_code(importscope, tmp_path):
    # Debian's python3 is 3.11, whose sys.modules tells no program of a store: the line is read
    # from the loaded modules' files, here a helper module of the program's.
    require("numpy")
    (tmp_path / "compat.py").write_text('import sys, numpy\n\n\ndef expose():\n'
                                        '    sys.modules.setdefault("np2", numpy)\n')
    script = tmp_path / "main.py"
    script.write_text("import compat\ncompat.expose()\nimport np2.core._multiarray_umath\n")
    run = importscope(script, python=DEBIAN_PYTHON)
    assert run.status == 3, run.stderr
    [alias] = run.report["aliases"]
    assert "set_at" not in alias
    assert [(line["file"], line["line"], line["module"]) for line in alias["set_in_code"]] == [
        (str(tmp_path / "compat.py"), 5, "compat")]
    [cause] = run.report["causes"]
    assert cause["evidence"]["set_in_code"] == alias["set_in_code"]
    assert f"set at {tmp_path / 'compat.py'}:5 (the line found in the code" in run.stderr


def test_pikepdf_from_its_own_directory_is_an_error_with_the_sys_path_entry_as_its_cause(importscope):
    require("pikepdf")
    code = PACKAGE_DIR_ON_PATH.format(package="pikepdf", module="_qpdf")
    run = importscope("-c", code, python=DEBIAN_PYTHON)
    assert run.status == 3, run.stderr
    finding = only_finding(run)
    assert finding["severity"] == "error"
    assert finding["module_names"] == ["pikepdf._qpdf", "_qpdf"]
    assert "is already registered" in finding["message"]
    assert finding["evidence"]["cause"]["kind"] == "package directory on sys.path"
    assert finding["evidence"]["cause"]["entry"].endswith("/pikepdf")
    assert "remove the sys.path change that adds" in finding["advice"]
    # pikepdf/_version.py reads DEB_VERSION_UPSTREAM, off the failing import's path: not named.
    assert "environment_read" not in finding["evidence"]
    assert "settings read" not in run.stderr


def test_pikepdf_loaded_by_path_under_a_new_name_has_its_outcome_its_type_conflict_and_its_cause(importscope):
    # module_from_spec on a spec_from_file_location spec asks no finder: the hooks see the load
    # through _imp.create_dynamic, with the ImportError pybind11 raised, caught by the program.
    require("pikepdf")
    code = """
import importlib.util, pikepdf, pikepdf._qpdf
spec = importlib.util.spec_from_file_location("plugins._qpdf", pikepdf._qpdf.__file__)
try:
    importlib.util.module_from_spec(spec)
except ImportError as e:
    print("caught:", e)
import os
os._exit(0)  # pybind11's half-made module may crash at exit; not what this test is about
"""
    run = importscope("-c", code, python=DEBIAN_PYTHON)
    assert "caught: generic_type" in run.stdout
    assert run.status == 3, run.stderr
    [plugin] = run.modules("plugins._qpdf")
    assert plugin["by_path"] is True and plugin["via_finder"] is False
    assert plugin["status"] == "error"
    assert "is already registered" in plugin["error"]["message"]
    assert plugin["caught_at"] is not None
    finding = only_finding(run)
    assert finding["evidence"]["cause"]["kind"] == "load by path"
    assert finding["evidence"]["cause"]["loaded_first_as"] == "pikepdf._qpdf"
    assert finding["evidence"]["cause"]["at"]["line"] == 5  # the code starts with a newline
    assert "alias" not in finding["advice"]
    assert "import pikepdf._qpdf" in finding["advice"]
    [conflict] = run.findings("native-type-conflict")
    assert conflict["evidence"]["failed_module"] == "plugins._qpdf"
    [cause] = run.report["causes"]
    assert cause["id"] == "path-load:plugins._qpdf"
    assert cause["findings"] == 2


def test_a_load_that_never_reached_pyinit_is_not_a_second_init(importscope):
    require("lxml")
    code = """
import importlib.util, lxml.etree
spec = importlib.util.spec_from_file_location("renamed", lxml.etree.__file__)
try:
    importlib.util.module_from_spec(spec)
except ImportError as e:
    print(e)
"""
    run = importscope("-c", code, python=DEBIAN_PYTHON)
    assert "does not define module export function (PyInit_renamed)" in run.stdout
    assert run.status == 0, run.stderr
    assert run.findings("duplicate-extension-init") == []
    [renamed] = run.modules("renamed")  # seen by the audit hook, which knew no init would run
    assert renamed["initialized_extension"] is False
    assert run.modules("lxml.etree")[0]["initialized_extension"] is True


def test_namespace_packages_are_recorded_and_any_module_name_keeps_the_report_valid(importscope, tmp_path):
    (tmp_path / "nspkg" / "sub").mkdir(parents=True)
    (tmp_path / "nspkg" / "sub" / "mod.py").write_text("x = 1\n")
    run = importscope("--match", "nspkg", "-c", "import nspkg.sub.mod", cwd=tmp_path)
    assert run.status == 0, run.stderr
    [top] = run.modules("nspkg")
    [sub] = run.modules("nspkg.sub")
    # parent is ModuleSpec.parent, as for every record: a package is its own parent.
    assert (top["kind"], top["status"], top["origin"], top["parent"]) == ("namespace", "ok", str(tmp_path / "nspkg"),
                                                                          "nspkg")
    assert (sub["kind"], sub["parent"]) == ("namespace", "nspkg.sub")
    assert top["call_site"]["file"] == "<string>"
    assert run.modules("nspkg.sub.mod")[0]["kind"] == "source"

    # An extension initialized under an empty name: recorded as it is, and the report (validated by
    # the fixture against the schema) stays valid.
    code = """
import _imp, importlib.machinery, math
try:
    _imp.create_dynamic(importlib.machinery.ModuleSpec("", None, origin=math.__file__))
except Exception as e:
    print(type(e).__name__)
"""
    odd = importscope("-c", code)
    assert odd.stdout == "ImportError\n"  # math has no PyInit_ for the empty name
    [empty] = odd.modules("")
    assert (empty["kind"], empty["initialized_extension"]) == ("extension", False)
    assert odd.findings("duplicate-extension-init") == []  # math's init ran once


def test_a_copy_in_the_working_directory_that_shadows_debians_requests_is_named_with_both_places(importscope,
                                                                                                 tmp_path):
    require("requests")
    (tmp_path / "requests").mkdir()
    (tmp_path / "requests" / "__init__.py").write_text("SHADOW = True\n")
    # With default options, and with every module recorded: every top-level name is looked up.
    for match in ([], ["--match", "*"]):
        run = importscope(*match, "-c", "import requests; print(requests.SHADOW)", python=DEBIAN_PYTHON, cwd=tmp_path)
        assert run.stdout == "True\n" and run.status == 0, run.stderr
        [finding] = run.findings("multiple-installations")
        installed, version = subprocess.run(
            [DEBIAN_PYTHON, "-I", "-c", "import requests, os, importlib.metadata as m; "
             "print(os.path.dirname(requests.__file__)); print(m.version('requests'))"],
            capture_output=True, text=True, cwd="/").stdout.split()
        evidence = finding["evidence"]
        assert (evidence["name"], evidence["importable_from"], evidence["shadowed"]) == (
            "requests", str(tmp_path / "requests"), [installed])
        # The copy has no metadata; Debian's installation is named with its distribution and version.
        assert [p["distribution"] for p in evidence["places"]] == [None, {"name": "requests", "version": version}]
        assert (f"{tmp_path / 'requests'}, the one imported (first on sys.path), shadows {installed} "
                f"(requests {version})") in finding["message"]
    # Without the copy: one installation, no finding.
    (tmp_path / "requests" / "__init__.py").unlink()
    (tmp_path / "requests").rmdir()
    assert importscope("-c", "import requests", python=DEBIAN_PYTHON, cwd=tmp_path).findings() == []


def test_two_distributions_pip_installed_into_one_directory_are_named_together(importscope, tmp_path):
    site = install_twins(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(site))
    for match in ([], ["--match", "*"]):
        run = importscope(*match, "-c", "import twin", python=DEBIAN_PYTHON, env=env)
        assert run.status == 0, run.stderr
        [finding] = run.findings("multiple-installations")
        assert finding["severity"] == "warning"
        assert finding["evidence"]["importable_from"] == str(site / "twin")
        assert finding["evidence"]["distributions"] == [{"name": "twin-a", "version": "1.0"},
                                                        {"name": "twin-b", "version": "2.0"}]
        assert (f"twin at {site / 'twin'} is installed by 2 distributions in one directory: twin-a 1.0, "
                "twin-b 2.0") in finding["message"]
        assert "pip uninstall twin-a twin-b" in finding["advice"]
    # One distribution there: no finding.
    for metadata in site.glob("twin_b-*.dist-info"):
        for file in metadata.iterdir():
            file.unlink()
        metadata.rmdir()
    assert importscope("-c", "import twin", python=DEBIAN_PYTHON, env=env).findings() == []


def test_a_directory_s_distributions_are_cached_until_an_installation_changes_it(importscope, tmp_path):
    # The metadata of a site directory is kept in importscope's cache: a distribution installed
    # beside the cached ones is seen by the next run all the same.
    site = install_twins(tmp_path)
    [twin_b] = site.glob("twin_b-*.dist-info")
    twin_b.rename(tmp_path / twin_b.name)  # uninstalled, for now
    long_ago = time.time() - 60
    os.utime(site, (long_ago, long_ago))  # settled: a directory changed in the last seconds is not cached
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(site), XDG_CACHE_HOME=str(cache))
    alone = importscope("--match", "twin", "-c", "import twin", python=DEBIAN_PYTHON, env=env)
    assert alone.status == 0, alone.stderr
    assert alone.findings() == []
    assert alone.report["environment"]["distributions"]["twin"] == [{"name": "twin-a", "version": "1.0"}]
    assert list((cache / "importscope").glob("distributions-*")), "the site directory's metadata was not cached"

    (tmp_path / twin_b.name).rename(twin_b)  # installed again: the directory's time changes
    os.utime(site, (long_ago + 30, long_ago + 30))
    both = importscope("--match", "twin", "-c", "import twin", python=DEBIAN_PYTHON, env=env)
    [finding] = both.findings("multiple-installations")
    assert finding["evidence"]["distributions"] == [{"name": "twin-a", "version": "1.0"},
                                                    {"name": "twin-b", "version": "2.0"}]
