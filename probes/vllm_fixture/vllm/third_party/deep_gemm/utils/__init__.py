from .layout import get_tma_aligned_size, per_token_cast_to_fp4

__all__ = ["get_tma_aligned_size", "per_token_cast_to_fp4"]
