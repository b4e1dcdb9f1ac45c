"""Interleaved A/B of two importscope binaries against python, on make bench's import tree.

    python3 tests/perf/ab_match_all.py BUILD_DIR BINARY_A BINARY_B [--rounds 21] [--modules 5000]
                                       [--match '*'] [--python PYTHON]

Each round runs python, A and B on BUILD_DIR/perf/tree-N (made by `make bench`), each round
starting one of them later; the medians of the wall-clock times are printed, in milliseconds, and
the medians of the per-round ratios. Use it for the code before and after
a change: two binaries built from two commits, on the same machine at the same time.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from run_bench import made_tree, real_interpreter


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
    args.python = real_interpreter(args.python)
    target, env = made_tree(args.build, args.modules)
    times = {"python": [], "A": [], "B": []}
    with tempfile.TemporaryDirectory() as scratch:
        def run(binary):
            return [binary, "run", "-q", "--match", args.match, "--python", args.python,
                    "-o", os.path.join(scratch, "report.json"), target]
        commands = {"python": [args.python, target], "A": run(args.a), "B": run(args.b)}
        for command in commands.values():  # warm-up: .pyc files, page cache
            timed(command, env)
        names = list(commands)
        for round_number in range(args.rounds):
            # Each round starts one configuration later, as make bench's do: the one that runs
            # right after another may find its dirty pages or its warm caches.
            shift = round_number % len(names)
            for name in names[shift:] + names[:shift]:
                times[name].append(timed(commands[name], env))
    print("; ".join(f"{name} {statistics.median(values):.1f} ms" for name, values in times.items()))
    ratios = {name: statistics.median(v / p for v, p in zip(times[name], times["python"])) for name in ("A", "B")}
    b_over_a = statistics.median(b / a for a, b in zip(times["A"], times["B"]))
    print(f"medians of per-round ratios: A/python {ratios['A']:.3f}, B/python {ratios['B']:.3f}, B/A {b_over_a:.3f}")


if __name__ == "__main__":
    main()
