"""Vendored DeepGEMM: Python package wrapping the native extension _C."""
from ._C import Runtime, get_tma_aligned_size
from . import utils

__all__ = ["Runtime", "get_tma_aligned_size", "utils"]
