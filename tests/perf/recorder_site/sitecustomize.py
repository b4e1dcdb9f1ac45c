"""The do-it-yourself alternative importscope is measured against: a pure-Python sys.meta_path
recorder, loaded through sitecustomize, that records the same fields as importscope's finder
(name, kind, origin, real path, file identity, loader, parent, outcome, duration, call site) and
writes each record as a JSON line when the import ends. RECORDER_OUT names the file."""
import json
import os
import sys
import time

_out = open(os.environ.get("RECORDER_OUT", os.devnull), "a", buffering=1)


class _Wrapper:
    def __init__(self, loader, record):
        self._loader, self._record = loader, record

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        self._record["start"] = time.perf_counter()
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create else None

    def exec_module(self, module):
        record = self._record
        try:
            self._loader.exec_module(module)
            record["outcome"] = "ok"
        except BaseException as error:
            record["outcome"] = f"{type(error).__name__}: {error}"
            raise
        finally:
            record["duration"] = time.perf_counter() - record.get("start", time.perf_counter())
            module.__loader__ = self._loader
            _out.write(json.dumps(record) + "\n")


class Recorder:
    def find_spec(self, name, path=None, target=None):
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        origin = spec.origin if isinstance(spec.origin, str) else ""
        record = {"name": name, "kind": type(spec.loader).__name__, "origin": origin, "parent": spec.parent,
                  "loader": type(spec.loader).__qualname__, "pid": os.getpid()}
        if origin.startswith("/"):
            try:
                st = os.stat(origin)
                record.update(realpath=os.path.realpath(origin), dev=st.st_dev, ino=st.st_ino)
            except OSError:
                pass
        frame = sys._getframe(1)
        while frame and frame.f_code.co_filename.startswith("<frozen"):
            frame = frame.f_back
        if frame:
            record["site"] = [frame.f_code.co_filename, frame.f_lineno]
        spec.loader = _Wrapper(spec.loader, record)
        return spec


sys.meta_path.insert(0, Recorder())
