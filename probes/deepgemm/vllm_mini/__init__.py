"""Miniature of the parts of vLLM involved in the DeepGEMM double-init bug."""
