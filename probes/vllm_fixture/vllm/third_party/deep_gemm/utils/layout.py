from .._C import (
    get_tma_aligned_size,
    round_to_e2m1,
)
# Line 1 mirrors DeepGEMM's utils/layout.py: when this file is executed again
# as deep_gemm.utils.layout, ".." resolves to deep_gemm and imports
# deep_gemm._C, initializing the extension a second time.


def per_token_cast_to_fp4(rows):
    """Quantizes each row to FP4 (E2M1) codes with one scale per token.

    Rows are padded with zero codes to the TMA-aligned length.
    """
    codes, scales = [], []
    for row in rows:
        amax = max((abs(v) for v in row), default=0.0)
        scale = amax / 6.0 if amax else 1.0
        padded = get_tma_aligned_size(len(row), 1)
        row_codes = [round_to_e2m1(v / scale) for v in row]
        codes.append(row_codes + [0] * (padded - len(row)))
        scales.append(scale)
    return codes, scales
