"""tools/check_layers.py: an include against the layer order fails, naming the file, the line and
the rule; the order's allowed includes pass."""

import os
import subprocess
import sys

import pytest

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(SOURCE_DIR, "tools", "check_layers.py")


def check(root):
    return subprocess.run([sys.executable, SCRIPT, "--root", str(root)], capture_output=True, text=True,
                          check=False)


def write(root, relative, *includes):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f'#include "{name}"\n' for name in includes) + "#include <vector>\n")


def test_includes_in_the_order_pass(tmp_path):
    write(tmp_path, "src/report/render.cpp", "importscope/analysis/finding.hpp", "report/sarif_rules.hpp",
          "importscope/version.hpp")
    write(tmp_path, "src/app/run.cpp", "importscope/report/report.hpp", "importscope/embed/worker.hpp")
    write(tmp_path, "src/embed/worker.cpp", "hook/hooks.hpp", "capi/py_ref.hpp")
    write(tmp_path, "tests/python/test_hooks.cpp", "hook/hooks.hpp", "python_fixture.hpp")
    write(tmp_path, "tests/unit/test_run.cpp", "importscope/app/run.hpp", "temp_dir.hpp")
    result = check(tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("files, complaints", [
    ({"src/analysis/model.cpp": ["importscope/journal/event.hpp", "importscope/report/report.hpp"]},
     ["src/analysis/model.cpp:2: analysis may not include report"]),
    ({"src/cli/cli.cpp": ["app/run_stages.hpp"], "tests/unit/test_x.cpp": ["cli/usage.hpp"]},
     ["src/cli/cli.cpp:1: cli includes app's private header app/run_stages.hpp",
      "tests/unit/test_x.cpp:1: tests/unit uses public headers alone"]),
    ({"src/supervisor/launch.cpp": ["importscope/embed/worker.hpp", "importscope/embed/interpreter.hpp"]},
     ["launch.cpp:2: supervisor is Python-free"]),
    ({"src/extra/thing.cpp": ["importscope/util/error.hpp"]}, ["src/extra/thing.cpp: in no layer"]),
], ids=["up the order", "private headers", "embed's Python half", "no layer"])
def test_an_include_against_the_order_fails_naming_file_line_and_rule(tmp_path, files, complaints):
    for relative, includes in files.items():
        write(tmp_path, relative, *includes)
    result = check(tmp_path)
    assert result.returncode == 1
    for complaint in complaints:
        assert complaint in result.stderr
