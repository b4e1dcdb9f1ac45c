"""Aborts the interpreter (SIGABRT), as a C++ extension's failed assertion would."""
import os

print("aborting", flush=True)
os.abort()
