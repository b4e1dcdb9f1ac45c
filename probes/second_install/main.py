"""A vendored package aliased to a top-level name that a second installation
also provides, like vLLM's vendored DeepGEMM exposed as deep_gemm in an
environment where DeepGEMM is also pip-installed.

Only the vendored copy is imported; sys.modules.setdefault("deep_gemm", ...)
then hides the installed one from every later "import deep_gemm".
"""
import importlib.machinery
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "site"), os.path.join(HERE, "app")]

import myserver.third_party.deep_gemm as vendored

sys.modules.setdefault("deep_gemm", vendored)

import deep_gemm

installed = importlib.machinery.PathFinder.find_spec("deep_gemm")
print(f"installed deep_gemm on sys.path (not imported): {installed.origin}", flush=True)
print(f"deep_gemm is {deep_gemm.__name__} VERSION={deep_gemm.VERSION} ({deep_gemm.__file__})", flush=True)
