"""vLLM exposes its vendored DeepGEMM by aliasing only the top-level package.

On FlashInfer's fallback path (the default here: unquantized weights; with
--quantized only if FLASHINFER_MEGA_FUSED_STAGE=0) the extension _C is
initialized a second time as deep_gemm._C. The pybind11 builds fail with an
uncaught ImportError and abort at exit; the plain C-API build runs through.
"""
import sys

from vllm_mini.deep_gemm_compat import (
    _expose_deep_gemm_to_flashinfer,
    describe_loaded_extensions,
)
from vllm_mini.moe import run_moe_layer


def main():
    _expose_deep_gemm_to_flashinfer()
    print("exposed vllm_mini.third_party.deep_gemm as deep_gemm", flush=True)
    path, codes = run_moe_layer(weight_quantized="--quantized" in sys.argv[1:])
    print(f"fused_moe path={path} fp4_codes={codes}", flush=True)
    print(describe_loaded_extensions(), flush=True)


if __name__ == "__main__":
    main()
