"""A server that survives the type conflict of main.py and keeps serving: it catches the ImportError
of the second library, as a plugin loader would, and never exits by itself (--stop-on-finding)."""
import time

import lib_torch_like

try:
    import lib_paddle_like  # noqa: F401  ImportError: generic_type: type "cudaDeviceProp" is already registered!
except ImportError as error:
    print("plugin disabled:", error, flush=True)

print("serving", flush=True)
while True:
    time.sleep(1)
