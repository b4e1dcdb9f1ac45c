"""Miniature of FlashInfer, which imports DeepGEMM by its upstream name."""
