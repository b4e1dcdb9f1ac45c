"""Same as broken.py, with every loaded vendored submodule aliased too.

deep_gemm.utils and deep_gemm._C resolve to the modules already in
sys.modules, so the extension is initialized exactly once.
"""
import sys

from vllm_mini.deep_gemm_compat import (
    _expose_deep_gemm_to_flashinfer_fixed,
    describe_loaded_extensions,
)
from vllm_mini.moe import run_moe_layer


def main():
    _expose_deep_gemm_to_flashinfer_fixed()
    print("exposed vllm_mini.third_party.deep_gemm and submodules as deep_gemm", flush=True)
    path, codes = run_moe_layer(weight_quantized="--quantized" in sys.argv[1:])
    print(f"fused_moe path={path} fp4_codes={codes}", flush=True)
    print(describe_loaded_extensions(), flush=True)


if __name__ == "__main__":
    main()
