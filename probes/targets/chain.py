"""A chain of Python subprocesses: `chain.py N SO_PATH` runs `sys.executable chain.py N-1 SO_PATH`;
the last one (N = 0) loads the extension SO_PATH under two module names."""
import importlib.util
import subprocess
import sys


def main():
    depth, so_path = int(sys.argv[1]), sys.argv[2]
    if depth > 0:
        result = subprocess.run([sys.executable, __file__, str(depth - 1), so_path])
        sys.exit(result.returncode)
    for name in ("leaf_a._C", "leaf_b._C"):
        spec = importlib.util.spec_from_file_location(name, so_path)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    print("leaf loaded the extension twice", flush=True)


if __name__ == "__main__":
    main()
