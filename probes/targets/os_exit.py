"""Leaves via os._exit(4): no atexit handlers, no flushing of sys.stdout."""
import os

print("calling os._exit(4)", flush=True)
os._exit(4)
