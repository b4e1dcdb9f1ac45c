"""Finders that the target puts ahead of importscope's on sys.meta_path once it runs (pytest's
assertion rewriter, import hooks of typeguard's kind): what they find is recorded too, a file run
under two names among it, and the target's list stays as the target made it."""
import subprocess
import textwrap

import pytest

from conftest import PYTHON, pypi_python
from test_pythons import DEBIAN_PYTHON, has_debian_libpython

# A finder of the kind pytest's assertion rewriter is: an object put first on sys.meta_path, whose
# find_spec answers for the files it handles, with a loader of its own class.
FINDER_AHEAD = textwrap.dedent("""\
    import importlib.abc, importlib.util, os, sys

    class Rewriter(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def __init__(self, directory):
            self.directory = directory
        def find_spec(self, name, path=None, target=None):
            base = name.rpartition(".")[2]
            file = os.path.join(self.directory, base + ".py")
            if not base.startswith("check_") or not os.path.isfile(file):
                return None
            return importlib.util.spec_from_file_location(name, file, loader=self)
        def create_module(self, spec):
            return None
        def exec_module(self, module):
            with open(module.__spec__.origin) as f:
                exec(compile(f.read(), module.__spec__.origin, "exec"), module.__dict__)

    class Slotted:
        __slots__ = ()
        def find_spec(self, name, path=None, target=None):
            return None

    here = os.path.dirname(os.path.abspath(__file__))
    rewriter, slotted = Rewriter(os.path.join(here, "suite")), Slotted()
    sys.meta_path.insert(0, rewriter)
    sys.meta_path.insert(0, slotted)
    import suite.check_a          # the rewriter runs suite/check_a.py as suite.check_a
    sys.path.insert(0, os.path.join(here, "suite"))
    import check_a                # and again as check_a: the double import trap
    assert check_a is not suite.check_a
    # The target's own list, untouched: what it put first comes back first.
    assert sys.meta_path.pop(0) is slotted
    assert sys.meta_path.pop(0) is rewriter
    print("ran", check_a.RUNS)
    """)


def finder_ahead_tree(tmp_path):
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "__init__.py").write_text("")
    (tmp_path / "suite" / "check_a.py").write_text("RUNS = []\nRUNS.append(__name__)\n")
    (tmp_path / "target.py").write_text(FINDER_AHEAD)
    return tmp_path


@pytest.mark.parametrize("match", [None, "*"])
def test_a_file_that_a_finder_ahead_of_ours_runs_under_two_names_is_found(importscope, tmp_path, match):
    tree = finder_ahead_tree(tmp_path)
    args = ["--match", match] if match else []
    run = importscope(*args, tree / "target.py", cwd=tree)
    assert run.status == 0, run.stderr
    assert "ran ['check_a']" in run.stdout
    [twice] = run.findings("duplicate-source-exec")
    assert twice["file"] == str(tree / "suite" / "check_a.py")
    assert sorted(twice["module_names"]) == ["check_a", "suite.check_a"]
    loaders = {m["name"]: m["loader"] for m in run.report["modules"] if m["name"].endswith("check_a")}
    assert loaders == {"suite.check_a": "__main__.Rewriter", "check_a": "__main__.Rewriter"}


def test_a_python_child_watches_the_finders_its_code_puts_ahead_too(importscope, tmp_path):
    tree = finder_ahead_tree(tmp_path)
    run = importscope("-c", "import subprocess, sys; sys.exit(subprocess.call([sys.executable, 'target.py']))",
                      cwd=tree)
    assert run.status == 0, run.stderr
    [twice] = run.findings("duplicate-source-exec")
    assert sorted(twice["module_names"]) == ["check_a", "suite.check_a"]
    [child] = [p for p in run.report["processes"] if p["role"] != "main"]
    assert f"in process {child['pid']}" in twice["message"]


def test_the_targets_finders_and_their_answers_are_as_without_importscope(importscope, tmp_path):
    # The finder keeps its class's find_spec as its own (bound to it), the slotted one takes no
    # attribute and is left alone; the program's output is python's.
    tree = finder_ahead_tree(tmp_path)
    probe = tree / "probe.py"
    probe.write_text(FINDER_AHEAD.replace('print("ran", check_a.RUNS)', textwrap.dedent("""\
        print("ran", check_a.RUNS)
        print("bound", rewriter.find_spec("suite.check_a").loader is rewriter, rewriter.find_spec("os") is None)
        print("slotted", type(slotted).find_spec is Slotted.find_spec)
        """)))
    plain = subprocess.run([PYTHON, str(probe)], cwd=tree, capture_output=True, text=True)
    traced = importscope(probe, cwd=tree)
    assert plain.returncode == traced.status == 0, traced.stderr
    assert traced.stdout == plain.stdout
    assert "bound True True" in traced.stdout


def suite_importing_a_test_module_by_its_file_name(tmp_path):
    """A test package whose second module puts its directory on sys.path and imports the first by
    its bare name: pytest's assertion rewriter runs tests/test_a.py as tests.test_a and as test_a."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "__init__.py").write_text("")
    (tmp_path / "tests" / "test_a.py").write_text("REGISTRY = {}\ndef test_a():\n    assert 1\n")
    (tmp_path / "tests" / "test_b.py").write_text(
        "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\nimport test_a\n"
        "def test_b():\n    assert test_a.REGISTRY == {}\n")
    return tmp_path


def pytest_pythons():
    pythons = [pytest.param("pypi", id="pypi-pytest-7.4.2")]
    if has_debian_libpython():
        pythons.append(pytest.param(DEBIAN_PYTHON, id="debian-pytest"))
    return pythons


@pytest.mark.parametrize("python", pytest_pythons())
def test_a_test_module_that_pytests_assertion_rewriter_runs_under_two_names_is_found(importscope, tmp_path, python):
    if python == "pypi":
        python = pypi_python("pytest-requirements.txt")
    elif subprocess.run([python, "-c", "import pytest"], capture_output=True).returncode != 0:
        pytest.skip("Debian's python3-pytest is not installed")
    tree = suite_importing_a_test_module_by_its_file_name(tmp_path)
    run = importscope("-m", "pytest", "-q", "-p", "no:cacheprovider", str(tree / "tests"), python=python, cwd=tree)
    assert run.status == 0, run.stderr  # both tests pass: a warning
    [twice] = run.findings("duplicate-source-exec")
    assert twice["file"] == str(tree / "tests" / "test_a.py")
    assert sorted(twice["module_names"]) == ["test_a", "tests.test_a"]
    rewriter = "_pytest.assertion.rewrite.AssertionRewritingHook"
    assert {m["name"]: m["loader"] for m in run.report["modules"] if m["name"].endswith("test_a")} == {
        "tests.test_a": rewriter, "test_a": rewriter}
    failing = importscope("--fail-on", "warning", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tree / "tests"),
                          python=python, cwd=tree)
    assert failing.status == 3, failing.stderr
