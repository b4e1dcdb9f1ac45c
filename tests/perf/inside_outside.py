"""Where importscope's time goes: inside the target (the tree's imports, timed by the target
itself) or outside it (start-up, and the report after the exit), for python, importscope's
default match and --match '*', in interleaved rounds on make bench's import tree.

    python3 tests/perf/inside_outside.py BUILD_DIR IMPORTSCOPE [--rounds 25] [--modules 5000]
                                         [--python PYTHON]

The target is a small runner that runs the tree's target.py with runpy and appends the
perf_counter() time it took to a file; the wall clock of the whole command is taken around it.
Printed: the medians of each, the medians of per-round ratios to python, and the median of
(wall - inside), which is the time outside the target. A worker whose instructions are close to
python's but whose inside ratio is not shows a cost that callgrind's counts do not.
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
    "started = time.perf_counter()\n"
    "runpy.run_path(sys.argv[1], run_name='__main__')\n"
    "with open(sys.argv[2], 'a') as out:\n"
    "    out.write(f'{time.perf_counter() - started}\\n')\n"
)


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
        wall = {name: [] for name in commands}
        inside = {name: [] for name in commands}
        names = list(commands)
        for round_number in range(args.rounds + 1):  # round 0 warms up (.pyc files, page cache)
            # Each round starts one configuration later, as make bench's do.
            shift = round_number % len(names)
            for name in names[shift:] + names[:shift]:
                times = os.path.join(scratch, "inside.txt")
                if os.path.exists(times):
                    os.remove(times)
                started = time.perf_counter()
                proc = subprocess.run(commands[name] + [times], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
                elapsed = time.perf_counter() - started
                if proc.returncode != 0:
                    raise SystemExit(f"{name} failed with status {proc.returncode}")
                if round_number:
                    wall[name].append(elapsed)
                    with open(times) as measured:
                        inside[name].append(float(measured.read()))
    print(f"{args.rounds} interleaved rounds, {args.modules} modules, {python}")
    for name in names:
        wall_ratio = statistics.median(w / p for w, p in zip(wall[name], wall["python"]))
        inside_ratio = statistics.median(i / p for i, p in zip(inside[name], inside["python"]))
        outside = statistics.median(w - i for w, i in zip(wall[name], inside[name]))
        print(f"{name}: wall {statistics.median(wall[name]) * 1000:.1f} ms ({wall_ratio:.3f}), "
              f"inside {statistics.median(inside[name]) * 1000:.1f} ms ({inside_ratio:.3f}), "
              f"outside {outside * 1000:.1f} ms")


if __name__ == "__main__":
    main()
