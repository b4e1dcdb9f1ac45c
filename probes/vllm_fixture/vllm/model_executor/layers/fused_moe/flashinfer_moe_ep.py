"""FlashInfer MoE backend glue: FlashInfer imports DeepGEMM by its upstream
name, so vLLM exposes its vendored copy under that name."""
import sys


def _expose_deep_gemm_to_flashinfer():
    # Aliases only the top-level package: a later "from deep_gemm.utils
    # import ..." executes the vendored utils again as deep_gemm.utils, and
    # its layout.py imports the extension again as deep_gemm._C.
    import vllm.third_party.deep_gemm

    sys.modules.setdefault("deep_gemm", vllm.third_party.deep_gemm)
