"""A vendored copy of an extension beside the installed original, like a
vendored triton next to the pip one (triton issue 1932).

site/deep_gemm/_C and app/vendored/deep_gemm/_C are two files with identical
bytes. dlopen() treats them as two libraries, so each import initializes its
own copy, with its own statics.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "site"), os.path.join(HERE, "app")]

import deep_gemm._C
import vendored.deep_gemm._C

for module in (deep_gemm._C, vendored.deep_gemm._C):
    print(f"{module.__name__}: {module.__file__} init_count={module._init_count()}", flush=True)
