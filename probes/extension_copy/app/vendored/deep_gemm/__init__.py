"""Vendored DeepGEMM; its _C has the same bytes as the installed one."""
