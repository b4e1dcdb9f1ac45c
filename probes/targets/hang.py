"""Prints "ready" and then sleeps forever."""
import time

print("ready", flush=True)
while True:
    time.sleep(3600)
