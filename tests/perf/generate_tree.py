"""Generates a synthetic import tree for the benchmark.

Usage: generate_tree.py DIR MODULES [PACKAGES]
Writes DIR/tree/pkg_P/ (PACKAGES packages, default MODULES // 50), each with two levels of
subpackages holding plain modules that import each other with relative and absolute imports, and
DIR/target.py that imports every package, then the perf extensions (perfext_*) found on sys.path.
The tree is written once and reused when it is already complete.
"""
import os
import sys


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    directory, modules = os.path.abspath(sys.argv[1]), int(sys.argv[2])  # target.py names it from anywhere
    packages = int(sys.argv[3]) if len(sys.argv) > 3 else max(1, modules // 50)
    marker = os.path.join(directory, ".complete")
    if os.path.exists(marker):
        return
    tree = os.path.join(directory, "tree")
    per_package = modules // packages
    written = 0
    for p in range(packages):
        package = os.path.join(tree, f"pkg_{p}")
        subpackages = max(1, per_package // 10)
        os.makedirs(package, exist_ok=True)
        write(os.path.join(package, "__init__.py"),
              "".join(f"from . import sub_{s}\n" for s in range(subpackages)))
        for s in range(subpackages):
            sub = os.path.join(package, f"sub_{s}")
            os.makedirs(sub, exist_ok=True)
            count = per_package // subpackages
            lines = []
            for m in range(count):
                body = [f"VALUE = {m}\n"]
                if m > 0:
                    body.append(f"from .mod_{m - 1} import VALUE as PREVIOUS\n")  # relative
                if m % 5 == 0:
                    body.append(f"import pkg_{p}.sub_{s}.mod_0\n")  # absolute
                write(os.path.join(sub, f"mod_{m}.py"), "".join(body))
                lines.append(f"from . import mod_{m}\n")
                written += 1
            write(os.path.join(sub, "__init__.py"), "".join(lines))
    write(os.path.join(directory, "target.py"),
          "import importlib, pkgutil, sys\n"
          f"sys.path.insert(0, {tree!r})\n"
          f"for p in range({packages}):\n"
          "    importlib.import_module(f'pkg_{p}')\n"
          "for info in pkgutil.iter_modules():\n"
          "    if info.name.startswith('perfext_'):\n"
          "        importlib.import_module(info.name)\n")
    write(marker, f"{written}\n")


if __name__ == "__main__":
    main()
