"""A miniature of `vllm serve --data-parallel-size N --enable-expert-parallel`.

The parent starts N worker processes with the chosen multiprocessing start method; each one exposes
the vendored DeepGEMM to FlashInfer (top-level alias only) and runs the MoE layer on the fallback
path, so each initializes _C a second time, as every rank of the real server did.

Options: --start-method spawn|forkserver|fork, --workers N, --crash-rank R (that rank segfaults
instead), --serve (keep running after the workers end, like a server that never exits).
"""
import argparse
import multiprocessing
import sys
import time


def worker(rank, crash_rank):
    if rank == crash_rank:
        import ctypes

        ctypes.string_at(0)
    from vllm_mini.deep_gemm_compat import _expose_deep_gemm_to_flashinfer
    from vllm_mini.moe import run_moe_layer

    _expose_deep_gemm_to_flashinfer()
    run_moe_layer(weight_quantized=False)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--start-method", default="spawn", choices=["spawn", "forkserver", "fork"])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--crash-rank", type=int, default=-1)
    parser.add_argument("--serve", action="store_true")
    args = parser.parse_args()

    context = multiprocessing.get_context(args.start_method)
    workers = [
        context.Process(target=worker, args=(rank, args.crash_rank), name=f"rank{rank}")
        for rank in range(args.workers)
    ]
    for process in workers:
        process.start()
    for process in workers:
        process.join()
    print("worker exit codes:", [process.exitcode for process in workers], flush=True)
    while args.serve:
        time.sleep(1)
    sys.exit(1 if any(process.exitcode for process in workers) else 0)


if __name__ == "__main__":
    main()
