"""vLLM's MoE layer delegating to the FlashInfer backend."""
from flashinfer_mini.fused_moe import fused_moe

HIDDEN_STATES = [[0.5, -1.25, 3.0], [2.0, 0.0, -6.0]]


def run_moe_layer(weight_quantized=False):
    return fused_moe(HIDDEN_STATES, weight_quantized=weight_quantized)
