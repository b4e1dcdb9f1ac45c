"""The merge benchmark (make bench): `importscope merge` of a job's rank reports.

One real report is made by running the DeepGEMM probe under importscope; it is copied as the report
of each rank of a job (its host, rank, start and pids changed, one rank left clean), and those
reports are merged several times. Prints and appends to --out the median wall time, CPU time
(user+sys) and peak memory (max RSS) of the merge, and the sizes read and written.
"""
import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def make_rank_reports(importscope, python, probe, directory, ranks):
    base_path = directory / "base.json"
    subprocess.run([importscope, "run", "--python", python, "-q", "-o", base_path, probe],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = json.loads(base_path.read_text())
    base_path.unlink()
    for rank in range(ranks):
        report = copy.deepcopy(base)
        host = f"node{rank // 8:04d}"
        report["run"]["host"] = host
        report["run"]["started_at"] = report["run"]["started_at"][:-5] + f"{rank % 1000:03d}Z"
        report["run"]["job"] = {"launcher": "slurm", "job_id": "1", "step_id": "0", "node": host, "rank": rank,
                                "local_rank": rank % 8, "world_size": ranks}
        for process in report["processes"]:
            process["pid"] += rank
        for finding in report["findings"]:
            finding["pid"] += rank
        if rank == 7:
            report["findings"], report["causes"] = [], []
        (directory / f"rank-{rank}.json").write_text(json.dumps(report))


def merge_once(importscope, inputs, output):
    started = time.monotonic()
    proc = subprocess.Popen([importscope, "merge", *inputs, "-o", output], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench_merge: importscope merge exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("importscope")
    parser.add_argument("python")
    parser.add_argument("probe", help="the DeepGEMM probe's broken.py")
    parser.add_argument("--ranks", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="importscope-bench-merge-") as scratch:
        directory = Path(scratch)
        make_rank_reports(args.importscope, args.python, args.probe, directory, args.ranks)
        inputs = sorted(str(p) for p in directory.glob("rank-*.json"))
        read_mib = sum(os.path.getsize(p) for p in inputs) / 2**20
        output = directory / "merged.json"
        rounds = [merge_once(args.importscope, inputs, output) for _ in range(args.rounds)]
        merged = json.loads(output.read_text())
        written_mib = output.stat().st_size / 2**20
    across = merged["across_runs"]
    assert across["runs"] == args.ranks and len(across["clean"]) == 1, across
    wall, cpu, rss = (statistics.median(r[i] for r in rounds) for i in range(3))
    line = (f"| merge of {args.ranks} rank reports ({read_mib:.0f} MiB read, {written_mib:.0f} MiB written) | "
            f"{wall:.2f} s | {cpu:.2f} s | {rss:.0f} MiB | {args.rounds} |")
    header = "| merge | wall (median) | CPU user+sys (median) | max RSS (median) | rounds |\n|---|---|---|---|---|\n"
    print(header + line)
    if args.out:
        with open(args.out, "a") as out:
            out.write("\n" + header + line + "\n")


if __name__ == "__main__":
    main()
