"""Vendored third-party packages (vLLM ships DeepGEMM here)."""
