"""The pure-Python double import trap: a package directory on sys.path next
to its parent, so one file is importable under two names, like running a
script from inside a package or adding a package directory to PYTHONPATH.

src/deep_gemm_tools/deep_gemm_config.py runs twice, as
deep_gemm_tools.deep_gemm_config and as deep_gemm_config, and each copy keeps
its own registry.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "src"), os.path.join(HERE, "src", "deep_gemm_tools")]

import deep_gemm_tools.deep_gemm_config as packaged

packaged.register("block_m", 128)

import deep_gemm_config as top_level

ran_twice = packaged is not top_level and packaged.__file__ == top_level.__file__
print(f"deep_gemm_config.py ran {'twice' if ran_twice else 'once'}: "
      f"as {packaged.__name__} and as {top_level.__name__}", flush=True)
print(f"block_m registered via {packaged.__name__}: {packaged.lookup('block_m')}; "
      f"seen via {top_level.__name__}: {top_level.lookup('block_m')}", flush=True)
