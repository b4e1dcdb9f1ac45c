"""Imports a module, then dies with SIGSEGV reading address 0."""
import ctypes
import json

print(json.dumps({"about_to": "segfault"}), flush=True)
ctypes.string_at(0)
