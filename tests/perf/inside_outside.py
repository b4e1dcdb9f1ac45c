"""Where importscope's time goes: inside the target (the tree's imports, timed by the target
itself) or outside it (start-up, and the report after the exit), for python, importscope's
default match and --match '*', in interleaved rounds on make bench's import tree.

    python3 tests/perf/inside_outside.py BUILD_DIR IMPORTSCOPE [--rounds 25] [--modules 5000]
                                         [--python PYTHON]

The target is a small runner that runs the tree's target.py with runpy and appends to a file
the CLOCK_MONOTONIC times (system-wide, so comparable with this script's) at which the target
began and ended; the wall clock of the whole command is taken around it. Printed: the medians of
the wall clock and of the time inside, the medians of per-round ratios to python, and the medians
of the time before the target (start-up) and after it (python's finalization, and importscope's
report), each also as the median of per-round differences from python's. A worker whose
instructions are close to python's but whose inside ratio is not shows a cost that callgrind's
counts do not.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from run_bench import made_tree, real_interpreter

RUNNER = (
    "import runpy, sys, time\n"
    "began = time.monotonic_ns()\n"
    "runpy.run_path(sys.argv[1], run_name='__main__')\n"
    "ended = time.monotonic_ns()\n"
    "with open(sys.argv[2], 'a') as out:\n"
    "    out.write(f'{began} {ended}\\n')\n"
)


PARTS = ("wall", "before", "inside", "after")


def per_round(values, baseline, combine):
    """The median of combine(value, python's) over the rounds."""
    return statistics.median(combine(v, b) for v, b in zip(values, baseline))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("importscope")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--modules", type=int, default=5000)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    python = real_interpreter(args.python)
    target, env = made_tree(args.build, args.modules)
    with tempfile.TemporaryDirectory() as scratch:
        runner = os.path.join(scratch, "runner.py")
        with open(runner, "w") as out:
            out.write(RUNNER)
        report = os.path.join(scratch, "report.json")
        importscope = [args.importscope, "run", "-q", "--python", python, "-o", report]
        commands = {
            "python": [python, runner, target],
            "importscope": importscope + [runner, target],
            "importscope --match '*'": importscope[:3] + ["--match", "*"] + importscope[3:] + [runner, target],
        }
        seconds = {name: {part: [] for part in PARTS} for name in commands}
        names = list(commands)
        for round_number in range(args.rounds + 1):  # round 0 warms up (.pyc files, page cache)
            # Each round starts one configuration later, as make bench's do.
            shift = round_number % len(names)
            for name in names[shift:] + names[:shift]:
                times = os.path.join(scratch, "inside.txt")
                if os.path.exists(times):
                    os.remove(times)
                started = time.monotonic_ns()
                proc = subprocess.run(commands[name] + [times], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
                finished = time.monotonic_ns()
                if proc.returncode != 0:
                    raise SystemExit(f"{name} failed with status {proc.returncode}")
                if round_number:
                    with open(times) as measured:
                        began, ended = (int(field) for field in measured.read().split())
                    spans = (finished - started, began - started, ended - began, finished - ended)
                    for part, span in zip(PARTS, spans):
                        seconds[name][part].append(span / 1e9)
    print(f"{args.rounds} interleaved rounds, {args.modules} modules, {python}")
    ratio, difference = (lambda v, b: v / b), (lambda v, b: v - b)
    python_seconds = seconds["python"]
    for name in names:
        ms = {part: statistics.median(seconds[name][part]) * 1000 for part in PARTS}
        compared = {part: per_round(seconds[name][part], python_seconds[part], combine)
                    for part, combine in (("wall", ratio), ("inside", ratio))}
        extra = {part: per_round(seconds[name][part], python_seconds[part], difference) * 1000
                 for part in ("inside", "before", "after")}
        print(f"{name}: wall {ms['wall']:.1f} ms ({compared['wall']:.3f}), "
              f"inside {ms['inside']:.1f} ms ({compared['inside']:.3f}, {extra['inside']:+.1f} ms), "
              f"before {ms['before']:.1f} ms ({extra['before']:+.1f}), "
              f"after {ms['after']:.1f} ms ({extra['after']:+.1f})")

if __name__ == "__main__":
    main()
