"""importscope's bootstrap for Python children of a traced process.

importscope puts this file's directory first on PYTHONPATH, so that every Python child (multiprocessing
spawn and forkserver workers, subprocesses running sys.executable) imports it from site. It installs
the same hooks as the traced main process (from the _importscope extension module beside it), then
steps aside: it takes its directory off sys.path and imports the sitecustomize the environment
already had, if any, so that the target sees the sys.path and sitecustomize it would have had.
"""
import os
import sys


def _importscope_says_no_hooks():
    """This interpreter has no _importscope of its version (a Python that importscope was built
    without): the run directory is told, so that the report can say why, and the target sees no
    message of importscope's."""
    run_dir = os.environ.get("IMPORTSCOPE_RUN_DIR")
    if not run_dir:
        return
    facts = {
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "version": "%d.%d.%d" % sys.version_info[:3],
        "abiflags": getattr(sys, "abiflags", ""),
        "executable": sys.executable,
        "argv": list(getattr(sys, "orig_argv", sys.argv)),
    }
    try:
        import json

        with open(os.path.join(run_dir, f"hookless-{os.getpid()}.json"), "x", encoding="utf-8") as f:
            json.dump(facts, f)
    except (OSError, ValueError):
        pass


def _importscope_bootstrap():
    here = os.path.dirname(os.path.abspath(__file__))
    this_module = sys.modules[__name__]
    try:
        import _importscope

        _importscope._start_child()
    except ModuleNotFoundError as error:
        if error.name != "_importscope":
            sys.stderr.write(f"importscope: warning: process {os.getpid()} is not traced: {error!r}\n")
        else:
            _importscope_says_no_hooks()
    except Exception as error:  # never stop the target over its instrumentation
        sys.stderr.write(f"importscope: warning: process {os.getpid()} is not traced: {error!r}\n")
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    del sys.modules[__name__]
    try:
        import sitecustomize  # noqa: F401  the environment's own
    except ImportError as error:
        if error.name != "sitecustomize":
            raise
    # The import system takes sys.modules["sitecustomize"] as the result of importing this module.
    sys.modules.setdefault(__name__, this_module)


_importscope_bootstrap()
del _importscope_bootstrap
