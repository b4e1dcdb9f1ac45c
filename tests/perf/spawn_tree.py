"""The spawn-tree benchmark's target (run_bench.py): a parent that starts N workers with
multiprocessing's spawn method, as `vllm serve --data-parallel-size N` starts its ranks; each
worker imports a share of the standard library, as a rank imports its framework, and ends.

Usage: spawn_tree.py [WORKERS]
"""
import multiprocessing
import sys

MODULES = ["asyncio", "email.mime.multipart", "http.client", "json", "xml.etree.ElementTree", "unittest",
           "decimal", "argparse", "logging.handlers", "concurrent.futures", "sqlite3", "csv", "tarfile"]


def rank(number):
    for name in MODULES:
        __import__(name)
    return number


def main():
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=rank, args=(n,)) for n in range(workers)]
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    sys.exit(1 if any(process.exitcode for process in processes) else 0)


if __name__ == "__main__":
    main()
