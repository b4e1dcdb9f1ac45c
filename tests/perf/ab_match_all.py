"""Interleaved A/B of two importscope binaries against python, on make bench's import tree.

    python3 tests/perf/ab_match_all.py BUILD_DIR BINARY_A BINARY_B [--rounds 21] [--modules 5000]
                                       [--match '*'] [--python PYTHON]

Each round runs python, then A, then B on BUILD_DIR/perf/tree-N (made by `make bench`); the
medians of the wall-clock times are printed, in milliseconds. Use it for the code before and after
a change: two binaries built from two commits, on the same machine at the same time.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(command, env):
    started = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--modules", type=int, default=5000)
    parser.add_argument("--match", default="*")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    perf = os.path.join(args.build, "perf")
    target = os.path.join(perf, f"tree-{args.modules}", "target.py")
    if not os.path.exists(target):
        raise SystemExit(f"{target} is missing: run make bench first")
    env = dict(os.environ, PYTHONPATH=os.path.join(perf, "ext"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    times = {"python": [], "A": [], "B": []}
    with tempfile.TemporaryDirectory() as scratch:
        def run(binary):
            return [binary, "run", "-q", "--match", args.match, "--python", args.python,
                    "-o", os.path.join(scratch, "report.json"), target]
        commands = {"python": [args.python, target], "A": run(args.a), "B": run(args.b)}
        for command in commands.values():  # warm-up: .pyc files, page cache
            timed(command, env)
        for _ in range(args.rounds):
            for name, command in commands.items():
                times[name].append(timed(command, env))
    print("; ".join(f"{name} {statistics.median(values):.1f} ms" for name, values in times.items()))


if __name__ == "__main__":
    main()
