"""A multiprocessing spawn worker that aborts while its sibling finishes normally."""
import multiprocessing
import os
import sys


def work(rank):
    if rank == 0:
        os.abort()


if __name__ == "__main__":
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=work, args=(rank,)) for rank in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    print("exit codes:", [w.exitcode for w in workers], flush=True)
    sys.exit(0)
