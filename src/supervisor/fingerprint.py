"""importscope's environment fingerprint, run by the supervisor after the target with the target's
interpreter and environment (never inside the target).

Usage: python -S fingerprint.py TOP_LEVEL_NAME...
Prints one JSON object: the interpreter, the platform, the versions of the packages that matter for
the double-initialization family, and the distributions that own the given top-level modules.
It runs with -S so that no sitecustomize or .pth file of the environment executes for it, and adds
the site-packages directories to sys.path itself.
"""
import json
import site
import sys

sys.path.extend(p for p in [*site.getsitepackages(), site.getusersitepackages()] if p not in sys.path)

import importlib.metadata  # noqa: E402  after sys.path is complete
import platform  # noqa: E402

PACKAGES = ["vllm", "flashinfer-python", "torch", "deep_gemm", "deep-gemm", "pybind11", "triton"]


def version_of(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    except Exception as error:  # a broken distribution must not lose the rest
        return f"<unreadable: {error.__class__.__name__}>"


def main():
    libc, libc_version = platform.libc_ver()
    owners = {}
    try:
        by_module = importlib.metadata.packages_distributions()
    except Exception:
        by_module = {}
    for name in sorted(set(sys.argv[1:])):
        dists = sorted(set(by_module.get(name, [])))
        if dists:
            owners[name] = [{"name": dist, "version": version_of(dist)} for dist in dists]
    print(json.dumps({
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
            "prefix": sys.prefix,
            "base_prefix": sys.base_prefix,
            "in_venv": sys.prefix != sys.base_prefix,
        },
        "platform": platform.platform(),
        "machine": platform.machine(),
        "libc": f"{libc} {libc_version}".strip() or None,
        "packages": {name: version_of(name) for name in PACKAGES},
        "distributions": owners,
    }, sort_keys=True))


if __name__ == "__main__":
    main()
