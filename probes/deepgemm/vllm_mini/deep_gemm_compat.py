"""Exposes vLLM's vendored DeepGEMM to FlashInfer as the top-level "deep_gemm"."""
import sys

_VENDORED = "vllm_mini.third_party.deep_gemm"


def _expose_deep_gemm_to_flashinfer():
    """Broken: aliases only the top-level package.

    A later "from deep_gemm.utils import ..." finds no "deep_gemm.utils" in
    sys.modules, so it executes the vendored utils package again under the
    new name, and its layout.py imports the extension again as deep_gemm._C.
    """
    import vllm_mini.third_party.deep_gemm as vendored

    sys.modules.setdefault("deep_gemm", vendored)


def _expose_deep_gemm_to_flashinfer_fixed():
    """Aliases the package and every already-loaded submodule (utils, _C, ...)."""
    import vllm_mini.third_party.deep_gemm as vendored

    sys.modules.setdefault("deep_gemm", vendored)
    prefix = _VENDORED + "."
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix):
            sys.modules.setdefault("deep_gemm." + name[len(prefix):], module)


def describe_loaded_extensions():
    """Names under which _C is in sys.modules and how many distinct objects."""
    names = sorted(name for name in sys.modules if name.endswith("._C"))
    distinct = len({id(sys.modules[name]) for name in names})
    line = f"_C modules={names} distinct={distinct}"
    init_count = getattr(sys.modules[_VENDORED + "._C"], "_init_count", None)
    if init_count is not None:
        line += f" init_count={init_count()}"
    return line
