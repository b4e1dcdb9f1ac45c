"""Measures what following a process tree costs: a 4-worker multiprocessing spawn tree run by plain
python and by `importscope run`, interleaved (A B A B ...) so that drift on the machine cancels.

Usage: tree_overhead.py IMPORTSCOPE PYTHON TARGET [ROUNDS]
Prints the median, min and max wall time of each, and the median of the per-round ratios.
"""
import statistics
import subprocess
import sys
import tempfile
import time


def timed(command):
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def main():
    importscope, python, target = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 15
    args = ["--start-method", "spawn", "--workers", "4"]
    with tempfile.TemporaryDirectory() as tmp:
        plain_cmd = [python, target, *args]
        traced_cmd = [importscope, "run", "--python", python, "-o", f"{tmp}/r.json", target, *args]
        timed(plain_cmd), timed(traced_cmd)  # warm the page cache
        plain, traced = [], []
        for _ in range(rounds):
            plain.append(timed(plain_cmd))
            traced.append(timed(traced_cmd))
    ratios = [t / p for p, t in zip(plain, traced)]
    for name, values in (("python", plain), ("importscope run", traced)):
        print(f"{name:16} median {statistics.median(values) * 1000:7.1f} ms  "
              f"min {min(values) * 1000:7.1f}  max {max(values) * 1000:7.1f}  (n={len(values)})")
    print(f"ratio importscope/python: median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
