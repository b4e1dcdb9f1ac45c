"""The bug this project began with, on the wheel it came from: vLLM 0.34.0 from PyPI, whose vendored
DeepGEMM (`vllm.third_party.deep_gemm`) vLLM exposes to FlashInfer's MoE-EP backend with
`sys.modules.setdefault("deep_gemm", ...)` (vllm/model_executor/layers/fused_moe/flashinfer_moe_ep.py),
and the import FlashInfer 0.7.4's fallback staging path makes through that name
(`from deep_gemm.utils import per_token_cast_to_fp8`, flashinfer/moe_ep/backends/mega/kernel/sm100/
fp8_fp4_bf16_deepgemm/staging.py). The two lines are run as they are written there; FlashInfer itself
is not imported (its import needs tvm_ffi and CUTLASS's DSL, which have nothing to do with the alias).

Since vLLM moved DeepGEMM's operators from pybind11 to TORCH_LIBRARY, `deep_gemm._C` is a Python
file that loads `_C_extension.abi3.so` with torch.ops.load_library: its second execution dlopens a
library that is loaded already, nothing initializes twice, and the process lives. importscope must
say which files ran twice, under which names, and why (the alias, and the line that set it), find no
extension initialized twice, and keep the exit status 0 unless --fail-on asks for warnings.

vLLM 0.31.0, the last release whose vendored `_C` is a pybind11 extension, with the same two lines
(the alias came in a later vLLM: the nightly of the founding report had both) dies as that report
did: ImportError: generic_type: type "Runtime" is already registered! There importscope must find
the extension initialized twice, name the alias as the cause and vllm#59904 as the known issue, and
fail the step.

The wheels come from tools/vllm-requirements.txt and tools/vllm-pybind11-requirements.txt
(tools/pypi-venv.sh --no-deps, cached outside the tree); torch from PyPI takes its CUDA libraries
from a CUDA 13 toolkit, which the test looks for. One interpreter is enough for wheels of gigabytes:
the test runs on CPython 3.11 only."""
import glob
import json
import os
import subprocess

import pytest

from conftest import BIN, PYTHON, SANITIZED, SOURCE, validate

REPRO = '''\
import sys
from vllm.third_party import deep_gemm              # vllm/utils/deep_gemm.py: _import_deep_gemm()
sys.modules.setdefault("deep_gemm", deep_gemm)     # vllm/.../fused_moe/flashinfer_moe_ep.py:281
from deep_gemm.utils import per_token_cast_to_fp8  # flashinfer/.../fp8_fp4_bf16_deepgemm/staging.py:73
print("imported", per_token_cast_to_fp8.__module__)
'''

# The vendored files that run a second time, as deep_gemm.<name>: the utils package that the
# import names, what it imports, and `_C`, which utils/layout.py imports as `from .._C import ...`.
EXECUTED_TWICE = {"_C": "_C.py", "utils": "utils/__init__.py", "utils.dist": "utils/dist.py",
                  "utils.layout": "utils/layout.py", "utils.math": "utils/math.py"}


def cuda13_libraries():
    """The lib64 directory of a CUDA 13 toolkit holding the runtime that torch's and DeepGEMM's
    libraries need, or None."""
    for runtime in sorted(glob.glob("/usr/local/cuda-13*/lib64/libcudart.so.13")):
        return os.path.dirname(runtime)
    return None


def venv_of(requirements):
    """(python, environment) of a venv of tools/<requirements>, or the test is skipped."""
    version = subprocess.run([PYTHON, "-c", "import sys; print(sys.version_info[:2] == (3, 11))"],
                             capture_output=True, text=True).stdout.strip()
    if version != "True":
        pytest.skip("the vLLM wheels are installed for CPython 3.11 only")
    if SANITIZED:
        pytest.skip("torch under AddressSanitizer takes minutes to import; the hooks are the same as elsewhere")
    libraries = cuda13_libraries()
    if not libraries:
        pytest.skip("torch from PyPI needs a CUDA 13 toolkit's libraries (/usr/local/cuda-13*/lib64)")
    made = subprocess.run(["sh", str(SOURCE / "tools" / "pypi-venv.sh"), PYTHON, str(SOURCE / "tools" / requirements),
                           "--no-deps"], capture_output=True, text=True, timeout=1800)
    if made.returncode != 0:
        pytest.skip(f"no venv of tools/{requirements} could be made: " + made.stderr[-400:])
    env = dict(os.environ, LD_LIBRARY_PATH=f"{libraries}:{os.path.dirname(libraries)}/lib")
    return made.stdout.strip(), env


@pytest.fixture(scope="module")
def vllm_python():
    return venv_of("vllm-requirements.txt")


@pytest.fixture(scope="module")
def vllm_pybind11_python():
    return venv_of("vllm-pybind11-requirements.txt")


@pytest.fixture
def repro(tmp_path):
    script = tmp_path / "repro.py"
    script.write_text(REPRO)
    return script


def test_the_alias_runs_the_vendored_files_again_and_the_process_lives(vllm_python, repro):
    python, env = vllm_python
    plain = subprocess.run([python, str(repro)], capture_output=True, text=True, env=env, timeout=300)
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert "imported deep_gemm.utils.math" in plain.stdout


@pytest.mark.parametrize("match", [None, "*"])
def test_importscope_names_each_file_run_twice_and_the_alias_behind_them(importscope, vllm_python, repro, match):
    python, env = vllm_python
    args = ["--match", match] if match else []
    run = importscope(*args, repro, python=python, env=env, timeout=300)
    assert run.status == 0, run.stderr[-2000:]
    assert run.exit["code"] == 0

    vendored = os.path.join(os.path.dirname(os.path.dirname(python)), "lib", "python3.11", "site-packages", "vllm",
                            "third_party", "deep_gemm")
    twice = {os.path.relpath(f["file"], vendored): f["module_names"] for f in run.findings("duplicate-source-exec")}
    assert twice == {file: [f"vllm.third_party.deep_gemm.{name}", f"deep_gemm.{name}"]
                     for name, file in EXECUTED_TWICE.items()}, twice

    # The loaded library is not an extension that initialized twice: torch.ops.load_library
    # dlopens it, and the second dlopen finds it loaded.
    assert run.findings("duplicate-extension-init") == []
    assert {f["kind"] for f in run.findings()} == {"duplicate-source-exec", "partial-alias"}
    assert all(f["caused_by"] == "alias:deep_gemm" for f in run.findings())

    # vLLM 0.34.0 has the fix of vllm#59904 (its _C.py): the catalogue's entry is not this.
    assert [f["known_issue"] for f in run.findings()] == [None] * (len(EXECUTED_TWICE) + 1)

    [cause] = run.report["causes"]
    assert cause["id"] == "alias:deep_gemm" and cause["findings"] == len(EXECUTED_TWICE) + 1
    assert cause["evidence"]["module"] == "vllm.third_party.deep_gemm"
    assert [(frame["file"], frame["line"]) for frame in cause["evidence"]["set_in_code"]] == [(str(repro), 3)]
    assert [(frame["file"], frame["line"]) for frame in cause["evidence"]["first_seen_at"]] == [(str(repro), 4)]
    assert 'sys.modules["deep_gemm"] is vllm.third_party.deep_gemm' in run.stderr


def test_a_gate_on_warnings_fails_on_the_alias(importscope, vllm_python, repro):
    python, env = vllm_python
    run = importscope("--fail-on", "warning", repro, python=python, env=env, timeout=300)
    assert run.status == 3, run.stderr[-2000:]
    assert run.exit["code"] == 0  # the target itself succeeded


def test_scan_finds_the_alias_through_vllms_helper_and_flashinfers_imports_through_it(vllm_python, tmp_path):
    # Nothing run: the alias is set to what vllm.utils.deep_gemm._import_deep_gemm() returns, and
    # FlashInfer imports deep_gemm.utils through it in two files. No extension is reached (_C is
    # Python), so a warning.
    python, _ = vllm_python
    site = os.path.join(os.path.dirname(os.path.dirname(python)), "lib", "python3.11", "site-packages")
    report = tmp_path / "scan.json"
    scan = subprocess.run([BIN, "scan", "--python", python, "-o", str(report), site], capture_output=True, text=True,
                          timeout=300)
    assert scan.returncode == 0, scan.stderr[-2000:]
    scanned = json.loads(report.read_text())
    validate(scanned)
    findings = scanned["findings"]
    [alias] = [f for f in findings if f["module_names"][0] == "deep_gemm"]
    assert alias["severity"] == "warning" and alias["known_issue"] is None
    evidence = alias["evidence"]
    assert evidence["targets"] == ["vllm.third_party.deep_gemm"]
    assert [(os.path.relpath(s["file"], site), s["line"]) for s in evidence["set_at"]] == [
        ("vllm/model_executor/layers/fused_moe/flashinfer_moe_ep.py", 281)]
    importers = {(os.path.relpath(i["file"], site), i["module"]): i for i in evidence["importers"]}
    staging = "flashinfer/moe_ep/backends/mega/kernel/sm100/fp8_fp4_bf16_deepgemm/"
    assert {(staging + "staging.py", "deep_gemm.utils"), (staging + "weights.py", "deep_gemm.utils")} <= set(importers)
    # What the scan says would run under both names is what the run saw run twice.
    assert importers[(staging + "staging.py", "deep_gemm.utils")]["under_both_names"] == sorted(
        f"deep_gemm.{name}" for name in EXECUTED_TWICE)
    assert "deep_gemm.utils would be executed again under the alias, as it runs as vllm.third_party.deep_gemm.utils " \
           "too" in alias["message"]

    # vLLM's triton_kernels is made to be imported through its alias: its modules import each other
    # as triton_kernels.*, and nothing imports them by their vendored names, so nothing runs twice.
    [kernels] = [f for f in findings if f["module_names"][0] == "triton_kernels"]
    assert kernels["severity"] == "warning"
    assert all(i["under_both_names"] == [] for i in kernels["evidence"]["importers"])
    assert "so each would run once, under the alias" in kernels["message"]

    # The vllm package scanned by itself names its modules as an import does: the same alias.
    alone = subprocess.run([BIN, "scan", "--python", python, "-o", str(tmp_path / "alone.json"),
                            os.path.join(site, "vllm")], capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0, alone.stderr[-2000:]
    [of_vllm] = [f for f in json.loads((tmp_path / "alone.json").read_text())["findings"]
                 if f["module_names"][0] == "deep_gemm"]
    assert of_vllm["evidence"]["targets"] == ["vllm.third_party.deep_gemm"]
    assert of_vllm["evidence"]["target_file"] == evidence["target_file"]


def test_with_a_pybind11_extension_the_alias_is_the_founding_crash_and_importscope_fails_the_step(
        importscope, vllm_pybind11_python, repro):
    python, env = vllm_pybind11_python
    plain = subprocess.run([python, str(repro)], capture_output=True, text=True, env=env, timeout=300)
    assert plain.returncode == 1
    assert 'ImportError: generic_type: type "Runtime" is already registered!' in plain.stderr

    run = importscope(repro, python=python, env=env, timeout=300)
    assert run.status == 3, run.stderr[-2000:]  # an error finding; the target's own status is in the report
    assert run.exit["code"] == 1 and run.exit["exception"]["type"] == "ImportError"
    [twice] = run.findings("duplicate-extension-init")
    assert twice["severity"] == "error"
    assert os.path.basename(twice["file"]) == "_C.cpython-311-x86_64-linux-gnu.so"
    assert twice["module_names"] == ["vllm.third_party.deep_gemm._C", "deep_gemm._C"]
    [conflict] = run.findings("native-type-conflict")
    assert conflict["evidence"]["type_name"] == "Runtime"
    errors = [f for f in run.findings() if f["severity"] == "error"]
    assert {f["kind"] for f in errors} == {"duplicate-extension-init", "native-type-conflict", "partial-alias"}
    assert {f["known_issue"]["id"] for f in errors} == {"vllm#59904"}  # no Python _C.py beside: affected
    assert all(f["caused_by"] == "alias:deep_gemm" for f in run.findings())
    [cause] = run.report["causes"]
    assert cause["severity"] == "error"
    assert [(frame["file"], frame["line"]) for frame in cause["evidence"]["set_in_code"]] == [(str(repro), 3)]
