"""8 threads import 25 modules each, at the same time: `thread_imports.py DIR` writes the modules
into DIR (names contain deep_gemm, so importscope records them) and imports them."""
import importlib
import os
import sys
import threading

directory = sys.argv[1]
os.makedirs(directory, exist_ok=True)
for t in range(8):
    for m in range(25):
        with open(os.path.join(directory, f"deep_gemm_thread_{t}_{m}.py"), "w") as f:
            f.write(f"VALUE = {t * 100 + m}\n")
sys.path.insert(0, directory)
barrier = threading.Barrier(8)
results = []


def work(t):
    barrier.wait()
    results.append(sum(importlib.import_module(f"deep_gemm_thread_{t}_{m}").VALUE for m in range(25)))


threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len(results), sum(results), flush=True)
