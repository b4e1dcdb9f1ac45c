"""The target runs on its own interpreter's build: what it sees is what plain python gives it."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, PYTHON

# What a target can tell of the interpreter it runs on.
FACTS = r"""
import json, os, sys, sysconfig
print(json.dumps({
    "version": sys.version,
    "executable": sys.executable,
    "base_executable": getattr(sys, "_base_executable", None),
    "prefix": sys.prefix,
    "base_prefix": sys.base_prefix,
    "stdlib": sysconfig.get_paths()["stdlib"],
    "purelib": sysconfig.get_paths()["purelib"],
    "libdir": sysconfig.get_config_var("LIBDIR"),
    "os_file": os.__file__,
    "frozen_os": getattr(os.__spec__, "origin", None),
    "path": [p for p in sys.path if "importscope" not in p],
    "ld_library_path": os.environ.get("LD_LIBRARY_PATH"),
    "malloc": os.environ.get("PYTHONMALLOC"),
    "dev_mode": sys.flags.dev_mode,
}, sort_keys=True))
"""

DEBIAN_PYTHON = "/usr/bin/python3"


def plain(python, code, env=None):
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(proc.stdout)


def traced(importscope, python, code, env=None):
    run = importscope("-c", code, python=python, env=env)
    assert run.status == 0, run.stderr
    return json.loads(run.stdout), run


def has_debian_libpython():
    return Path("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0").exists() and Path(DEBIAN_PYTHON).exists()


@pytest.mark.parametrize("where", ["installation", "venv"])
def test_the_target_sees_exactly_what_plain_python_gives_it(importscope, tmp_path, where):
    python = PYTHON
    if where == "venv":
        subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
        python = str(tmp_path / "venv" / "bin" / "python")
    expected = plain(python, FACTS)
    got, run = traced(importscope, python, FACTS)
    assert got == expected
    python = run.report["run"]["python"]
    assert python["static_build"] is False
    assert Path(python["libpython"]).name.startswith("libpython3.")
    assert run.report["tool"]["python"] == "%d.%d" % tuple(map(int, python["version"].split(".")[:2]))


@pytest.mark.skipif(not has_debian_libpython(), reason="needs Debian's python3 and libpython3.11")
def test_debian_python_runs_on_debians_own_libpython(importscope, tmp_path):
    expected = plain(DEBIAN_PYTHON, FACTS)
    got, run = traced(importscope, DEBIAN_PYTHON, FACTS)
    assert got == expected
    assert run.report["run"]["python"]["libpython"] == "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"
    assert run.report["run"]["python"]["version"] == run.report["environment"]["python"]["version"]
    # A venv made under importscope is a venv of Debian's Python.
    run = importscope("-m", "venv", "--without-pip", str(tmp_path / "venv"), python=DEBIAN_PYTHON)
    assert run.status == 0, run.stderr
    plain_version = subprocess.run([DEBIAN_PYTHON, "-c", "import platform; print(platform.python_version())"],
                                   capture_output=True, text=True, check=True).stdout.strip()
    assert f"version = {plain_version}" in (tmp_path / "venv" / "pyvenv.cfg").read_text()


@pytest.mark.skipif(not has_debian_libpython(), reason="needs Debian's python3 and libpython3.11")
def test_debian_packages_import_under_debian_python(importscope):
    code = "import lxml.etree, pikepdf; print(lxml.etree.__file__); print(pikepdf.__file__)"
    probe = subprocess.run([DEBIAN_PYTHON, "-c", code], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("python3-lxml and python3-pikepdf are not installed")
    run = importscope("-c", code, python=DEBIAN_PYTHON)
    assert run.status == 0, run.stderr
    assert run.stdout == probe.stdout
    loaded = {m["name"] for m in run.report["modules"] if m.get("kind") == "extension"}
    assert "lxml.etree" in loaded and any(name.startswith("pikepdf._") for name in loaded)


@pytest.mark.parametrize("variable", [{"PYTHONMALLOC": "debug"}, {"PYTHONDEVMODE": "1"},
                                      {"PYTHONMALLOC": "malloc"}, {"PYTHONMALLOC": "pymalloc_debug"}])
def test_python_variables_behave_as_under_plain_python(importscope, variable):
    env = dict(os.environ, **variable)
    code = "import json, sys; json.dumps(list(range(1000))); print(sys.flags.dev_mode)"
    expected = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=env)
    run = importscope("-c", code, env=env)
    assert (run.status, run.stdout) == (expected.returncode, expected.stdout), run.stderr
    assert "Debug memory block" not in run.stderr


def test_the_users_library_path_is_what_the_target_and_its_children_see(importscope, tmp_path):
    code = ("import os, subprocess, sys; print(os.environ.get('LD_LIBRARY_PATH')); "
            "subprocess.run([sys.executable, '-c', 'import os; print(os.environ.get(\"LD_LIBRARY_PATH\"))'])")
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path / "mine"))
    run = importscope("-c", code, env=env)
    assert run.stdout.split() == [str(tmp_path / "mine")] * 2, run.stderr
    env.pop("LD_LIBRARY_PATH")
    run = importscope("-c", code, env=env)
    assert run.stdout.split() == ["None", "None"], run.stderr


def test_a_static_interpreter_runs_on_importscopes_build_and_says_so(importscope, tmp_path):
    # A copy of the interpreter in a prefix with no libpython beside it stands for a static build.
    real = Path(os.path.realpath(PYTHON))
    (tmp_path / "static" / "bin").mkdir(parents=True)
    copy = tmp_path / "static" / "bin" / real.name
    shutil.copy2(real, copy)
    run = importscope("-c", "import sys; print(sys.version_info[:2])", python=str(copy))
    assert run.status == 0, run.stderr
    python = run.report["run"]["python"]
    assert python["static_build"] is True
    built_with = subprocess.run([PYTHON, "-c", "import platform; print(platform.python_version())"],
                                capture_output=True, text=True, check=True).stdout.strip()
    assert python["runtime_version"] == built_with
    assert "has no shared libpython (a static build)" in run.stderr
    assert python["libpython"] and Path(python["libpython"]).exists()


def test_a_default_interpreter_without_a_worker_is_named_as_the_default(tmp_path):
    # A 3.14 as python3 on PATH: refused (the refusal of a --python is tested in test_cli.py), and
    # named as the interpreter importscope chose by itself.
    fake = tmp_path / "python3"
    fake.write_text("#!/bin/sh\necho /opt/python3.14/bin/python3.14\necho 3.14.0\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = f"{tmp_path}:/usr/bin:/bin"
    proc = subprocess.run([BIN, "run", "-c", "pass"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 125
    assert "the default interpreter /opt/python3.14/bin/python3.14 is Python 3.14, and this importscope has no " \
           "worker for it (it has: 3." in proc.stderr
    versions = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout
    assert versions.startswith("importscope ") and "(CPython 3." in versions


def installed_copy(tmp_path):
    """importscope installed by `cmake --install` into a prefix of its own."""
    build = os.environ["IMPORTSCOPE_BUILD_DIR"]
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", build, "--prefix", str(prefix)], check=True, capture_output=True)
    return prefix


def test_cmake_install_gives_a_prefix_layout_the_binary_finds(tmp_path):
    prefix = installed_copy(tmp_path)
    assert (prefix / "bin" / "importscope").is_file()
    assert list((prefix / "lib" / "importscope").glob("cpython-3.*/worker.so"))
    assert (prefix / "lib" / "importscope" / "bootstrap" / "sitecustomize.py").is_file()
    assert list((prefix / "lib" / "importscope" / "bootstrap").glob("_importscope.cpython-3*.so"))
    assert (prefix / "share" / "importscope" / "known-issues.json").is_file()
    # The installed binary, reached through a symlink as pipx and package managers place it.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "importscope").symlink_to(prefix / "bin" / "importscope")
    report = tmp_path / "report.json"
    proc = subprocess.run([str(tmp_path / "bin" / "importscope"), "run", "--python", PYTHON, "-o", str(report), "-c",
                           "import subprocess, sys; subprocess.run([sys.executable, '-c', 'pass'], check=True)"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(report.read_text())
    processes = [(p["pid"], p["ppid"], p.get("role"), p["start_method"], p["argv"]) for p in data["processes"]]
    # the child found the bootstrap
    assert data["summary"]["python_processes"] == 2 and data["untraced"] == [], (processes, data["untraced"])


def test_an_installed_binary_runs_on_its_environments_python_by_default(tmp_path):
    prefix = installed_copy(tmp_path)
    (prefix / "bin" / "python3").symlink_to(os.path.realpath(PYTHON))
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = "/usr/bin:/bin"  # whose python3 is another installation
    code = "import sys; print(sys.executable)"
    proc = subprocess.run([str(prefix / "bin" / "importscope"), "run", "-q", "-o", str(tmp_path / "r.json"), "-c", code],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(prefix / "bin" / "python3")
    # A pipx environment holds importscope alone: its interpreter is not the default.
    (prefix / "pipx_metadata.json").write_text("{}")
    env["PATH"] = f"{Path(PYTHON).parent}:/usr/bin:/bin"
    proc = subprocess.run([str(prefix / "bin" / "importscope"), "run", "-q", "-o", str(tmp_path / "r.json"), "-c", code],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()).parent == Path(PYTHON).parent


def other_workers():
    """The interpreters of the build's workers for minors other than PYTHON's (build.json)."""
    build = Path(os.environ["IMPORTSCOPE_BUILD_DIR"])
    mine = subprocess.run([PYTHON, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    return [json.loads(facts.read_text())["executable"]
            for facts in sorted((build / "lib" / "importscope").glob("cpython-3.*/build.json"))
            if facts.parent.name != f"cpython-{mine}"]


@pytest.mark.skipif(not other_workers(), reason="this build has a worker for one minor only (make matrix has two)")
def test_a_child_of_another_minor_is_traced_by_that_minors_hooks(importscope):
    other = other_workers()[0]
    code = f"import subprocess; subprocess.run([{other!r}, '-c', 'import json'], check=True)"
    run = importscope("-c", code)
    assert run.status == 0, run.stderr
    versions = [p["python_version"] for p in run.report["processes"]]
    expected = subprocess.run([other, "-c", "import platform; print(platform.python_version())"],
                              capture_output=True, text=True, check=True).stdout.strip()
    assert len(versions) == 2 and versions[1] == expected
    assert run.report["untraced"] == []


def venv_with_its_own_torch(tmp_path):
    """A venv of PYTHON whose site-packages has a torch 9.9.9 of its own (the base has none)."""
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    [site_packages] = venv.glob("lib/python3.*/site-packages")
    (site_packages / "torch").mkdir()
    (site_packages / "torch" / "__init__.py").write_text("")
    info = site_packages / "torch-9.9.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 9.9.9\n\n")
    (info / "top_level.txt").write_text("torch\n")
    return venv


@pytest.mark.parametrize("how", ["--python", "activated", "command"])
def test_the_report_describes_the_venv_the_target_ran_in(importscope, tmp_path, how):
    venv = venv_with_its_own_torch(tmp_path)
    python = str(venv / "bin" / "python")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    # The base interpreter first, so that a fingerprint cached for it is there to be (wrongly) reused.
    assert importscope("-c", "pass", env=env).status == 0
    code = "import torch, sys; print(sys.prefix)"
    if how == "--python":
        run = importscope("--match", "torch", "-c", code, python=python, env=env)
    elif how == "activated":
        env = dict(env, VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}:{env['PATH']}")
        run = importscope("--match", "torch", "-c", code, python=None, env=env)
    else:
        run = importscope("--match", "torch", "--", python, "-c", code, python=None, env=env)
    assert run.status == 0, run.stderr
    assert run.stdout.strip() == str(venv)
    environment = run.report["environment"]
    assert environment["python"]["in_venv"] is True
    assert environment["python"]["prefix"] == str(venv)
    assert environment["packages"]["torch"] == "9.9.9"
    assert environment["distributions"]["torch"] == [{"name": "torch", "version": "9.9.9"}]


def test_the_fingerprint_runs_nothing_of_the_environment_and_reads_pyvenv_cfg_as_site_does(importscope, tmp_path):
    # A venv whose pyvenv.cfg has no include-system-site-packages line: site takes that as true, so
    # the base's packages are importable, and the report must say so. A json.py on PYTHONPATH would
    # shadow the fingerprint's own `import json` if it ran with PYTHONPATH: it must never run.
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    config = venv / "pyvenv.cfg"
    config.write_text("".join(line for line in config.read_text().splitlines(keepends=True)
                              if not line.startswith("include-system-site-packages")))
    [site_packages] = venv.glob("lib/python3.*/site-packages")
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    marker = tmp_path / "ran.marker"
    (shadow / "json.py").write_text(f"open({str(marker)!r}, 'w')\nfrom _json import *\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(shadow))
    run = importscope("-c", "import sys; print(sys.prefix)", python=str(venv / "bin" / "python"), env=env)
    assert run.status == 0, run.stderr
    environment = run.report["environment"]
    assert environment["python"]["in_venv"] is True
    # The base installation's site-packages is on the venv's path, after the venv's own.
    base_site = subprocess.run([PYTHON, "-c", "import site; print(site.getsitepackages()[0])"],
                               capture_output=True, text=True, check=True).stdout.strip()
    [cached] = (tmp_path / "cache" / "importscope").glob("fingerprint-*.json")
    scanned = [entry[0] for entry in json.loads(cached.read_text())["scanned"]]
    assert str(site_packages) in scanned
    if os.path.isdir(base_site):
        assert base_site in scanned and scanned.index(base_site) > scanned.index(str(site_packages)), scanned
    assert not marker.exists()
