"""Diagnosis: root cause, the rest of the double-registration family, the environment, known issues."""
import os
import subprocess
from pathlib import Path

import pytest

from conftest import PROBES, TARGETS, probe, pypi_python
from test_pythons import DEBIAN_PYTHON, has_debian_libpython

FIXTURE = PROBES / "vllm_fixture"


def kinds(run):
    return sorted(f["kind"] for f in run.findings())


def test_vllm_shaped_probe_is_explained_end_to_end(importscope):
    env = dict(os.environ, PYTHONPATH=str(FIXTURE))
    run = importscope(PROBES / "vllm_deep_gemm_alias.py", env=env)
    assert run.status == 3, run.stderr
    assert kinds(run) == ["duplicate-extension-init", "duplicate-source-exec", "duplicate-source-exec",
                          "partial-alias"]
    [alias] = run.findings("partial-alias")
    assert alias["severity"] == "error"  # it led to the duplicate init
    assert alias["module_names"] == ["deep_gemm", "vllm.third_party.deep_gemm"]
    twice = {e["alias_name"] for e in alias["evidence"]["executed_twice"]}
    assert twice == {"deep_gemm.utils", "deep_gemm.utils.layout", "deep_gemm._C"}
    assert "sys.modules.setdefault(\"deep_gemm\" + name" in alias["advice"]
    first_use = alias["evidence"]["alias_first_used_at"]
    assert first_use[-1]["file"].endswith("vllm_deep_gemm_alias.py")  # innermost last: the trigger

    [alias_seen] = run.report["aliases"]
    assert (alias_seen["key"], alias_seen["module"]) == ("deep_gemm", "vllm.third_party.deep_gemm")
    assert alias_seen["first_seen_at"][-1]["file"].endswith("vllm_deep_gemm_alias.py")
    # Where the alias was stored: CPython 3.12 and later tell (dict watchers); before, the line is
    # looked for in the loaded code.
    setter = FIXTURE / "vllm/model_executor/layers/fused_moe/flashinfer_moe_ep.py"
    if tuple(map(int, run.report["tool"]["python"].split("."))) >= (3, 12):
        assert (alias_seen["set_at"][-1]["file"], alias_seen["set_at"][-1]["line"]) == (str(setter), 12)
        assert alias_seen["set_at"][-1]["function"] == "_expose_deep_gemm_to_flashinfer"
        assert alias["evidence"]["alias_set_at"] == alias_seen["set_at"]
        [cause] = run.report["causes"]
        assert cause["evidence"]["set_at"] == alias_seen["set_at"]
        assert f"set at {setter}:12" in run.stderr
    else:
        assert "set_at" not in alias_seen and "alias_set_at" not in alias["evidence"]
        [line] = alias_seen["set_in_code"]
        assert (line["file"], line["line"]) == (str(setter), 12)
        assert alias["evidence"]["alias_set_in_code"] == alias_seen["set_in_code"]
        [cause] = run.report["causes"]
        assert cause["evidence"]["set_in_code"] == alias_seen["set_in_code"]
        assert f"set at {setter}:12 (the line found in the code" in run.stderr

    [duplicate] = run.findings("duplicate-extension-init")
    known = duplicate["known_issue"]
    assert known["id"] == "vllm#59904"
    assert known["fixed_in"]["commit"] == "cc73cca9c88bc19a368a910a630e9c5caec61ac3"
    assert any("FLASHINFER_MEGA_FUSED_STAGE=0" in a for a in known["advice"])
    assert any("pybind11 does not fix" in a for a in known["advice"])
    # Once, under the root cause that explains the findings, not again in the error shown whole.
    assert run.stderr.count("known issue vllm#59904") == 1, run.stderr
    assert run.stderr.index("known issue vllm#59904") < run.stderr.index("duplicate-extension-init:")

    sources = {tuple(f["module_names"]) for f in run.findings("duplicate-source-exec")}
    assert ("vllm.third_party.deep_gemm.utils", "deep_gemm.utils") in sources

    environment = run.report["environment"]
    assert environment["packages"]["vllm"] == "0.11.0.dev0+fixture"
    assert environment["distributions"]["vllm"] == [{"name": "vllm", "version": "0.11.0.dev0+fixture"}]
    assert environment["python"]["implementation"] == "CPython"
    assert environment["libc"].startswith("glibc")
    assert environment["variables"]["PYTHONPATH"] == str(FIXTURE)


def test_the_real_probe_says_clearly_when_vllm_is_absent(importscope):
    run = importscope(PROBES / "vllm_deep_gemm_alias.py")
    assert run.exit["code"] == 2
    assert "vLLM is not installed in this environment" in run.stderr


def test_pybind11_conflict_from_the_same_file_names_the_first_module(importscope):
    run = importscope(probe("deepgemm_pybind"))
    [conflict] = run.findings("native-type-conflict")
    assert conflict["severity"] == "error"
    assert conflict["evidence"]["type_name"] == "Runtime"
    assert conflict["evidence"]["relation"] == "same-file"
    [owner] = conflict["evidence"]["owners"]
    assert owner["module"] == "vllm_mini.third_party.deep_gemm._C"
    assert owner["pybind11"] is True
    assert conflict["evidence"]["error"]["message"] == 'generic_type: type "Runtime" is already registered!'
    stack = conflict["evidence"]["stack"]
    assert stack[-1]["file"].endswith("utils/layout.py")
    assert any(frame["file"].endswith("flashinfer_mini/fused_moe.py") for frame in stack)


def test_two_libraries_binding_one_cpp_type(importscope):
    run = importscope(PROBES / "type_conflict" / "main.py")
    assert run.status == 3, run.stderr
    [conflict] = run.findings("native-type-conflict")
    assert conflict["evidence"]["type_name"] == "cudaDeviceProp"
    assert conflict["evidence"]["failed_module"] == "lib_paddle_like"
    assert conflict["evidence"]["relation"] == "different-libraries"
    assert [o["module"] for o in conflict["evidence"]["owners"]] == ["lib_torch_like"]
    assert conflict["known_issue"]["id"] == "Paddle#56812"
    assert run.findings("duplicate-extension-init") == []


def test_a_vendored_copy_beside_the_original(importscope):
    run = importscope(PROBES / "extension_copy" / "main.py")
    assert run.status == 3, run.stderr
    [copy] = run.findings("duplicate-extension-copy")
    assert copy["severity"] == "error"  # both copies initialized and alive
    assert copy["evidence"]["matched_by"] == "sha256"
    assert len(copy["evidence"]["sha256"]) == 64
    assert sorted(copy["module_names"]) == ["deep_gemm._C", "vendored.deep_gemm._C"]
    assert run.findings("duplicate-extension-init") == []  # two files, one init each


def test_a_second_installation_beside_the_vendored_one(importscope):
    run = importscope(PROBES / "second_install" / "main.py")
    assert run.status == 0  # a warning
    [found] = run.findings("multiple-installations")
    assert found["severity"] == "warning"
    assert found["module_names"][0] == "deep_gemm"
    assert "myserver.third_party.deep_gemm" in found["module_names"]
    assert found["evidence"]["importable_from"].endswith("second_install/site/deep_gemm")


def test_pure_python_double_import(importscope):
    run = importscope(PROBES / "double_import" / "main.py")
    assert run.status == 0
    [double] = run.findings("duplicate-source-exec")
    assert double["module_names"] == ["deep_gemm_tools.deep_gemm_config", "deep_gemm_config"]
    assert double["file"].endswith("deep_gemm_tools/deep_gemm_config.py")


def test_a_double_import_that_no_pattern_matches_is_found_by_default(importscope, tmp_path):
    inner = tmp_path / "tools" / "inner"
    inner.mkdir(parents=True)
    (tmp_path / "tools" / "__init__.py").write_text("")
    (inner / "__init__.py").write_text("")
    (inner / "config.py").write_text("VALUES = []\n")
    (tmp_path / "main.py").write_text(
        "import sys\nimport tools.inner.config as a\n"
        f"sys.path.insert(0, {str(inner)!r})\nimport config as b\nprint(a is b)\n")
    run = importscope(tmp_path / "main.py")
    assert run.status == 0 and run.stdout == "False\n", run.stderr
    [double] = run.findings("duplicate-source-exec")
    assert double["module_names"] == ["tools.inner.config", "config"]
    first, second = double["evidence"]["executions"]
    assert first["stack"] == [] and second["stack"][-1]["line"] == 4  # the first, unrecorded, came late
    records = {m["name"]: m for m in run.report["modules"]}
    assert records["tools.inner.config"]["late"] is True and records["tools.inner.config"]["duration_ms"] is None
    assert "late" not in records["config"]
    # No other source module of the run is recorded: --match still chooses what gets full records.
    assert {n for n, m in records.items() if m["kind"] != "extension"} == {"tools.inner.config", "config"}


def test_a_script_that_a_module_imports_by_name_runs_twice_and_is_found(importscope, tmp_path):
    # The double import trap of PEP 395: app.py runs as __main__, and helper's `import app` runs it
    # again as app.
    (tmp_path / "app.py").write_text("import helper\nprint(__name__)\n")
    (tmp_path / "helper.py").write_text("import app\n")
    run = importscope(tmp_path / "app.py")
    assert run.status == 0 and run.stdout == "app\n__main__\n", run.stderr
    [double] = run.findings("duplicate-source-exec")
    assert double["module_names"] == ["__main__", "app"]
    assert double["file"] == str(tmp_path / "app.py")
    assert "do not import the main script by its module name" in double["advice"]
    main, again = double["evidence"]["executions"]
    assert main["stack"] == [] and again["stack"][-1]["file"] == str(tmp_path / "helper.py")


def test_a_module_run_with_dash_m_that_its_package_imports_runs_twice_and_is_found(importscope, tmp_path):
    # runpy warns of it ("found in sys.modules after import of package"); `python -m
    # torch.utils.collect_env` is one.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from . import tool\n")
    (tmp_path / "pkg" / "tool.py").write_text("print(__name__)\n")
    run = importscope("-m", "pkg.tool", cwd=tmp_path)
    assert run.status == 0 and run.stdout == "pkg.tool\n__main__\n", run.stderr
    [double] = run.findings("duplicate-source-exec")
    assert double["module_names"] == ["pkg.tool", "__main__"]
    assert double["file"] == str(tmp_path / "pkg" / "tool.py")


def test_a_main_module_that_runs_once_is_no_finding(importscope, tmp_path):
    # -m of a module its package does not import; a script whose spawn children run it again as
    # __mp_main__, which multiprocessing does by design; a script imported by nothing.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "tool.py").write_text("print(__name__)\n")
    assert importscope("-m", "pkg.tool", cwd=tmp_path).findings() == []
    (tmp_path / "spawner.py").write_text(
        "import multiprocessing as mp\n\n\ndef work(n):\n    return n * 2\n\n\n"
        "if __name__ == '__main__':\n    with mp.get_context('spawn').Pool(2) as pool:\n"
        "        print(sum(pool.map(work, range(4))))\n")
    run = importscope(tmp_path / "spawner.py")
    assert run.status == 0 and run.stdout == "12\n", run.stderr
    assert run.report["summary"]["python_processes"] >= 3
    assert run.findings() == []


def test_secrets_never_reach_the_report(importscope, tmp_path):
    secrets = {
        "HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz012345",
        "VLLM_API_KEY": "sk-live-0123456789abcdefghij",
        "VLLM_ENDPOINT_BLOB": "QWxhZGRpbjpvcGVuIHNlc2FtZSBhbmQgbW9yZSBzZWNyZXQ0Mg==",
        "CUDA_DB_PASSWORD": "correct horse battery staple",
        "NCCL_AUTH_HEADER": "Bearer abc",
        "MYAPP_CREDENTIAL_FILE": "/etc/myapp/creds",
        "VLLM_HF_LOOKALIKE": "hf_zyxwvutsrqponmlkjihgfedcba98765",
    }
    env = dict(os.environ, **secrets, VLLM_LOGGING_LEVEL="DEBUG", MYAPP_MODE="fast")
    run = importscope("--env-prefix", "MYAPP_", "-c", "import os; print(len(os.environ))", env=env)
    text = run.report_path.read_bytes()
    for value in secrets.values():
        assert value.encode() not in text, value
    variables = run.report["environment"]["variables"]
    for name in ("VLLM_API_KEY", "VLLM_ENDPOINT_BLOB", "CUDA_DB_PASSWORD", "NCCL_AUTH_HEADER",
                 "MYAPP_CREDENTIAL_FILE", "VLLM_HF_LOOKALIKE"):
        assert variables[name] == "<redacted>"
    assert "HF_TOKEN" not in variables  # not a recorded prefix at all
    assert variables["VLLM_LOGGING_LEVEL"] == "DEBUG"
    assert variables["MYAPP_MODE"] == "fast"


def test_a_clean_program_with_many_imports_gives_no_finding(importscope):
    run = importscope("--match", "*", TARGETS / "clean_many_imports.py")
    assert run.status == 0, run.stderr
    assert run.findings() == [], [f["message"] for f in run.findings()]
    assert run.report["summary"]["modules"] > 150
    # One journal line per begin and end at least, each well over 100 bytes.
    assert run.report["summary"]["journal_bytes"] > 2 * 150 * 100


def test_the_fingerprint_is_cached_until_an_installation_changes(importscope, tmp_path):
    site = tmp_path / "site"
    (site / "vllm-1.0.dist-info").mkdir(parents=True)
    (site / "vllm-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: vllm\nVersion: 1.0\n\n")
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(site), XDG_CACHE_HOME=str(cache))
    first = importscope("-c", "pass", env=env)
    assert first.report["environment"]["packages"]["vllm"] == "1.0"
    [cached] = list((cache / "importscope").glob("fingerprint-*.json"))
    written = cached.stat().st_mtime_ns

    again = importscope("-c", "pass", env=env)
    assert again.report["environment"] == first.report["environment"]
    assert cached.stat().st_mtime_ns == written  # reused, not taken again

    (site / "vllm-1.0.dist-info").rename(site / "vllm-2.0.dist-info")
    (site / "vllm-2.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: vllm\nVersion: 2.0\n\n")
    upgraded = importscope("-c", "pass", env=env)
    assert upgraded.report["environment"]["packages"]["vllm"] == "2.0"


DEBIAN_SETUPTOOLS = Path("/usr/lib/python3/dist-packages/setuptools")


@pytest.mark.skipif(not has_debian_libpython() or not (DEBIAN_SETUPTOOLS / "extern" / "__init__.py").is_file(),
                    reason="needs Debian's python3 with a python3-setuptools that has setuptools.extern (before 71)")
def test_setuptools_extern_vendoring_runs_a_module_twice_and_is_named_a_known_issue(importscope):
    # The founding bug's pattern in code nobody here wrote: setuptools' VendorImporter aliases
    # setuptools.extern.packaging to setuptools._vendor.packaging alone, `import setuptools` then
    # executes packaging.version as setuptools.extern.packaging.version, and an import of its real
    # name (pydoc -k, pkgutil.walk_packages, a test collector over site-packages) executes it again.
    run = importscope("-c", "import setuptools, setuptools._vendor.packaging.version", python=DEBIAN_PYTHON)
    assert run.status == 0, run.stderr  # warnings: the process is fine
    version = str(DEBIAN_SETUPTOOLS / "_vendor" / "packaging" / "version.py")
    [twice] = [f for f in run.findings("duplicate-source-exec") if f["file"] == version]
    assert sorted(twice["module_names"]) == ["setuptools._vendor.packaging.version",
                                             "setuptools.extern.packaging.version"]
    [alias] = [f for f in run.findings("partial-alias") if f["module_names"][0] == "setuptools.extern.packaging"]
    assert alias["module_names"][1] == "setuptools._vendor.packaging"
    assert twice["known_issue"]["id"] == alias["known_issue"]["id"] == "setuptools#2825"
    # The advice a setuptools user can act on is on the terminal, under the root cause, once.
    [cause] = [c for c in run.report["causes"] if "setuptools.extern.packaging" in c["message"]]
    assert twice["caused_by"] == alias["caused_by"] == cause["id"]
    block = run.stderr[run.stderr.index(cause["message"]):]
    assert block.count("known issue setuptools#2825") == 1, run.stderr
    assert "Upgrade setuptools to 71.0.0 or later" in block
    gate = importscope("--fail-on", "warning", "-c", "import setuptools, setuptools._vendor.packaging.version",
                       python=DEBIAN_PYTHON)
    assert gate.status == 3, gate.stderr


@pytest.mark.skipif(not has_debian_libpython(), reason="needs Debian's python3 and libpython3.11")
def test_setuptools_imported_alone_executes_nothing_twice(importscope):
    # `import setuptools` by itself imports each vendored module under one name: nothing to say.
    run = importscope("--match", "*", "-c", "import setuptools, pkg_resources", python=DEBIAN_PYTHON)
    assert run.status == 0, run.stderr
    assert run.findings() == [], [f["message"] for f in run.findings()]


def importlib_mode_tree(tmp_path):
    """A test package whose second module imports the first by the package's name, as suites do."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "__init__.py").write_text("REGISTRY = []\n")
    (tmp_path / "tests" / "test_x.py").write_text("HELPER = object()\ndef test_a():\n    assert 1\n")
    (tmp_path / "tests" / "test_y.py").write_text("from tests.test_x import HELPER\ndef test_b():\n    assert HELPER\n")
    return tmp_path


def debian_pytest_before_7_4_2():
    if not has_debian_libpython():
        return False
    found = subprocess.run([DEBIAN_PYTHON, "-c", "import pytest; print(pytest.__version__)"], capture_output=True,
                           text=True)
    version = tuple(int(p) for p in found.stdout.strip().split(".")[:3] if p.isdigit())
    return found.returncode == 0 and len(version) == 3 and version < (7, 4, 2)


@pytest.mark.skipif(not debian_pytest_before_7_4_2(), reason="needs Debian's python3 with a python3-pytest before 7.4.2")
def test_pytests_importlib_mode_runs_a_package_init_twice_before_7_4_2_and_is_named_a_known_issue(importscope, tmp_path):
    tree = importlib_mode_tree(tmp_path)
    command = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib", str(tree / "tests")]
    run = importscope(*command, python=DEBIAN_PYTHON, cwd=tree)
    assert run.status == 0, run.stderr  # the tests pass: the finding is a warning
    [twice] = run.findings("duplicate-source-exec")
    assert twice["file"] == str(tree / "tests" / "__init__.py")
    assert sorted(twice["module_names"]) == ["tests", "tests.__init__"]
    [by_pytest] = [e for e in twice["evidence"]["executions"] if e["module"] == "tests.__init__"]
    assert by_pytest["call_site"]["module"] == "_pytest.pathlib"
    assert twice["known_issue"]["id"] == "pytest#11306"
    assert "known issue pytest#11306" in run.stderr
    assert importscope("--fail-on", "warning", *command, python=DEBIAN_PYTHON, cwd=tree).status == 3


def test_pytest_7_4_2s_importlib_mode_runs_each_file_once(importscope, tmp_path):
    python = pypi_python("pytest-requirements.txt")
    tree = importlib_mode_tree(tmp_path)
    run = importscope("--match", "*", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                      str(tree / "tests"), python=python, cwd=tree)
    assert run.status == 0, run.stderr
    assert run.findings() == [], [f["message"] for f in run.findings()]
    # Its test modules come through pytest's assertion rewriter, a finder ahead of importscope's.
    assert {"tests", "tests.test_x", "tests.test_y"} <= {m["name"] for m in run.report["modules"]}
