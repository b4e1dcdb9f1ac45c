"""The DeepGEMM miniatures: the vLLM alias bug is found, the fixed layout is clean."""
import os
import signal

import pytest

from conftest import plain_ending, probe

VENDORED = "vllm_mini.third_party.deep_gemm._C"
ALIAS = "deep_gemm._C"
ALREADY_REGISTERED = 'generic_type: type "Runtime" is already registered!'


@pytest.mark.parametrize("variant", ["deepgemm_pybind", "deepgemm_pybind_local"])
def test_pybind11_alias_is_found_with_the_import_error_and_the_ending_python_gives(importscope, variant):
    run = importscope(probe(variant))
    assert run.status == 3, run.stderr
    [finding] = run.findings("duplicate-extension-init")
    assert finding["severity"] == "error"
    assert finding["module_names"] == [VENDORED, ALIAS]
    assert finding["file"].endswith(".so") and f"{variant}/vllm_mini/third_party/deep_gemm/_C" in finding["file"]
    first, second = finding["evidence"]["initializations"]
    assert first["status"] == "ok"
    assert first["call_site"]["file"].endswith("vllm_mini/third_party/deep_gemm/__init__.py")
    assert second["status"] == "error"
    assert second["error"] == {**second["error"], "type": "ImportError", "message": ALREADY_REGISTERED}
    assert second["call_site"]["file"].endswith("deep_gemm/utils/layout.py")
    assert second["call_site"]["line"] == 1
    assert second["call_site"]["module"] == "deep_gemm.utils.layout"
    # The cause the evidence shows: the import of deep_gemm.utils went through the alias.
    assert finding["evidence"]["cause"]["kind"] == "sys.modules alias"
    assert finding["evidence"]["cause"]["key"] == "deep_gemm"
    assert finding["evidence"]["cause"]["module"] == VENDORED.rsplit(".", 1)[0]

    # The target ended the way it does without importscope: the ImportError, then (pybind11 2.10 on
    # CPython 3.11) abort at exit.
    code, sig = plain_ending(probe(variant))
    assert (run.exit["code"], run.exit["signal"]) == (code, sig)
    if sig:
        assert run.exit["signal_name"] == signal.Signals(sig).name
        assert f"killed by {signal.Signals(sig).name}" in run.stderr
    assert run.exit["exception"]["type"] == "ImportError"
    assert run.exit["exception"]["message"] == ALREADY_REGISTERED
    assert "layout.py" in run.exit["exception"]["traceback"]
    assert ALREADY_REGISTERED in run.stderr  # the target's own traceback still reaches the terminal

    # The module that failed is in the report although Python removed it from sys.modules.
    [failed] = run.modules(ALIAS)
    assert failed["status"] == "error" and failed["kind"] == "extension"
    assert [m["status"] for m in run.modules("deep_gemm.utils.layout")] == ["error"]

    # The stderr summary says what, where and what to do.
    assert "error: duplicate-extension-init" in run.stderr
    assert "deep_gemm is an alias of vllm_mini.third_party.deep_gemm" in run.stderr


def test_pybind11_3_multi_phase_init_still_fails_and_is_found(importscope):
    # pybind11 3.x (PyPI) initializes modules in two phases; the second init of the same file still
    # raises in its exec phase, and no longer aborts at exit.
    run = importscope(probe("deepgemm_pybind3"))
    assert run.status == 3, run.stderr
    [finding] = run.findings("duplicate-extension-init")
    assert finding["module_names"] == [VENDORED, ALIAS]
    first, second = finding["evidence"]["initializations"]
    assert (first["status"], second["status"]) == ("ok", "error")
    assert second["error"]["message"] == ALREADY_REGISTERED
    [conflict] = run.findings("native-type-conflict")
    assert conflict["evidence"]["binding"] == "pybind11"
    assert conflict["evidence"]["relation"] == "same-file"
    assert run.exit["code"] == 1 and run.exit["signal"] is None


NANOBIND_WARNING = "RuntimeWarning: nanobind: type 'Runtime' was already registered!"


def test_nanobind_rebinding_only_warns_and_is_still_reported(importscope):
    run = importscope(probe("deepgemm_nanobind"))
    assert run.status == 3, run.stderr
    assert run.exit["code"] == 0  # nothing crashed
    [finding] = run.findings("duplicate-extension-init")
    assert finding["module_names"] == [VENDORED, ALIAS]
    assert [i["status"] for i in finding["evidence"]["initializations"]] == ["ok", "ok"]
    [conflict] = run.findings("native-type-conflict")
    assert conflict["severity"] == "warning"
    assert conflict["evidence"]["binding"] == "nanobind"
    assert conflict["evidence"]["warning"] == NANOBIND_WARNING
    assert conflict["evidence"]["relation"] == "same-file"
    assert 'bound nanobind type "Runtime" a second time' in conflict["message"]
    [alias] = run.modules(ALIAS)
    assert alias["warnings"] == [NANOBIND_WARNING]
    # The target's own warning reaches its stderr once, as under plain python.
    assert run.stderr.count("RuntimeWarning: nanobind: type 'Runtime' was already registered!") == 1


def test_a_warning_the_target_ignores_is_neither_shown_nor_made_up(importscope):
    env = dict(os.environ, PYTHONWARNINGS="ignore::RuntimeWarning")
    run = importscope(probe("deepgemm_nanobind"), env=env)
    assert "already registered" not in run.stderr.split("importscope:")[0]
    assert run.findings("native-type-conflict") == []
    assert len(run.findings("duplicate-extension-init")) == 1  # the init itself is still seen


def test_torch_library_style_extension_runs_through_and_is_still_reported(importscope):
    run = importscope(probe("deepgemm_capi"))
    assert run.status == 3, run.stderr
    assert run.exit["code"] == 0 and run.exit["signal"] is None
    [finding] = run.findings("duplicate-extension-init")
    assert finding["module_names"] == [VENDORED, ALIAS]
    assert [i["status"] for i in finding["evidence"]["initializations"]] == ["ok", "ok"]
    assert "init_count=2" in run.stdout  # the probe itself saw its init run twice


@pytest.mark.parametrize("variant", ["deepgemm_pybind", "deepgemm_pybind_local", "deepgemm_capi", "deepgemm_pybind3",
                                     "deepgemm_nanobind"])
def test_fixed_alias_is_clean(importscope, variant):
    run = importscope(probe(variant, "fixed.py"))
    assert run.status == 0, run.stderr
    assert run.findings() == []
    assert run.exit["code"] == 0
    assert [m["name"] for m in run.report["modules"] if m["name"].endswith("._C")] == [VENDORED]
    assert "no findings" in run.stderr


def test_quantized_path_does_not_reach_the_alias_unless_the_fused_stage_is_off(importscope):
    clean = importscope(probe("deepgemm_pybind"), "--quantized")
    assert clean.status == 0 and clean.exit["code"] == 0
    assert clean.report["run"]["target"]["args"] == ["--quantized"]
    env = dict(os.environ, FLASHINFER_MEGA_FUSED_STAGE="0")
    broken = importscope(probe("deepgemm_pybind"), "--quantized", env=env)
    assert broken.status == 3
    assert (broken.exit["code"], broken.exit["signal"]) == plain_ending(probe("deepgemm_pybind"), "--quantized", env=env)


@pytest.mark.parametrize("variant, binding", [("deepgemm_pybind", "pybind11"), ("deepgemm_nanobind", "nanobind"),
                                              ("deepgemm_capi", "C API")])
def test_a_duplicate_init_is_explained_by_its_binding_library(importscope, variant, binding):
    run = importscope(probe(variant))
    [finding] = run.findings("duplicate-extension-init")
    if finding["severity"] != "error":
        pytest.skip(f"{variant}'s second init is no error here")
    assert finding["evidence"]["binding"] == binding
    others = {"pybind11", "nanobind", "PyO3", "Cython"} - {binding}
    assert not any(name in finding["explanation"] for name in others), finding["explanation"]
