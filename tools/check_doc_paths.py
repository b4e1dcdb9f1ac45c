#!/usr/bin/python3
"""Every path of the repository that the docs name exists: `make tidy` and ctest (docs.paths) run it.

A path is named in inline code (`src/cli/cli.cpp`) or as a relative Markdown link target
([x](docs/ci-gate.md), relative to the linking file). Inline code counts as a path when its first
component is one of the repository's top-level folders, or that is a top-level file: `lib/importscope/` of an
installation or `build/...` of a build tree is not the repository's. Fenced code blocks are not
read. Forms:
  - `src/cli/run_command.{hpp,cpp}`: each file of the braces;
  - `tests/e2e/`: a trailing slash names a directory;
  - `include/importscope/*`, `tests/unit/test_*.cpp`: a glob that matches at least one path;
  - `tools/pypi-venv.sh`, `tools/ray-requirements.txt`: each code span on its own.
Words with a placeholder (`<`, `>`, `{rank}`-style braces without a comma) or a space are not
paths. Standard library only, run by /usr/bin/python3.

    tools/check_doc_paths.py [--root DIR] [FILE.md ...]

Without files, reads README.md and docs/*.md under the root (the repository this file is in).
Prints each missing path with the file and line that name it, and exits 1 if there is one.
"""

import argparse
import glob
import os
import re
import sys

# The top-level entries of the repository that the docs name paths under or name themselves.
k_root_dirs = ("src", "include", "tests", "tools", "docs", "cmake", "probes", "data", ".ci")
k_root_files = ("CMakeLists.txt", "Makefile", "pyproject.toml", "README.md", "LICENSE")

k_code_span = re.compile(r"(`+)(.+?)\1")
k_link = re.compile(r"\]\(([^)\s]+)\)")
k_braces = re.compile(r"\{([^{}]*,[^{}]*)\}")


def expand_braces(text):
    """`a.{hpp,cpp}` as ["a.hpp", "a.cpp"]; several brace groups multiply."""
    match = k_braces.search(text)
    if not match:
        return [text]
    head, tail = text[:match.start()], text[match.end():]
    return [expanded for choice in match.group(1).split(",")
            for expanded in expand_braces(head + choice.strip() + tail)]


def repository_path(word):
    """The path a code span names, or None when it names none of the repository's."""
    word = word.strip()
    word = re.sub(r":\d+$", "", word)  # src/x.cpp:42
    if not word or " " in word or "<" in word or ">" in word or "://" in word:
        return None
    if re.search(r"\{[^{},]*\}", word):  # a placeholder such as {rank}
        return None
    if "/" in word:
        return word if word.split("/", 1)[0] in k_root_dirs else None
    # A bare "src" is a word of prose; a top-level file named alone (`pyproject.toml`) is a path.
    return word if word in k_root_files else None


def exists(root, path):
    """Whether `path` (relative to `root`) is there: a directory for a trailing '/', a match for a glob."""
    full = os.path.join(root, path)
    if any(c in path for c in "*?["):
        return bool(glob.glob(full))
    if path.endswith("/"):
        return os.path.isdir(full)
    return os.path.exists(full)


def named_paths(text):
    """(line number, path as written, path relative to the document's root or directory, relative_to_doc)
    for every path the Markdown `text` names outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.lstrip()
        marker = re.match(r"(```+|~~~+)", stripped)
        if marker:
            if fence is None:
                fence = marker.group(1)[0] * 3
            elif stripped.startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        for match in k_code_span.finditer(line):
            path = repository_path(match.group(2))
            if path:
                for expanded in expand_braces(path):
                    yield number, path, expanded, False
        for match in k_link.finditer(line):
            target = match.group(1).split("#", 1)[0]
            if target and not re.match(r"[a-z][a-z0-9+.-]*:", target) and not target.startswith("/"):
                yield number, target, target, True


def missing_paths(root, document):
    """(line, as written, missing path) for each path `document` names that is not under `root`."""
    with open(document, encoding="utf-8") as f:
        text = f.read()
    doc_dir = os.path.dirname(os.path.abspath(document))
    for number, written, path, relative_to_doc in named_paths(text):
        base = doc_dir if relative_to_doc else root
        if not exists(base, path):
            yield number, written, path


def main(argv):
    parser = argparse.ArgumentParser(description="Check that the paths the docs name exist.")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="the repository (default: the one this script is in)")
    parser.add_argument("documents", nargs="*", help="Markdown files (default: README.md and docs/*.md)")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    documents = args.documents or ([os.path.join(root, "README.md")]
                                   + sorted(glob.glob(os.path.join(root, "docs", "*.md"))))
    missing = 0
    for document in documents:
        shown = os.path.relpath(document, root)
        for number, written, path in missing_paths(root, document):
            missing += 1
            also = "" if written == path else f" (from `{written}`)"
            print(f"{shown}:{number}: `{path}` does not exist{also}", file=sys.stderr)
    if missing:
        print(f"check_doc_paths: {missing} path(s) named in the docs do not exist; "
              "correct the doc or the path", file=sys.stderr)
        return 1
    print(f"check_doc_paths: every path named in {len(documents)} document(s) exists")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
