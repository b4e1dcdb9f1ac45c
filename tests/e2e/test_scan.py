"""importscope scan: the hazards of an environment found in its files, with nothing run."""
import ast
import importlib.util
import json
import os
import resource
import stat
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import BIN, PROBES, PYTHON, SANITIZED, SOURCE, install_twins, run_on_a_terminal, validate

DEBIAN_PYTHON = "/usr/bin/python3"


class Scan:
    def __init__(self, proc, report_path):
        self.status = proc.returncode
        self.stderr = proc.stderr
        self.report = json.loads(report_path.read_text()) if report_path.exists() else None
        if self.report is not None:
            validate(self.report)

    def findings(self, kind=None):
        return [f for f in self.report["findings"] if kind is None or f["kind"] == kind]


@pytest.fixture
def scan(tmp_path):
    """Runs `importscope scan -o <tmp>/scan.json ARGS...`."""

    def run(*args, python=PYTHON, timeout=300):
        report = tmp_path / "scan.json"
        command = [BIN, "scan", "-o", str(report)] + (["--python", python] if python else []) + [str(a) for a in args]
        proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=timeout)
        return Scan(proc, report)

    return run


def deepgemm_tree(tmp_path, drop_function=None):
    """The DeepGEMM miniature with its pybind11 _C, copied; `drop_function` taken out of the
    aliasing module."""
    tree = tmp_path / "tree"
    shutil.copytree(PROBES / "deepgemm_pybind", tree)
    compat = tree / "vllm_mini" / "deep_gemm_compat.py"
    if drop_function:
        lines = compat.read_text().splitlines(keepends=True)
        [function] = [n for n in ast.parse("".join(lines)).body if getattr(n, "name", "") == drop_function]
        del lines[function.lineno - 1:function.end_lineno]
        compat.write_text("".join(lines))
    return tree


def test_the_vllm_alias_is_an_error_naming_the_alias_the_importer_and_the_chain_to_the_extension(scan, tmp_path):
    tree = deepgemm_tree(tmp_path, drop_function="_expose_deep_gemm_to_flashinfer_fixed")
    result = scan(tree)
    assert result.status == 1, result.stderr
    [finding] = result.findings()
    assert (finding["kind"], finding["severity"]) == ("partial-alias", "error")
    assert finding["module_names"] == ["deep_gemm", "vllm_mini.third_party.deep_gemm"]
    compat = tree / "vllm_mini" / "deep_gemm_compat.py"
    consumer = tree / "flashinfer_mini" / "fused_moe.py"
    evidence = finding["evidence"]
    assert evidence["static"]["seen"] == [{"file": str(compat), "line": 16}, {"file": str(consumer), "line": 15}]
    [importer] = evidence["importers"]
    assert (importer["file"], importer["line"], importer["module"]) == (str(consumer), 15, "deep_gemm.utils")
    chain = importer["executes_again"]
    assert [step["module"] for step in chain] == ["deep_gemm.utils", "deep_gemm.utils.layout", "deep_gemm._C"]
    assert chain[-1]["imported_at"] == {"file": str(tree / "vllm_mini/third_party/deep_gemm/utils/layout.py"),
                                        "line": 1}
    assert Path(chain[-1]["file"]).name.startswith("_C.") and Path(chain[-1]["file"]).suffix == ".so"
    # The summary names both places, and that nothing was run.
    assert f"{compat}:16" in result.stderr and f"{consumer}:15" in result.stderr
    assert "nothing run" in result.stderr
    assert result.report["scan"]["outcome"] == {"exit_status": 1, "reason": "findings",
                                                "message": "1 finding that --fail-on selects", "failures": []}
    # Nothing of it was executed: no bytecode was written beside the sources.
    assert not list(tree.rglob("__pycache__"))


def test_the_fixed_alias_that_also_aliases_the_loaded_submodules_is_a_warning(scan, tmp_path):
    tree = deepgemm_tree(tmp_path, drop_function="_expose_deep_gemm_to_flashinfer")
    result = scan(tree)
    assert result.status == 0, result.stderr
    [finding] = result.findings()
    assert (finding["kind"], finding["severity"]) == ("partial-alias", "warning")
    compat = tree / "vllm_mini" / "deep_gemm_compat.py"
    [loop] = finding["evidence"]["submodules_aliased_at"]
    assert loop["file"] == str(compat) and "sys.modules.setdefault(\"deep_gemm.\"" in compat.read_text().splitlines()[
        loop["line"] - 1]
    assert "its loaded submodules too" in finding["message"]
    assert scan(tree, "--fail-on", "warning").status == 1


@pytest.mark.parametrize("guard, condition", [
    ('if os.environ.get("VLLM_ALIAS_SUBMODULES"):', "if os.environ.get('VLLM_ALIAS_SUBMODULES')"),
    ("try:\n        import missing_helper\n    except ImportError:", "only when ImportError was raised"),
])
def test_a_submodule_fix_under_a_condition_names_it_and_leaves_the_alias_an_error(scan, tmp_path, guard, condition):
    tree = deepgemm_tree(tmp_path, drop_function="_expose_deep_gemm_to_flashinfer")
    compat = tree / "vllm_mini" / "deep_gemm_compat.py"
    text = compat.read_text()
    loop = ('    for name, module in list(sys.modules.items()):\n'
            '        if name.startswith(prefix):\n'
            '            sys.modules.setdefault("deep_gemm." + name[len(prefix):], module)\n')
    assert loop in text
    guarded = "    " + guard + "\n" + "".join("    " + line + "\n" for line in loop.splitlines())
    compat.write_text("import os\n" + text.replace(loop, guarded))
    # The fixed function is the one vLLM's code calls now.
    for path in tree.rglob("*.py"):
        path.write_text(path.read_text().replace("_expose_deep_gemm_to_flashinfer_fixed", "_expose_deep_gemm_to_flashinfer"))
    result = scan(tree)
    assert result.status == 1, result.stderr
    [finding] = result.findings("partial-alias")
    assert finding["severity"] == "error"
    assert f"its loaded submodules are aliased too ({compat}:" in finding["message"]
    assert f"but only {condition} ({compat}:" in finding["message"]
    assert "and otherwise" in finding["message"] and "would be initialized a second time" in finding["message"]
    [covered] = finding["evidence"]["submodules_aliased_at"]
    assert covered["only"]["condition"] == condition


def test_an_alias_whose_value_is_not_in_the_scanned_files_is_never_called_a_package(scan, tmp_path):
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "shim.py").write_text(
        "import sys\n"
        "from google.protobuf.pyext import _message\n"
        "sys.modules['a.b._message'] = _message\n"
        "def expose(module):\n    sys.modules['made'] = module\n")
    result = scan(tree)
    assert result.status == 0, result.stderr
    messages = {f["module_names"][0]: f["message"] for f in result.findings("partial-alias")}
    assert "_message is google.protobuf.pyext._message, which is not in the scanned files: whether it is a package " \
           "is unknown" in messages["a.b._message"]
    assert "module is unresolved" in messages["made"]
    assert not any("package, not its submodules" in m for m in messages.values())
    assert result.report["problems"] == []  # a module-level alias, then one in a function: both resolved


def test_an_alias_without_importers_is_a_warning_and_an_alias_of_a_module_is_none(scan, tmp_path):
    (tmp_path / "src" / "real" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "real" / "__init__.py").write_text("")
    (tmp_path / "src" / "real" / "sub" / "__init__.py").write_text("")
    (tmp_path / "src" / "single.py").write_text("")
    (tmp_path / "src" / "shim.py").write_text(
        "import sys\nimport real\nimport single\n"
        "sys.modules['other'] = real\n"          # a package: its submodules are not aliased
        "sys.modules['also'] = single\n"         # a module has no submodules to execute again
        "sys.modules[__name__] = real\n"         # a module replacing itself is not an alias
        "sys.modules['real'] = real\n")          # the module under its own name
    result = scan(tmp_path / "src")
    assert result.status == 0, result.stderr
    [finding] = result.findings()
    assert finding["module_names"] == ["other", "real"] and finding["severity"] == "warning"
    assert "no scanned code imports a submodule through other" in finding["message"]
    assert result.report["scan"]["environment"] is False and result.report["scan"]["sys_path"] == []
    # --environment: the interpreter's sys.path as well, each entry with its origin.
    both = scan("--environment", tmp_path / "src")
    assert both.report["scan"]["environment"] is True
    assert "site-packages" in {e["origin"] for e in both.report["scan"]["sys_path"]}
    assert [f["module_names"] for f in both.findings("partial-alias") if f["file"] == finding["file"]] == [
        ["other", "real"]]


def test_the_vllm_fixture_matches_the_known_issue(scan):
    # probes/vllm_fixture is vLLM's layout without FlashInfer: nothing imports through the alias, so
    # a warning, but the catalogue knows the alias and says what to do.
    fixture = SOURCE / "probes" / "vllm_fixture"
    result = scan(fixture)
    assert result.status == 0, result.stderr
    [finding] = result.findings()
    assert finding["known_issue"]["id"] == "vllm#59904"
    assert finding["file"] == str(fixture / "vllm" / "third_party" / "deep_gemm" / "__init__.py")
    assert finding["evidence"]["set_at"][0]["file"] == str(
        fixture / "vllm" / "model_executor" / "layers" / "fused_moe" / "flashinfer_moe_ep.py")
    assert "known issue vllm#59904" in result.stderr


def test_an_alias_of_what_a_helper_returns_is_resolved_through_the_helper(scan, tmp_path):
    # vLLM's helper tries the upstream name first, then the vendored copy: the alias is of the
    # vendored package, whose extension the importer reaches.
    tree = deepgemm_tree(tmp_path)
    compat = tree / "vllm_mini" / "deep_gemm_compat.py"
    compat.write_text(
        "import importlib\nimport sys\n\n\n"
        "def _import_deep_gemm():\n"
        "    try:\n        import deep_gemm\n        return deep_gemm\n    except ImportError:\n        pass\n"
        "    try:\n        dg = importlib.import_module('vllm_mini.third_party.deep_gemm')\n        return dg\n"
        "    except ImportError:\n        return None\n\n\n"
        "def _expose_deep_gemm_to_flashinfer():\n"
        "    module = _import_deep_gemm()\n"
        "    if module is not None:\n        sys.modules.setdefault('deep_gemm', module)\n")
    result = scan(tree)
    assert result.status == 1, result.stderr
    [finding] = result.findings()
    assert finding["severity"] == "error"
    assert finding["evidence"]["targets"] == ["vllm_mini.third_party.deep_gemm"]
    assert finding["evidence"]["set_at"][0]["line"] == 21
    assert finding["evidence"]["set_at"][0]["function"] == "_expose_deep_gemm_to_flashinfer"


def test_an_alias_of_what_a_helper_of_another_module_returns_is_resolved_through_it(scan, tmp_path):
    # vLLM 0.34.0: vllm/utils/deep_gemm.py defines the helper, and fused_moe/flashinfer_moe_ep.py
    # imports it and aliases what it returns; the same, through a module bound by name.
    tree = deepgemm_tree(tmp_path)
    (tree / "vllm_mini" / "deep_gemm_compat.py").write_text("")  # its aliases are the other tests'
    (tree / "vllm_mini" / "utils").mkdir()
    (tree / "vllm_mini" / "utils" / "__init__.py").write_text("")
    (tree / "vllm_mini" / "utils" / "deep_gemm.py").write_text(
        "import functools\nimport importlib\n\n\n"
        "@functools.cache\n"
        "def _import_deep_gemm():\n"
        "    try:\n        module = importlib.import_module('deep_gemm')\n        return module\n"
        "    except ImportError:\n        pass\n"
        "    try:\n        module = importlib.import_module('vllm_mini.third_party.deep_gemm')\n        return module\n"
        "    except ImportError:\n        return None\n")
    (tree / "vllm_mini" / "flashinfer_moe_ep.py").write_text(
        "import sys\n\nfrom vllm_mini.utils.deep_gemm import _import_deep_gemm\n\n\n"
        "def _expose_deep_gemm_to_flashinfer():\n"
        "    deep_gemm = _import_deep_gemm()\n"
        "    sys.modules.setdefault('deep_gemm', deep_gemm)\n")
    (tree / "vllm_mini" / "by_module.py").write_text(
        "import sys\n\nfrom .utils import deep_gemm as helpers\n\n\n"
        "def expose():\n"
        "    sys.modules['dg'] = helpers._import_deep_gemm()\n")
    result = scan(tree)
    assert result.status == 1, result.stderr
    found = {f["module_names"][0]: f for f in result.findings("partial-alias")}
    assert sorted(found) == ["deep_gemm", "dg"], sorted(found)
    alias = found["deep_gemm"]
    assert alias["severity"] == "error"  # flashinfer_mini imports deep_gemm.utils, which reaches _C
    assert alias["evidence"]["targets"] == ["vllm_mini.third_party.deep_gemm"]
    assert alias["evidence"]["set_at"][0]["file"].endswith("vllm_mini/flashinfer_moe_ep.py")
    assert alias["evidence"]["set_at"][0]["line"] == 8
    # The helper tries an installed deep_gemm first: either can be what "dg" names.
    assert found["dg"]["evidence"]["targets"] == ["deep_gemm", "vllm_mini.third_party.deep_gemm"]


def test_a_package_directory_scanned_by_itself_names_its_modules_as_an_import_does(scan, tmp_path):
    # `importscope scan site-packages/vllm`: vllm_mini/third_party/deep_gemm is that package, not a
    # "third_party.deep_gemm" of unknown kind, and the finding is the one a scan of its parent gives.
    tree = deepgemm_tree(tmp_path)
    (tree / "flashinfer_mini").rename(tmp_path / "flashinfer_mini")  # the importer is elsewhere

    def aliases(result):
        return sorted((f["evidence"]["set_at"][0]["line"], f["evidence"]["targets"], f["evidence"]["target_file"],
                       f["severity"], f["message"]) for f in result.findings("partial-alias"))

    whole, package = scan(tree), scan(tree / "vllm_mini")
    assert whole.status == package.status == 0, package.stderr
    assert aliases(package) == aliases(whole), package.stderr
    assert [(line, targets) for line, targets, *_ in aliases(package)] == [
        (16, ["vllm_mini.third_party.deep_gemm"]), (23, ["vllm_mini.third_party.deep_gemm"])]
    assert all(target_file.endswith("vllm_mini/third_party/deep_gemm/__init__.py")
               for _, _, target_file, *_ in aliases(package))


def test_package_directories_scanned_together_hold_no_top_level_names_of_their_own(scan, tmp_path):
    # `importscope scan site-packages/setuptools site-packages/pkg_resources`: each has its
    # __init__.py, an extern and a _vendor, which are setuptools.extern and pkg_resources.extern,
    # never one top-level "extern" or "__init__" that one of them shadows; nor does a package's
    # subpackage shadow a top-level package of the same name in a directory scanned with it.
    for package in ("alpha", "beta"):
        for sub in ("", "extern", "_vendor", "utils"):
            (tmp_path / "site" / package / sub).mkdir(parents=True, exist_ok=True)
            (tmp_path / "site" / package / sub / "__init__.py").write_text("")
    (tmp_path / "plain" / "utils").mkdir(parents=True)
    (tmp_path / "plain" / "utils" / "__init__.py").write_text("")
    (tmp_path / "other" / "utils").mkdir(parents=True)
    (tmp_path / "other" / "utils" / "__init__.py").write_text("")
    packages = scan(tmp_path / "site" / "alpha", tmp_path / "site" / "beta", tmp_path / "plain", python=DEBIAN_PYTHON)
    assert packages.status == 0, packages.stderr
    assert packages.findings("multiple-installations") == [], packages.stderr
    # Two plain directories are two sys.path entries: the first one's utils shadows the other's.
    plain = scan(tmp_path / "plain", tmp_path / "other", python=DEBIAN_PYTHON)
    [shadow] = plain.findings("multiple-installations")
    assert shadow["evidence"]["importable_from"] == str(tmp_path / "plain" / "utils")


def test_debians_setuptools_and_pkg_resources_scanned_together_give_no_finding(scan):
    # The real case of the test above: Debian's python3-setuptools (66.1.1 in bookworm).
    site = Path("/usr/lib/python3/dist-packages")
    if not (site / "setuptools" / "extern" / "__init__.py").is_file() or not (site / "pkg_resources").is_dir():
        pytest.skip("Debian's python3-setuptools with setuptools.extern is not installed")
    result = scan(site / "setuptools", site / "pkg_resources", python=DEBIAN_PYTHON)
    assert result.status == 0, result.stderr
    assert result.findings("multiple-installations") == [], result.stderr


def test_a_package_directory_on_sys_path_names_its_modules_as_that_entry_does(tmp_path):
    # PYTHONPATH=site/pkg: through that entry `sub` is a top-level package, and the alias of it is
    # found as such, whether or not the directory is also given as a PATH.
    pkg = tmp_path / "site" / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "x.py").write_text("VALUE = 1\n")
    (pkg / "aliasing.py").write_text("import sys\nimport sub\n\nsys.modules['alias'] = sub\n")
    (pkg / "user.py").write_text("import alias.x\n")
    report = tmp_path / "scan.json"
    venv = tmp_path / "venv"  # an environment of nothing else, quick to scan
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    env = dict(os.environ, PYTHONPATH=str(pkg))
    for paths in ([], [str(pkg)]):
        proc = subprocess.run([BIN, "scan", "--python", str(venv / "bin" / "python"), "--environment", "-o",
                               str(report), *paths],
                              capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode in (0, 1), proc.stderr
        result = json.loads(report.read_text())
        [alias] = [f for f in result["findings"] if f["kind"] == "partial-alias"]
        assert alias["evidence"]["targets"] == ["sub"], paths
        assert alias["evidence"]["target_file"] == str(pkg / "sub" / "__init__.py")
        assert [i["module"] for i in alias["evidence"]["importers"]] == ["alias.x"]


@pytest.mark.parametrize("own_name_import, runs_again", [
    (None, None),  # vLLM's triton_kernels: made to be imported through its alias alone
    ("other.py", "kern.ops"),  # other code imports the same module by the package's name
    ("__init__.py", "kern.helpers"),  # the package's own import runs what ops imports
])
def test_an_importer_of_python_source_says_whether_its_modules_run_under_both_names(
        scan, tmp_path, own_name_import, runs_again):
    tree = tmp_path / "src"
    kern = tree / "app" / "vendor" / "kern"
    kern.mkdir(parents=True)
    for package in (tree / "app", tree / "app" / "vendor", kern):
        (package / "__init__.py").write_text("")
    (kern / "ops.py").write_text("import kern.helpers\n")  # its sibling, through the alias
    (kern / "helpers.py").write_text("VALUE = 1\n")
    (tree / "app" / "setup_alias.py").write_text("import sys\nimport app.vendor.kern as kern\n\nsys.modules['kern'] = kern\n")
    (tree / "app" / "use.py").write_text("import kern.ops\n")
    if own_name_import == "other.py":
        (tree / "app" / "other.py").write_text("from app.vendor.kern import ops\n")
    elif own_name_import == "__init__.py":
        (kern / "__init__.py").write_text("from . import helpers\n")
    result = scan(tree)
    assert result.status == 0, result.stderr
    [finding] = result.findings("partial-alias")
    assert finding["severity"] == "warning"
    importers = {i["module"]: i for i in finding["evidence"]["importers"]}
    assert sorted(importers) == ["kern.helpers", "kern.ops"]  # use.py's, and ops.py's of its sibling
    importer = importers["kern.ops"]
    if runs_again is None:
        assert importer["under_both_names"] == [] and importers["kern.helpers"]["under_both_names"] == []
        assert "the scanned code runs none of the modules those 2 imports execute under app.vendor.kern's own " \
               "names, so each would run once, under the alias" in finding["message"]
    else:
        assert runs_again in importer["under_both_names"]
        assert f"{runs_again} would be executed again under the alias, as it runs as app.vendor.{runs_again} too" \
            in finding["message"]


def test_a_terminal_sees_a_progress_line_and_odd_files_are_problems_not_failures(tmp_path):
    tree = tmp_path / "src"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text("")
    (tree / "pkg" / "broken.py").write_text("import sys\nsys.modules['x'] = (\n")  # picked, then refused
    (tree / "pkg" / "b\udcff.py").write_text(  # a file name that is not UTF-8
        "import sys\nimport pkg\nsys.modules['other'] = pkg\n")
    report = tmp_path / "scan.json"
    status, screen = run_on_a_terminal([BIN, "scan", "--python", PYTHON, "-o", str(report), str(tree)],
                                       cwd=tmp_path)
    assert status == 0, screen
    assert "importscope: scan: " in screen  # the progress line, erased before the summary
    result = json.loads(report.read_text())
    validate(result)
    assert any("broken.py was not scanned: SyntaxError" in p for p in result["problems"])
    [finding] = result["findings"]
    assert finding["evidence"]["set_at"][0]["file"].endswith("/pkg/b\ufffd.py")
    assert finding["file"] == str(tree / "pkg" / "__init__.py")  # the aliased package's, as run names it


def test_an_identical_extension_copy_is_found_by_content(scan):
    copy = PROBES / "extension_copy"
    result = scan(copy / "site", copy / "app")
    assert result.status == 0, result.stderr
    [finding] = result.findings("duplicate-extension-copy")
    assert finding["evidence"]["matched_by"] == "sha256"
    assert {c["module"] for c in finding["evidence"]["copies"]} == {"deep_gemm._C", "vendored.deep_gemm._C"}
    assert scan(copy / "site", copy / "app", "--fail-on", "duplicate-extension-copy").status == 1


def test_two_distributions_in_one_directory_and_a_shadowing_copy(scan, tmp_path):
    site = install_twins(tmp_path)
    (tmp_path / "work" / "twin").mkdir(parents=True)
    (tmp_path / "work" / "twin" / "__init__.py").write_text("")
    result = scan(tmp_path / "work", site, python=DEBIAN_PYTHON)
    assert result.status == 0, result.stderr
    by_message = {f["message"].split(" ")[0] + (" shared" if "one directory" in f["message"] else " shadows"): f
                  for f in result.findings("multiple-installations")}
    assert set(by_message) == {"twin shadows"}  # the copy that wins is checked for a shared directory
    shadow = by_message["twin shadows"]
    assert shadow["evidence"]["importable_from"] == str(tmp_path / "work" / "twin")
    assert shadow["evidence"]["shadowed"] == [str(site / "twin")]
    assert shadow["evidence"]["places"][1]["distribution"] == {"name": "twin-a", "version": "1.0"}
    only_site = scan(site, python=DEBIAN_PYTHON)
    [shared] = only_site.findings("multiple-installations")
    assert shared["evidence"]["distributions"] == [{"name": "twin-a", "version": "1.0"},
                                                   {"name": "twin-b", "version": "2.0"}]


def test_a_pth_file_that_puts_a_package_directory_on_sys_path_is_an_error_when_it_holds_an_extension(scan, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    [site] = venv.glob("lib/python3.*/site-packages")
    package = site / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    extension = next((PROBES / "extension_copy" / "site" / "deep_gemm").glob("_C.*.so"))
    shutil.copy(extension, package / extension.name)
    (site / "trap.pth").write_text(f"# the package's own directory\n{package}\n")
    result = scan(python=venv / "bin" / "python")
    assert result.status == 1, result.stderr
    [finding] = result.findings("package-directory-on-sys-path")
    assert finding["severity"] == "error"
    assert finding["evidence"]["entry"] == str(package) and finding["evidence"]["package"] == "pkg"
    assert finding["evidence"]["static"]["seen"] == [{"file": str(site / "trap.pth"), "line": 2}]
    assert f"Remove line 2 of {site / 'trap.pth'}" in finding["advice"]
    entries = {e["path"]: e for e in result.report["scan"]["sys_path"]}
    assert entries[str(package)]["origin"] == ".pth"
    # Without the extension, a warning.
    (package / extension.name).unlink()
    assert [f["severity"] for f in scan(python=venv / "bin" / "python").findings()] == ["warning"]


def test_debian_dist_packages_give_no_error_and_take_seconds(scan):
    started = time.monotonic()
    result = scan(python=DEBIAN_PYTHON)
    elapsed = time.monotonic() - started
    assert result.status == 0, result.stderr
    assert elapsed < 60
    files = result.report["scan"]["files"]
    assert files["sources"] > 1000 and files["parsed"] < files["sources"] / 10
    # Every finding there, read: the deprecated-name shims of torch and py alias a package and nothing
    # imports a submodule through them.
    for finding in result.findings():
        assert finding["severity"] == "warning", finding["message"]
        assert finding["kind"] == "partial-alias", finding["message"]
        assert finding["evidence"]["importers"] == []
        assert finding["module_names"][0] in {"py.test", "torch.distributed._sharded_tensor",
                                              "torch.distributed._sharding_spec"}, finding["message"]


def test_a_scan_report_renders_diffs_and_refuses_bad_input(scan, tmp_path):
    tree = deepgemm_tree(tmp_path)
    result = scan(tree)
    assert result.status == 1
    report = tmp_path / "scan.json"
    for form in ("text", "markdown", "junit", "dot"):
        shown = subprocess.run([BIN, "report", "--format", form, str(report)], capture_output=True, text=True)
        assert shown.returncode == 0, shown.stderr
        assert "partial-alias" in shown.stdout or form == "dot"
    clean = tmp_path / "clean.json"
    (tmp_path / "empty").mkdir()
    assert subprocess.run([BIN, "scan", "-q", "-o", str(clean), str(tmp_path / "empty")]).returncode == 0
    diff = subprocess.run([BIN, "diff", str(clean), str(report)], capture_output=True, text=True)
    assert diff.returncode == 1 and "partial-alias" in diff.stdout
    missing = subprocess.run([BIN, "scan", str(tmp_path / "nowhere")], capture_output=True, text=True, cwd=tmp_path)
    assert missing.returncode == 2 and "nowhere: no such file or directory" in missing.stderr
    assert not (tmp_path / "importscope-scan.json").exists()


def test_redact_paths_writes_the_home_directory_as_a_tilde(tmp_path):
    tree = deepgemm_tree(tmp_path, drop_function="_expose_deep_gemm_to_flashinfer_fixed")
    report = tmp_path / "scan.json"
    env = dict(os.environ, HOME=str(tmp_path))
    proc = subprocess.run([BIN, "scan", "-q", "--redact-paths", "--python", PYTHON, "-o", str(report), str(tree)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    text = report.read_text()
    validate(json.loads(text))
    assert str(tmp_path) not in text
    assert '"~/tree/vllm_mini/deep_gemm_compat.py"' in text


def test_an_alias_of_a_standard_library_package_is_scanned_as_any_other(scan, tmp_path):
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "a.py").write_text('import sys, json\nsys.modules["j2"] = json\nimport j2.decoder\n')
    result = scan(tree)
    assert result.status == 0, result.stderr  # a pure-Python module executed again: a warning
    [finding] = result.findings("partial-alias")
    assert finding["severity"] == "warning"
    assert "json aliased as j2" in finding["message"] and "j2.decoder" in finding["message"]
    assert result.report["problems"] == []


def test_an_error_of_the_scanner_on_one_file_is_a_problem_naming_it_and_the_rest_is_scanned(
        tmp_path, monkeypatch, capsysbinary):
    spec = importlib.util.spec_from_file_location("scanner_under_test", SOURCE / "src" / "scan" / "scanner.py")
    scanner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scanner)
    tree = tmp_path / "src"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text("")
    (tree / "good.py").write_text("import sys\nimport pkg\nsys.modules['alias'] = pkg\n")
    (tree / "odd.py").write_text("import sys\nimport pkg\nsys.modules['other'] = pkg\n")
    writes_of = scanner.Scan.writes_of

    def failing_on_odd(self, path, data):
        if path.endswith("odd.py"):
            raise KeyError("a fault of the scanner's own")
        return writes_of(self, path, data)

    monkeypatch.setattr(scanner.Scan, "writes_of", failing_on_odd)
    assert scanner.main(["--path", str(tree)]) == 0
    facts = json.loads(capsysbinary.readouterr().out)
    assert [a["alias"] for a in facts["aliases"]] == ["alias"]
    [problem] = facts["problems"]
    assert problem.startswith(str(tree / "odd.py") + ": importscope's scanner failed on this file")
    assert "KeyError" in problem and "the rest was scanned" in problem


def test_nothing_of_the_scanned_environment_runs_and_its_sys_path_is_still_known(tmp_path):
    # A venv whose start-up runs code of its own: a .pth import line, a sitecustomize in its
    # site-packages, a sitecustomize and a module shadowing the standard library on PYTHONPATH.
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    [site] = venv.glob("lib/python3.*/site-packages")
    markers = tmp_path / "ran"
    markers.mkdir()

    def marking(name):
        return f"import os; open(os.path.join({str(markers)!r}, {name!r}), 'w')\n"

    extra = tmp_path / "extra"
    extra.mkdir()
    (site / "hook.pth").write_text(f"# a comment\n{extra}\n" + marking("pth"))
    (site / "sitecustomize.py").write_text(marking("sitecustomize"))
    on_path = tmp_path / "on_path"
    on_path.mkdir()
    (on_path / "usercustomize.py").write_text(marking("usercustomize"))
    for shadowing in ("json", "re", "ast", "argparse", "sysconfig"):
        (on_path / f"{shadowing}.py").write_text(marking(shadowing))
    report = tmp_path / "scan.json"
    env = dict(os.environ, PYTHONPATH=str(on_path))
    proc = subprocess.run([BIN, "scan", "--python", str(venv / "bin" / "python"), "-o", str(report)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert sorted(p.name for p in markers.iterdir()) == []
    assert proc.returncode == 0, proc.stderr
    result = json.loads(report.read_text())
    validate(result)
    origins = {e["path"]: e for e in result["scan"]["sys_path"]}
    assert origins[str(on_path)]["origin"] == "PYTHONPATH"
    assert origins[str(site)]["origin"] == "site-packages"
    assert origins[str(extra)]["origin"] == ".pth"
    assert origins[str(extra)]["pth"] == {"file": str(site / "hook.pth"), "line": 2}
    # What start-up would run is a fact of the report, not something that ran.
    assert {(c["kind"], c["file"], c["line"]) for c in result["scan"]["startup_code"]} == {
        ("pth-import", str(site / "hook.pth"), 3), ("sitecustomize", str(site / "sitecustomize.py"), 0)}


ROOT = os.geteuid() == 0


def _as_nobody(*args, cwd, timeout=300):
    return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", BIN, *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout)


@pytest.fixture
def shared_tmp():
    """A temporary directory that another user can reach (pytest's is under a 0700 directory)."""
    with tempfile.TemporaryDirectory(prefix="importscope-test-") as name:
        os.chmod(name, 0o777)
        yield Path(name)


@pytest.mark.skipif(not ROOT or not shutil.which("setpriv"), reason="runs the scan as another user")
def test_a_source_file_it_cannot_read_is_named_and_the_scan_is_not_green(shared_tmp):
    tree = shared_tmp / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text("")
    (tree / "pkg" / "sub.py").write_text("")
    # The error finding is in the one file the CI user cannot read.
    secret = tree / "secret.py"
    secret.write_text("import sys\nimport pkg\nsys.modules['alias'] = pkg\nimport alias.sub\n")
    for path in tree.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    tree.chmod(0o755)
    secret.chmod(0)
    report = shared_tmp / "scan.json"
    proc = _as_nobody("scan", "--python", DEBIAN_PYTHON, "-o", report, tree, cwd=shared_tmp)
    assert proc.returncode == 125, proc.stderr
    result = json.loads(report.read_text())
    validate(result)
    assert f"{secret} could not be read: Permission denied; the scan is incomplete" in result["problems"]
    assert result["scan"]["outcome"]["reason"] == "tool-failure"
    assert result["scan"]["outcome"]["failures"] == [f"{secret} could not be read: Permission denied"]
    assert "the scan is incomplete" in proc.stderr
    # Readable, the finding is there (a warning: pkg has no extension) and the scan complete.
    secret.chmod(0o644)
    proc = _as_nobody("scan", "-q", "--python", DEBIAN_PYTHON, "-o", report, tree, cwd=shared_tmp)
    assert proc.returncode == 0, proc.stderr
    assert [f["module_names"] for f in json.loads(report.read_text())["findings"]] == [["alias", "pkg"]]


def test_only_regular_files_of_a_bounded_size_are_read(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("import sys\nimport json\nsys.modules['j2'] = json\nimport j2.decoder\n")
    os.mkfifo(tree / "fifo.py")  # opened for reading, it would wait for a writer for ever
    (tree / "nowhere.py").symlink_to(tmp_path / "missing.py")
    # /dev/zero's device under a source file's name: read to the end, it never ends. Not under the
    # sanitizers: their shadow memory takes more address space than the limit that keeps a
    # regression from reading all of the machine's memory.
    device = ROOT and not SANITIZED
    if device:
        os.mknod(tree / "zero.py", 0o644 | stat.S_IFCHR, os.makedev(1, 5))
    huge = tree / "huge.py"
    with open(huge, "wb") as f:
        f.write(b"import sys\nsys.modules['x'] = sys\n")
        f.truncate(9 << 20)
    report = tmp_path / "scan.json"

    def bounded():  # should the bug come back, a read of the device ends at 4 GiB, not with the machine's memory
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    started = time.monotonic()
    proc = subprocess.run([BIN, "scan", "--timeout", "60", "--python", PYTHON, "-o", str(report), str(tree)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          preexec_fn=None if SANITIZED else bounded)
    assert time.monotonic() - started < 30
    assert proc.returncode == 125, proc.stderr  # the huge file may hide a finding
    result = json.loads(report.read_text())
    validate(result)
    problems = result["problems"]
    assert f"{tree / 'fifo.py'} is not a regular file (a FIFO): not read" in problems
    assert f"{tree / 'nowhere.py'} is a symlink to nothing: not read" in problems
    if device:
        assert f"{tree / 'zero.py'} is not a regular file (a character device): not read" in problems
    assert result["scan"]["outcome"]["failures"] == [f"{huge} could not be read: larger than 8 MiB, too large to parse"]
    [finding] = result["findings"]
    assert finding["module_names"] == ["j2", "json"]  # the rest was scanned
