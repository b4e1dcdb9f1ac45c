"""Loads an extension file directly, bypassing sys.meta_path.

Usage: spec_from_file.py PATH [NAME ...]

PATH is loaded once per NAME (default: other_name._C) through
spec_from_file_location + module_from_spec, so nothing but this script knows
where the module came from. CPython looks up PyInit_<last component of
NAME>, so for the probes' _C the name must end in "._C".
"""
import importlib.util
import json
import sys


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    path = sys.argv[1]
    for name in sys.argv[2:] or ["other_name._C"]:
        module = load(path, name)
        print(json.dumps({"name": module.__name__, "file": module.__file__}), flush=True)


if __name__ == "__main__":
    main()
