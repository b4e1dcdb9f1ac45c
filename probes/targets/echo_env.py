"""Prints how it was launched as one JSON line, then echoes one stdin line."""
import json
import sys

print(
    json.dumps(
        {
            "argv": sys.argv,
            "path0": sys.path[0],
            "name": __name__,
            "executable": sys.executable,
        }
    ),
    flush=True,
)
print("stdin: " + sys.stdin.readline().rstrip("\n"), flush=True)
