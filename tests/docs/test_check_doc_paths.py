"""tools/check_doc_paths.py: a doc that names a path the repository lacks fails, naming it."""

import os
import subprocess
import sys

import pytest

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(SOURCE_DIR, "tools", "check_doc_paths.py")


def check(root, *documents):
    return subprocess.run([sys.executable, SCRIPT, "--root", str(root), *map(str, documents)],
                          capture_output=True, text=True, check=False)


@pytest.fixture
def repo(tmp_path):
    """A repository with src/cli/run_command.{hpp,cpp}, tests/e2e/ and docs/."""
    (tmp_path / "src" / "cli").mkdir(parents=True)
    (tmp_path / "src" / "cli" / "run_command.hpp").write_text("")
    (tmp_path / "src" / "cli" / "run_command.cpp").write_text("")
    (tmp_path / "tests" / "e2e").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ci-gate.md").write_text("")
    return tmp_path


def write_doc(repo, text):
    doc = repo / "docs" / "ARCHITECTURE.md"
    doc.write_text(text)
    return doc


def test_paths_that_exist_pass(repo):
    doc = write_doc(repo, "`src/cli/run_command.{hpp,cpp}`, `tests/e2e/`, `src/cli/*.cpp`, "
                          "[gate](ci-gate.md), `lib/importscope/cpython-3.X/worker.so`, "
                          "`-o 'report-{rank}.json'`, `<prefix>/bin/importscope`, `src`\n")
    result = check(repo, doc)
    assert result.returncode == 0, result.stderr


def test_a_bogus_path_fails_and_is_named(repo):
    doc = write_doc(repo, "intro\n\n| `src/cli/no_such_file.cpp` | gone |\n")
    result = check(repo, doc)
    assert result.returncode == 1
    assert "docs/ARCHITECTURE.md:3: `src/cli/no_such_file.cpp` does not exist" in result.stderr


def test_each_half_of_a_brace_form_is_checked(repo):
    (repo / "src" / "cli" / "run_command.cpp").unlink()
    doc = write_doc(repo, "`src/cli/run_command.{hpp,cpp}`\n")
    result = check(repo, doc)
    assert result.returncode == 1
    assert "`src/cli/run_command.cpp` does not exist (from `src/cli/run_command.{hpp,cpp}`)" in result.stderr
    assert "`src/cli/run_command.hpp` does not exist" not in result.stderr


def test_a_trailing_slash_names_a_directory(repo):
    doc = write_doc(repo, "`src/cli/run_command.cpp/` and `tests/e2e/`\n")
    result = check(repo, doc)
    assert result.returncode == 1
    assert "`src/cli/run_command.cpp/` does not exist" in result.stderr
    assert "tests/e2e/" not in result.stderr


def test_a_glob_must_match(repo):
    doc = write_doc(repo, "`src/cli/*.py`\n")
    result = check(repo, doc)
    assert result.returncode == 1
    assert "`src/cli/*.py` does not exist" in result.stderr


def test_a_broken_link_fails(repo):
    doc = write_doc(repo, "see [the gate](ci-gate.md) and [gone](no-such.md#part)\n")
    result = check(repo, doc)
    assert result.returncode == 1
    assert "`no-such.md` does not exist" in result.stderr
    assert "ci-gate.md" not in result.stderr


def test_fenced_blocks_are_not_read(repo):
    doc = write_doc(repo, "```\n`src/cli/in_a_picture.cpp`\n```\n")
    assert check(repo, doc).returncode == 0
