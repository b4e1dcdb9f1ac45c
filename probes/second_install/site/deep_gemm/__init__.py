"""DeepGEMM installed in site-packages (pip install deep_gemm)."""
VERSION = "site"
