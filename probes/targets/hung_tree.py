"""A parent whose child starts a grandchild that hangs: `hung_tree.py MARKER`. Each process carries
MARKER in its command line, so a test can look for survivors."""
import subprocess
import sys
import time


def main():
    level = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if level < 2:
        subprocess.run([sys.executable, __file__, sys.argv[1], str(level + 1)])
    else:
        print("grandchild hanging", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
