"""The wheels of `make wheel` where importscope's users are (docs/packaging.md):

- the x86_64 wheel installed by pip, with no compiler involved, into a fresh venv of each CPython
  3.10 to 3.13 on this machine, finding the DeepGEMM probe's duplicate init with no --python;
- its binary started in a Debian 11 root (glibc 2.31, older than the build machine's 2.36), where
  the commands that need no Python 3.10+ work: --version, report, diff and scan --help;
- the aarch64 wheel installed by the pip of an arm64 Debian 12 root (run through qemu-user-static),
  with that root's own python3, finding the duplicate in an arm64 build of the probe, and the
  alias behind it with scan.
"""
import json
import os
import shutil
import subprocess
import zipfile

import pytest

from conftest import (DUPLICATE, SOURCE, TOOLS_VENV, build_probe, debian_root, ensure_binfmt, host_pythons, in_root,
                      python_fact, unpack_wheel, wheel_for)

MINORS = ["3.10", "3.11", "3.12", "3.13"]


def duplicates(report):
    return [f["module_names"] for f in report["findings"] if f["kind"] == "duplicate-extension-init"]


def test_each_wheel_holds_a_worker_and_a_bootstrap_module_for_every_minor():
    for arch in ("x86_64", "aarch64"):
        with zipfile.ZipFile(wheel_for(arch)) as archive:
            names = archive.namelist()
        for minor in MINORS:
            assert any(n.endswith(f"/lib/importscope/cpython-{minor}/worker.so") for n in names), (arch, minor)
            tag = minor.replace(".", "")
            assert any(n.endswith(f"/bootstrap/_importscope.cpython-{tag}-{arch}-linux-gnu.so") for n in names)
            # The children's bootstrap as this minor's bytecode, so that no child compiles it.
            assert any(n.endswith(f"/bootstrap/__pycache__/sitecustomize.cpython-{tag}.pyc") for n in names)
        for data in ("bin/importscope", "share/importscope/known-issues.json", "share/importscope/scanner.py",
                     "share/importscope/startup_path.py",
                     "share/importscope/fingerprint.py", "lib/importscope/bootstrap/sitecustomize.py"):
            assert any(n.endswith(f".data/data/{data}") for n in names), (arch, data)


@pytest.mark.parametrize("minor", MINORS)
def test_x86_64_wheel_installs_with_pip_and_finds_the_duplicate(minor, tmp_path):
    python = host_pythons().get(minor)
    if python is None:
        pytest.skip(f"no CPython {minor} on this machine")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", venv], check=True)
    # --no-index and a wheel file: pip installs what the wheel holds and builds nothing.
    subprocess.run([venv / "bin" / "pip", "install", "-q", "--disable-pip-version-check", "--no-index",
                    "--only-binary", ":all:", wheel_for("x86_64")], check=True)
    target = build_probe(tmp_path / "probe", ["g++"], python_fact(python, 'sysconfig.get_paths()["include"]'),
                         python_fact(python, 'sysconfig.get_config_var("EXT_SUFFIX")'))
    report_path = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    run = subprocess.run([venv / "bin" / "importscope", "run", "-q", "-o", report_path, target],
                         cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 3, run.stderr
    report = json.loads(report_path.read_text())
    assert os.path.dirname(report["run"]["python"]["executable"]) == str(venv / "bin")
    assert report["run"]["python"]["version"].startswith(minor + ".")
    assert report["tool"]["python"] == minor
    assert duplicates(report) == [DUPLICATE]


def test_x86_64_binary_starts_on_debian_11(tmp_path, root_scratch):
    root = debian_root("bullseye", "amd64", "system")
    glibc = in_root(root, ["ldd", "--version"]).stdout.splitlines()[0]
    assert glibc.endswith(" 2.31"), glibc
    scratch = root_scratch(root)
    unpack_wheel(wheel_for("x86_64"), scratch / "prefix")
    # A report made here, by the same binary, of the DeepGEMM probe on this machine's python3.
    python = shutil.which("python3")
    target = build_probe(tmp_path / "probe", ["g++"], python_fact(python, 'sysconfig.get_paths()["include"]'),
                         python_fact(python, 'sysconfig.get_config_var("EXT_SUFFIX")'))
    run = subprocess.run([scratch / "prefix" / "bin" / "importscope", "run", "-q", "--python", python, "-o",
                          scratch / "report.json", target], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 3, run.stderr

    tool = f"/{scratch.relative_to(root)}/prefix/bin/importscope"
    report = f"/{scratch.relative_to(root)}/report.json"
    version = in_root(root, [tool, "--version"])
    assert version.returncode == 0, version.stderr
    assert all(f"3.{m}" in version.stdout for m in (10, 11, 12, 13)), version.stdout
    shown = in_root(root, [tool, "report", report])
    assert shown.returncode == 0, shown.stderr
    assert "deep_gemm._C" in shown.stdout + shown.stderr
    compared = in_root(root, [tool, "diff", report, report])
    assert compared.returncode == 0, compared.stderr
    helped = in_root(root, [tool, "scan", "--help"])
    assert helped.returncode == 0 and "scan" in helped.stdout, helped.stderr


def test_aarch64_wheel_on_arm64_debian_finds_the_duplicate_and_the_alias(tmp_path, root_scratch):
    ensure_binfmt("aarch64")
    root = debian_root("bookworm", "arm64", "system", "python3", "python3-venv", "libpython3.11-dev")
    scratch = root_scratch(root)
    inside = f"/{scratch.relative_to(root)}"
    wheel = wheel_for("aarch64")
    shutil.copy(wheel, scratch / wheel.name)

    venv = in_root(root, ["python3", "-m", "venv", f"{inside}/venv"])
    assert venv.returncode == 0, venv.stderr
    pip = in_root(root, [f"{inside}/venv/bin/pip", "install", "-q", "--disable-pip-version-check", "--no-index",
                         "--only-binary", ":all:", f"{inside}/{wheel.name}"])
    assert pip.returncode == 0, pip.stderr

    # The probe's extension for the root's python3.11, cross-built by the wheel's own toolchain.
    headers = tmp_path / "python3.11"
    shutil.copytree(root / "usr/include/python3.11", headers)
    shutil.copy(root / "usr/include/aarch64-linux-gnu/python3.11/pyconfig.h", headers / "pyconfig.h")
    wrappers = subprocess.check_output(["sh", str(SOURCE / "tools/wheel/build.sh"), "toolchain", "aarch64"],
                                       text=True).strip()
    build_probe(scratch / "probe", [f"{wrappers}/c++"], str(headers), ".cpython-311-aarch64-linux-gnu.so")

    run = in_root(root, ["sh", "-c", f"cd {inside} && exec {inside}/venv/bin/importscope run -q "
                                     f"-o {inside}/report.json {inside}/probe/broken.py"])
    assert run.returncode == 3, run.stderr
    report = json.loads((scratch / "report.json").read_text())
    assert report["run"]["python"]["executable"].startswith(f"{inside}/venv/bin/")
    assert report["tool"]["python"] == "3.11"
    assert report["environment"]["machine"] == "aarch64"
    assert duplicates(report) == [DUPLICATE]

    scan = in_root(root, [f"{inside}/venv/bin/importscope", "scan", "-q", "-o", f"{inside}/scan.json",
                          f"{inside}/probe"])
    assert scan.returncode == 1, scan.stderr
    found = json.loads((scratch / "scan.json").read_text())["findings"]
    aliases = [f for f in found if f["kind"] == "partial-alias" and f["severity"] == "error"]
    assert aliases and "deep_gemm" in json.dumps(aliases[0]), found


def test_a_static_interpreter_is_refused_with_what_to_install(tmp_path):
    # A copy of an interpreter in a prefix with no libpython beside it stands for a static build
    # (Debian's and Ubuntu's /usr/bin/python3 without the libpython3.X package). A wheel has no
    # interpreter of its own build to fall back on.
    python = host_pythons().get("3.11") or shutil.which("python3")
    real = os.path.realpath(python)
    (tmp_path / "static" / "bin").mkdir(parents=True)
    copy = tmp_path / "static" / "bin" / os.path.basename(real)
    shutil.copy2(real, copy)
    unpack_wheel(wheel_for("x86_64"), tmp_path / "prefix")
    run = subprocess.run([tmp_path / "prefix" / "bin" / "importscope", "run", "--python", copy, "-o",
                          tmp_path / "report.json", "-c", "pass"], capture_output=True, text=True)
    assert run.returncode == 125, run.stderr
    minor = subprocess.check_output([copy, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                    text=True).strip()
    assert f"apt-get install libpython{minor}" in run.stderr, run.stderr


def test_x86_64_wheel_installs_with_pipx_and_runs_a_named_python(tmp_path):
    pipx = TOOLS_VENV / "bin" / "pipx"
    assert pipx.exists(), f"{pipx} is missing (make tools-venv)"
    python = shutil.which("python3")
    env = {**os.environ, "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "pipx" / "bin")}
    env.pop("VIRTUAL_ENV", None)
    subprocess.run([pipx, "install", "--python", python, wheel_for("x86_64")], env=env, check=True,
                   capture_output=True)
    target = build_probe(tmp_path / "probe", ["g++"], python_fact(python, 'sysconfig.get_paths()["include"]'),
                         python_fact(python, 'sysconfig.get_config_var("EXT_SUFFIX")'))
    run = subprocess.run([tmp_path / "pipx" / "bin" / "importscope", "run", "-q", "--python", python, "-o",
                          tmp_path / "report.json", target], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 3, run.stderr
    assert duplicates(json.loads((tmp_path / "report.json").read_text())) == [DUPLICATE]
