"""Minimal reproduction of the vLLM DeepGEMM alias bug, run inside a vLLM image.

vLLM's _expose_deep_gemm_to_flashinfer() aliases only the top-level package
vllm.third_party.deep_gemm as deep_gemm; FlashInfer's fallback path then runs
"from deep_gemm.utils import per_token_cast_to_fp4", which executes the
vendored utils again as deep_gemm.utils and initializes _C again as
deep_gemm._C. With the real pybind11 _C the ImportError propagates uncaught.

Exit status: 0 after the import, 2 if vLLM is not installed, 3 if this vLLM
has no _expose_deep_gemm_to_flashinfer. Without vLLM, run it against the
fixture: PYTHONPATH=<build>/probes/vllm_fixture.
"""
import importlib
import sys

MOE_EP = "vllm.model_executor.layers.fused_moe.flashinfer_moe_ep"
VENDORED = "vllm.third_party.deep_gemm"


def _parents(name):
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def _describe(name):
    module = sys.modules.get(name)
    if module is None:
        return f"{name}: not loaded"
    return f"{name}: __name__={module.__name__} id={id(module):#x}"


def main():
    try:
        import vllm
    except ModuleNotFoundError as exc:
        if exc.name != "vllm":
            raise
        print(f"vllm_deep_gemm_alias: vLLM is not installed in this environment "
              f"(python: {sys.executable})", file=sys.stderr)
        return 2
    version = getattr(vllm, "__version__", "unknown")
    try:
        moe_ep = importlib.import_module(MOE_EP)
    except ModuleNotFoundError as exc:
        if exc.name not in _parents(MOE_EP):
            raise
        moe_ep = None
    expose = getattr(moe_ep, "_expose_deep_gemm_to_flashinfer", None)
    if expose is None:
        print(f"vllm_deep_gemm_alias: vLLM {version} has no _expose_deep_gemm_to_flashinfer "
              f"in {MOE_EP} (probably already fixed)", file=sys.stderr)
        return 3
    print(f"vllm {version} from {vllm.__file__}", flush=True)

    expose()
    print(f"exposed: sys.modules['deep_gemm'] is {sys.modules['deep_gemm'].__name__}", flush=True)

    from deep_gemm.utils import per_token_cast_to_fp4

    print(f"imported per_token_cast_to_fp4 from {per_token_cast_to_fp4.__module__}", flush=True)
    for suffix in ("utils", "_C"):
        vendored = sys.modules.get(f"{VENDORED}.{suffix}")
        aliased = sys.modules.get(f"deep_gemm.{suffix}")
        same = vendored is not None and vendored is aliased
        print(f"deep_gemm.{suffix}: {'same module as' if same else 'separate module from'} "
              f"{VENDORED}.{suffix}", flush=True)
        print(f"  {_describe(f'{VENDORED}.{suffix}')}", flush=True)
        print(f"  {_describe(f'deep_gemm.{suffix}')}", flush=True)
    init_count = getattr(sys.modules.get(f"{VENDORED}._C"), "_init_count", None)
    if init_count is not None:
        print(f"_C init_count={init_count()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
