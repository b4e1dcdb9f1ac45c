import os


def _mega_fused_stage_enabled():
    return os.environ.get("FLASHINFER_MEGA_FUSED_STAGE", "1") != "0"


def fused_moe(hidden_states, weight_quantized=False):
    """Returns (path, fp4 codes of the activations or None)."""
    if weight_quantized and _mega_fused_stage_enabled():
        # Quantized weights take the mega-fused kernel: DeepGEMM is not used.
        return "mega_fused", None
    # Fallback (unquantized weights, or FLASHINFER_MEGA_FUSED_STAGE=0):
    # quantize activations with DeepGEMM's helper, imported lazily.
    from deep_gemm.utils import per_token_cast_to_fp4

    codes, _ = per_token_cast_to_fp4(hidden_states)
    return "fallback", codes
