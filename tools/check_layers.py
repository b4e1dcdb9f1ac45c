#!/usr/bin/python3
"""Every #include of importscope's own headers follows the layer order (docs/ARCHITECTURE.md):
`make tidy` and ctest (layers.order) run it.

A file's layer is its folder: src/<layer>/... or include/importscope/<layer>/... (src/main.cpp is
the layer "main"). An include names a layer's public header ("importscope/<layer>/x.hpp";
"importscope/version.hpp" is util's) or a private one ("<layer>/x.hpp", found under src/). A file
may include the public headers of its own layer and of the layers k_may_use gives it, and the
private headers of its own folder and of k_may_see_inside's. Tests: tests/unit, tests/fuzz and
tests/perf use public headers alone; tests/python, which tests the hooks from inside one
interpreter, also the hooks' and the embedding's private ones. Standard library only.

    tools/check_layers.py [--root DIR]

Prints each include against the order with the file and line, and exits 1 if there is one.
"""

import argparse
import os
import re
import sys

# The layers each layer may include the public headers of, besides its own.
k_may_use = {
    "util": set(),
    "capi": {"util"},
    "journal": {"util"},
    "analysis": {"journal", "util"},
    "collect": {"analysis", "journal", "util"},
    "report": {"analysis", "journal", "util"},
    "hook": {"capi", "journal", "util"},
    "embed": {"hook", "capi", "journal", "util"},
    "supervisor": {"embed", "util"},
    "app": {"collect", "report", "supervisor", "analysis", "journal", "embed", "util"},
    "cli": {"app", "util"},
    "main": {"cli"},
}
# Public headers of embed that a Python-free layer may include: the worker's plan, no Python in it.
k_python_free_embed = {"importscope/embed/worker.hpp"}
k_python_free = {"util", "journal", "analysis", "collect", "report", "supervisor", "app", "cli", "main"}
# The folders whose private headers a layer may include, besides its own: the worker and the
# children's module are built from the hooks and the C-API toolkit.
k_may_see_inside = {"embed": {"hook", "capi"}, "hook": {"capi"}}
# Test folders: the private headers they may include.
k_tests = {"tests/unit": set(), "tests/fuzz": set(), "tests/perf": set(), "tests/python": {"hook", "embed", "capi"}}

k_include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of_include(name):
    """(layer, public) of an include of importscope's own, or None for a sibling or system file."""
    parts = name.split("/")
    if parts[0] == "importscope" and len(parts) >= 2:
        return ("util", True) if len(parts) == 2 else (parts[1], True)
    if parts[0] in k_may_use and len(parts) >= 2:
        return (parts[0], False)
    return None


def layer_of_file(relative):
    parts = relative.split("/")
    if parts[0] == "src":
        return "main" if len(parts) == 2 else parts[1]
    if parts[:2] == ["include", "importscope"]:
        return "util" if len(parts) == 3 else parts[2]
    return None


def complaint(relative, layer, name):
    """Why the include `name` in `relative` (of `layer`) is against the order, or None."""
    target = layer_of_include(name)
    if target is None:
        return None
    target_layer, public = target
    if layer.startswith("tests/"):
        if public or target_layer in k_tests[layer]:
            return None
        return f"{layer} uses public headers alone, not {target_layer}'s private {name}"
    if not public:
        if target_layer == layer or target_layer in k_may_see_inside.get(layer, set()):
            return None
        return f"{layer} includes {target_layer}'s private header {name}"
    if target_layer != layer and target_layer not in k_may_use[layer]:
        return f"{layer} may not include {target_layer} ({name}): the order is in tools/check_layers.py"
    if target_layer == "embed" and layer in k_python_free and name not in k_python_free_embed:
        return f"{layer} is Python-free and may include of embed only {', '.join(sorted(k_python_free_embed))}"
    return None


def files_to_check(root):
    for top in ("src", "include/importscope", *k_tests):
        for directory, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith((".cpp", ".hpp", ".h", ".c")):
                    yield os.path.relpath(os.path.join(directory, name), root)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()
    problems = 0
    for relative in files_to_check(args.root):
        layer = next((t for t in k_tests if relative.startswith(t + "/")), None) or layer_of_file(relative)
        if layer is None or (layer not in k_may_use and not layer.startswith("tests/")):
            print(f"{relative}: in no layer that tools/check_layers.py knows", file=sys.stderr)
            problems += 1
            continue
        with open(os.path.join(args.root, relative), encoding="utf-8") as source:
            for number, line in enumerate(source, 1):
                match = k_include.match(line)
                why = match and complaint(relative, layer, match.group(1))
                if why:
                    print(f"{relative}:{number}: {why}", file=sys.stderr)
                    problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
