"""Tampers with the import system, then loads one extension under two names.

Usage: meta_path_tamper.py MODE SO_PATH, MODE one of: clear (drops every finder but the standard
ones), reorder (reverses sys.meta_path), import_hook (replaces builtins.__import__ with a wrapper),
delete_module (removes importscope's hook module from sys.modules). The loads go through
spec_from_file_location, which no meta-path finder sees.
"""
import builtins
import importlib.machinery
import importlib.util
import sys

mode, so_path = sys.argv[1], sys.argv[2]
if mode == "clear":
    standard = (importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter,
                importlib.machinery.PathFinder)
    sys.meta_path[:] = [f for f in sys.meta_path if f in standard]
elif mode == "reorder":
    sys.meta_path.reverse()
elif mode == "import_hook":
    original_import = builtins.__import__

    def traced_import(name, *args, **kwargs):
        return original_import(name, *args, **kwargs)

    builtins.__import__ = traced_import
elif mode == "delete_module":
    sys.modules.pop("_importscope", None)

import json  # noqa: E402  an ordinary import after the tampering

for name in ("tampered_a._C", "tampered_b._C"):
    spec = importlib.util.spec_from_file_location(name, so_path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
print(json.dumps({"mode": mode, "meta_path": [type(f).__name__ for f in sys.meta_path]}), flush=True)
