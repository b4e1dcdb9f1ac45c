"""Extensions the program went on without (extension-load-failed): a load that raised and was
caught (a shared library missing, a symbol undefined, a file that is not the module it is imported
as), and a submodule built for another interpreter only. The extensions are real: one built here
with the system compiler against a library that is then taken away or changed, and Debian's
python3-lxml's etree copied under another name."""
import os
import shutil
import subprocess

import pytest

from conftest import PYTHON
from test_pythons import DEBIAN_PYTHON, has_debian_libpython


def plain_env():
    """The environment without the runtime a sanitized build's tests preload, for programs run on
    their own (it crashes cc1, and its LeakSanitizer fails a plain python at exit)."""
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.endswith("SAN_OPTIONS")}


def ext_suffix(python):
    """The file name ending of the extensions `python` loads first (.cpython-3XY-<arch>.so)."""
    return subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"],
                          capture_output=True, text=True, check=True, env=plain_env()).stdout.strip()


CAUGHT_IN_A_FUNCTION = """
def load():
    try:
        import pkg._C
    except ImportError as e:
        print("fallback:", e)
load()
"""


def compile_shared(output, source, *flags):
    """The system compiler, run on its own."""
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(output), str(source), *flags], check=True, env=plain_env())


def build_extension_on_a_library(directory, suffix):
    """pkg/_C<suffix>, whose PyInit calls gone() from pkg/libgone.so (found through $ORIGIN)."""
    if not shutil.which("cc"):
        pytest.skip("needs a C compiler")
    pkg = directory / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (directory / "gone.c").write_text("void *gone(void) { return 0; }\n")
    (directory / "ext.c").write_text("extern void *gone(void);\nvoid *PyInit__C(void) { return gone(); }\n")
    compile_shared(pkg / "libgone.so", directory / "gone.c")
    compile_shared(pkg / f"_C{suffix}", directory / "ext.c", "-L", str(pkg), "-lgone", "-Wl,-rpath,$ORIGIN")
    return pkg


def only_failed_load(run):
    [finding] = run.findings("extension-load-failed")
    assert finding["severity"] == "warning"
    return finding


def test_a_caught_load_whose_library_is_missing_names_the_library_and_where_it_was_caught(importscope, tmp_path):
    suffix = ext_suffix(PYTHON)
    pkg = build_extension_on_a_library(tmp_path, suffix)
    (pkg / "libgone.so").unlink()
    run = importscope("-c", CAUGHT_IN_A_FUNCTION, cwd=tmp_path)
    assert run.status == 0, run.stderr  # a warning: the program went on, as it does under python
    assert "libgone.so: cannot open shared object file" in run.stdout
    finding = only_failed_load(run)
    assert finding["module_names"] == ["pkg._C"]
    assert finding["evidence"]["reason"] == "missing-library"
    assert finding["evidence"]["caught_at"] == {"file": "<string>", "function": "load", "line": 4,
                                                "module": "__main__"}
    assert "load caught it at <string>:4" in finding["message"]
    assert f"ldd {pkg / ('_C' + suffix)}" in finding["advice"]
    [record] = run.modules("pkg._C")
    assert record["status"] == "error" and record["caught_at"]["function"] == "load"
    assert "warning: extension-load-failed: pkg._C failed to load" in run.stderr


def test_a_symbol_the_library_no_longer_defines(importscope, tmp_path):
    pkg = build_extension_on_a_library(tmp_path, ext_suffix(PYTHON))
    (tmp_path / "gone.c").write_text("void *other(void) { return 0; }\n")
    compile_shared(pkg / "libgone.so", tmp_path / "gone.c")
    run = importscope("-c", CAUGHT_IN_A_FUNCTION, cwd=tmp_path)
    assert run.status == 0, run.stderr
    finding = only_failed_load(run)
    assert finding["evidence"]["reason"] == "undefined-symbol"
    assert "undefined symbol: gone" in finding["evidence"]["error"]["message"]


def test_a_failed_load_that_ends_the_program_is_its_error_and_no_such_warning(importscope, tmp_path):
    pkg = build_extension_on_a_library(tmp_path, ext_suffix(PYTHON))
    (pkg / "libgone.so").unlink()
    run = importscope("-c", "import pkg._C", cwd=tmp_path)
    assert run.status == 1  # python's own status for an uncaught ImportError
    assert run.findings("extension-load-failed") == []
    [record] = run.modules("pkg._C")
    assert record["status"] == "error"
    assert record["caught_at"]["file"] == "<string>"  # where it got to: the top, uncaught


@pytest.mark.skipif(not has_debian_libpython(), reason="needs Debian's python3 and python3-lxml")
def test_debian_lxml_as_a_submodule_built_for_another_interpreter_or_under_another_name(importscope, tmp_path):
    etree = subprocess.run([DEBIAN_PYTHON, "-c", "import lxml.etree; print(lxml.etree.__file__)"],
                           capture_output=True, text=True).stdout.strip()
    if not etree:
        pytest.skip("Debian's python3-lxml is not installed")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    shutil.copy(etree, pkg / "_C.cpython-399-x86_64-linux-gnu.so")  # built for an interpreter not this one
    suffix = ext_suffix(DEBIAN_PYTHON)
    shutil.copy(etree, pkg / f"_D{suffix}")  # this one's build, but its PyInit is PyInit_etree
    code = CAUGHT_IN_A_FUNCTION + "try:\n    from pkg import _D\nexcept ImportError as e:\n    print(e)\n"
    run = importscope("-c", code, python=DEBIAN_PYTHON, cwd=tmp_path)
    assert run.status == 0, run.stderr
    assert "fallback: No module named 'pkg._C'" in run.stdout
    by_module = {f["module_names"][0]: f for f in run.findings("extension-load-failed")}
    assert set(by_module) == {"pkg._C", "pkg._D"}
    no_build = by_module["pkg._C"]
    assert no_build["evidence"]["reason"] == "no-build-for-this-interpreter"
    assert no_build["evidence"]["files"] == [str(pkg / "_C.cpython-399-x86_64-linux-gnu.so")]
    assert suffix in no_build["evidence"]["suffixes"]
    assert "built for CPython 3.99 (cpython-399-x86_64-linux-gnu) only" in no_build["message"]
    assert no_build["evidence"]["import_site"]["line"] == 4
    renamed = by_module["pkg._D"]
    assert renamed["evidence"]["reason"] == "no-init-function"
    assert renamed["evidence"]["caught_at"]["function"] == "<module>"
    assert run.findings("duplicate-extension-init") == []
