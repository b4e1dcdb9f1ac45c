"""Fixture standing in for an installed vLLM: only the modules involved in
exposing the vendored DeepGEMM to FlashInfer, at vLLM's own paths."""
__version__ = "0.11.0.dev0+fixture"
