"""Checks one minor's run of the DeepGEMM probe by a pip-installed importscope (tools/matrix.sh).

Usage: matrix_check.py REPORT STATUS VENV MINOR [WHICH]   (WHICH names the importscope that ran)
"""
import json
import os
import sys


def main(report_path, status, venv, minor, which="the venv's importscope"):
    report = json.load(open(report_path))
    problems = []
    if status != "3":
        problems.append(f"exit status {status}, not 3")
    python = report["run"]["python"]
    if os.path.dirname(python["executable"]) != os.path.abspath(os.path.join(venv, "bin")):
        problems.append(f"the target ran on {python['executable']}, not on the venv's python")
    if not python["version"].startswith(minor + "."):
        problems.append(f"the target ran on Python {python['version']}, not {minor}")
    if report["tool"]["python"] != minor:
        problems.append(f"the worker was {report['tool']['python']}'s, not {minor}'s")
    if python.get("static_build"):
        problems.append("the target did not run on its own libpython")
    names = [f["module_names"] for f in report["findings"] if f["kind"] == "duplicate-extension-init"]
    if names != [["vllm_mini.third_party.deep_gemm._C", "deep_gemm._C"]]:
        problems.append(f"duplicate-extension-init findings: {names}")
    for problem in problems:
        print(f"matrix: CPython {minor}: {problem} ({report_path})", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"== matrix: CPython {minor}: {which} found the duplicate init on {python['executable']} "
          f"({python['version']}, {python['libpython']})")


if __name__ == "__main__":
    main(*sys.argv[1:])
