"""importscope's import benchmark: a synthetic tree of .py modules and C extensions, timed under
plain python (the floor), importscope (default --match and --match '*'), plain python again (the
control), python -X importtime, python -v and a pure-Python sys.meta_path recorder, in interleaved
rounds (A B C ... A B C ...) so that drift on the machine cancels, each round starting one
configuration later; ratios are taken round by round against plain python.

Usage: run_bench.py BUILD_DIR IMPORTSCOPE PYTHON [--sizes 500,5000,50000] [--rounds N] [--out FILE]
                    [--instructions SIZE]

--instructions SIZE also runs each configuration once under valgrind's callgrind on the SIZE tree and
reports the instructions executed, summed over every process of the run (importscope's supervisor
and worker, python's children), and those of the run's first process (importscope's supervisor): a
count that does not move with the load on a shared machine. The timing tables also give each
configuration's minor page faults (its process and the children it waited for), which cost CPU time
that instructions do not count.
"""
import argparse
import ctypes
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent


class Run(NamedTuple):
    """One run of a command, from wait4's rusage: its CPU time and faults cover the process and the
    children it waited for (importscope's worker)."""
    elapsed: float  # wall seconds
    peak_kib: int  # peak RSS of the process itself
    cpu_s: float  # user + system
    minor_faults: int
    pid: int
    own_cpu_s: float  # the process alone, without the children it waited for (importscope's supervisor)


def run_once(command, env, stderr_path=None):
    """One run of `command` (Run)."""
    return run_tree(command, env, stderr_path, whole_tree=False)[0]


def run_tree(command, env, stderr_path=None, whole_tree=True):
    """As run_once, and then the same of the whole process tree: the wall time until the last of
    its processes ended and the CPU time of them all, also of those the command left running when
    it ended (multiprocessing's resource tracker outlives the main process by a few milliseconds,
    and nobody waits for it). They reach this process, a child subreaper (become_subreaper)."""
    reap_leftovers()
    stderr = open(stderr_path, "w") if stderr_path else subprocess.DEVNULL
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    own_cpu = own_cpu_at_exit(proc.pid)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if stderr_path:
        stderr.close()
    if proc.returncode not in (0,):
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {' '.join(command)}")
    tree_elapsed, tree_cpu = elapsed, usage.ru_utime + usage.ru_stime
    while whole_tree:
        try:
            _, _, orphan = os.wait4(-1, 0)
        except ChildProcessError:
            break
        tree_elapsed = time.perf_counter() - started
        tree_cpu += orphan.ru_utime + orphan.ru_stime
    cpu = usage.ru_utime + usage.ru_stime
    run = Run(elapsed, usage.ru_maxrss, cpu, usage.ru_minflt, proc.pid, cpu if own_cpu is None else own_cpu)
    return run, (tree_elapsed, tree_cpu)


def own_cpu_at_exit(pid):
    """The CPU time of process `pid` alone, once it has ended, in seconds: wait4's rusage adds the
    children it waited for (importscope's worker) to it. The process is left a zombie (WNOWAIT),
    whose /proc/PID/schedstat still gives the nanoseconds its one thread ran; none where the
    kernel keeps no schedstat. The supervisor runs no other thread."""
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def reap_leftovers():
    """Reaps, uncounted, what earlier runs left that has ended since: an importscope run's guardian
    ends just after it, unwaited, and as a subreaper this process inherits it. Counted in the next
    run's whole tree it would add to the wrong command's time."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def become_subreaper():
    """Makes the processes that a command leaves behind this process's children when their
    parent ends (prctl PR_SET_CHILD_SUBREAPER), so that run_tree can wait for them."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        raise SystemExit(f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")


def real_interpreter(python):
    """The interpreter's own executable, as it names itself in sys.executable: a wrapper in front of
    it (a pyenv shim is a shell script) would add its own start-up to every plain python run and
    deflate each ratio, while importscope resolves --python past such wrappers."""
    found = subprocess.run([python, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True)
    if found.returncode != 0 or not found.stdout.strip():
        raise SystemExit(f"{python} does not run: {found.stderr.strip()}")
    return found.stdout.strip()


def made_tree(build, modules):
    """The target.py of make bench's tree of `modules` modules, and the environment it runs in (its C
    extensions on PYTHONPATH, .pyc files written), for the scripts that time it again."""
    perf = os.path.join(build, "perf")
    target = os.path.join(perf, f"tree-{modules}", "target.py")
    if not os.path.exists(target):
        raise SystemExit(f"{target} is missing: run make bench first")
    env = dict(os.environ, PYTHONPATH=os.path.join(perf, "ext"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return target, env


def configurations(importscope, python, target, scratch):
    base = dict(os.environ)
    base.pop("PYTHONPATH", None)
    # With PYTHONDONTWRITEBYTECODE set, every run would compile the whole tree again and measure
    # the compiler, not the imports: the warm-up run writes the .pyc files that the rounds read.
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    ext_path = dict(base, PYTHONPATH=str(scratch["ext"]))
    recorder = dict(ext_path, PYTHONPATH=f"{HERE / 'recorder_site'}:{scratch['ext']}",
                    RECORDER_OUT=str(scratch["dir"] / "recorder.jsonl"))
    default_report = str(scratch["dir"] / "report-default.json")
    all_report = str(scratch["dir"] / "report-all.json")
    return [
        ("python", [python, target], ext_path, None),
        ("importscope", [importscope, "run", "-q", "--python", python, "-o", default_report, target], ext_path, None),
        ("importscope --match '*'", [importscope, "run", "-q", "--match", "*", "--python", python, "-o", all_report,
                                     target], ext_path, None),
        # The control: python again, where it always follows an importscope run. Its ratio to python
        # is 1 but for the machine's noise and for what a run leaves the next one, which no ratio
        # here can tell from importscope's cost.
        ("python, again", [python, target], ext_path, None),
        ("python -X importtime", [python, "-X", "importtime", target], ext_path, scratch["dir"] / "importtime.txt"),
        ("python -v", [python, "-v", target], ext_path, scratch["dir"] / "verbose.txt"),
        ("pure-Python recorder", [python, target], recorder, None),
    ]


def measure(build, importscope, python, modules, rounds):
    tree_dir = build / "perf" / f"tree-{modules}"
    subprocess.run([python, str(HERE / "generate_tree.py"), str(tree_dir), str(modules)], check=True)
    target = str(tree_dir / "target.py")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = {"dir": Path(tmp), "ext": build / "perf" / "ext"}
        configs = configurations(importscope, python, target, scratch)
        for name, command, env, err in configs:  # warm the page cache and the .pyc files
            run_once(command, env, err)
        times = {name: [] for name, *_ in configs}
        rss = {name: [] for name, *_ in configs}
        cpu = {name: [] for name, *_ in configs}
        faults = {name: [] for name, *_ in configs}
        own_cpu = {name: [] for name, *_ in configs}
        for round_number in range(rounds):
            # Each round starts with the next configuration, so that none always runs right after
            # the same other one (the one before may leave dirty pages or a warm cache behind).
            shift = round_number % len(configs)
            for name, command, env, err in configs[shift:] + configs[:shift]:
                if name == "pure-Python recorder":
                    (scratch["dir"] / "recorder.jsonl").unlink(missing_ok=True)
                run = run_once(command, env, err)
                times[name].append(run.elapsed)
                rss[name].append(run.peak_kib)
                cpu[name].append(run.cpu_s)
                faults[name].append(run.minor_faults)
                own_cpu[name].append(run.own_cpu_s)
        sizes = {}
        for name, file in (("importscope", "report-default.json"), ("importscope --match '*'", "report-all.json")):
            path = scratch["dir"] / file
            journal = json.loads(path.read_text())["summary"].get("journal_bytes")
            sizes[name] = (path.stat().st_size, journal)
    return times, rss, cpu, faults, own_cpu, sizes


def startup(importscope, python, rounds):
    """`importscope run -c pass` against `python -c pass`: the fixed cost of every run."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory() as tmp:
        commands = {"python -c pass": [python, "-c", "pass"],
                    "importscope run -c pass": [importscope, "run", "-q", "--python", python,
                                                "-o", str(Path(tmp) / "report.json"), "-c", "pass"]}
        for command in commands.values():
            run_once(command, env)
        times = {name: [] for name in commands}
        for _ in range(rounds):
            for name, command in commands.items():
                times[name].append(run_once(command, env).elapsed)
    differences = [b - a for a, b in zip(*times.values())]
    lines = [f"### Start-up: `-c pass`, {rounds} interleaved rounds", "",
             "| command | median ms | min ms | max ms |", "|---|---|---|---|"]
    for name, values in times.items():
        lines.append(f"| {name} | {statistics.median(values) * 1e3:.1f} | {min(values) * 1e3:.1f} | "
                     f"{max(values) * 1e3:.1f} |")
    lines += ["", f"importscope's cost: {statistics.median(differences) * 1e3:.1f} ms "
                  "(median of the per-round differences)", ""]
    return "\n".join(lines)


def spawn_tree(importscope, python, rounds, workers=4):
    """A multiprocessing spawn tree of `workers` ranks (spawn_tree.py), by python and by `importscope
    run` (each child traced through the bootstrap), interleaved: what following a tree costs.
    python's time stops when its main process ends; importscope's when the whole tree has ended
    and the report is written. So python is also measured to the end of its whole tree (run_tree):
    its resource tracker ends a few milliseconds after the main process."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    target = str(HERE / "spawn_tree.py")
    with tempfile.TemporaryDirectory() as tmp:
        commands = {"python": [python, target, str(workers)],
                    "importscope": [importscope, "run", "-q", "--python", python,
                                    "-o", str(Path(tmp) / "report.json"), target, str(workers)]}
        for command in commands.values():
            run_once(command, env)
        wall = {name: [] for name in [*commands, "python, whole tree"]}
        cpu = {name: [] for name in wall}
        supervisor_cpu = []
        for round_number in range(rounds):
            order = list(commands.items())
            for name, command in order[round_number % 2:] + order[:round_number % 2]:
                run, (tree_elapsed, tree_cpu) = run_tree(command, env)
                wall[name].append(run.elapsed)
                cpu[name].append(run.cpu_s)
                if name == "importscope":
                    supervisor_cpu.append(run.own_cpu_s)
                if name == "python":
                    wall["python, whole tree"].append(tree_elapsed)
                    cpu["python, whole tree"].append(tree_cpu)
    lines = [f"### A {workers}-worker spawn tree (spawn_tree.py), {rounds} interleaved rounds", "",
             "| command | median wall s | min | max | median CPU s |", "|---|---|---|---|---|"]
    for name in wall:
        lines.append(f"| {name} | {statistics.median(wall[name]):.3f} | {min(wall[name]):.3f} | "
                     f"{max(wall[name]):.3f} | {statistics.median(cpu[name]):.3f} |")
    lines.append("")
    for floor in ("python", "python, whole tree"):
        wall_ratios = [t / p for p, t in zip(wall[floor], wall["importscope"])]
        cpu_ratios = [t / p for p, t in zip(cpu[floor], cpu["importscope"])]
        lines.append(f"importscope/{floor}: wall {statistics.median(wall_ratios):.3f} "
                     f"({median_interval(wall_ratios)}), CPU {statistics.median(cpu_ratios):.3f} "
                     "(medians of the per-round ratios)")
    lines.append(f"importscope's supervisor alone: CPU {statistics.median(supervisor_cpu) * 1e3:.1f} ms (median)")
    lines.append("")
    return "\n".join(lines)


def count_instructions(build, importscope, python, modules):
    """Instructions executed by each configuration, from callgrind, summed over its processes, and
    those of its first process alone: for importscope, the supervisor."""
    tree_dir = build / "perf" / f"tree-{modules}"
    subprocess.run([python, str(HERE / "generate_tree.py"), str(tree_dir), str(modules)], check=True)
    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        scratch = {"dir": Path(tmp), "ext": build / "perf" / "ext"}
        for name, command, env, err in configurations(importscope, python, str(tree_dir / "target.py"), scratch):
            if name == "python, again":
                continue  # instructions have no noise to control
            run_once(command, env, err)  # the .pyc files and importscope's fingerprint cache
            out = Path(tmp) / "callgrind"
            out.mkdir(exist_ok=True)
            for old in out.iterdir():
                old.unlink()
            # valgrind runs the command in the process it was started as: its profile is cg.<that pid>.
            first = run_once(["valgrind", "--tool=callgrind", "--trace-children=yes",
                              f"--callgrind-out-file={out}/cg.%p"] + command, env, err)
            total = of_first = 0
            for profile in out.iterdir():
                for line in profile.read_text(errors="replace").splitlines():
                    if line.startswith("summary:") or line.startswith("totals:"):
                        total += int(line.split()[1])
                        if profile.name == f"cg.{first.pid}":
                            of_first = int(line.split()[1])
                        break
            counts[name] = (total, of_first)
    floor = counts["python"][0]
    lines = [f"### Instructions at {modules} modules (callgrind, one run each, all processes)", "",
             "| configuration | instructions (millions) | ratio to python | of which its first process (millions) |",
             "|---|---|---|---|"]
    for name, (total, of_first) in counts.items():
        lines.append(f"| {name} | {total / 1e6:,.0f} | {total / floor:.3f} | {of_first / 1e6:,.1f} |")
    lines += ["", "importscope's first process is its supervisor; the rest is the traced processes and the guardian. "
              "Under callgrind the target runs about 50 times slower, so the supervisor's work on a clock "
              "(the run directory every 20 ms, /proc every 250 ms) is counted about 50 times as often as "
              "in a run without it."]
    return "\n".join(lines) + "\n"


def median_interval(values, resamples=2000):
    """The 2.5th and 97.5th percentiles of the median of `values` resampled with replacement (a
    percentile bootstrap, seeded so that a table is reproducible from its timings): how far the
    machine's noise leaves the median ratio from a goal."""
    generator = random.Random(0)
    medians = sorted(statistics.median(generator.choices(values, k=len(values))) for _ in range(resamples))
    return f"{medians[int(0.025 * resamples)]:.3f}-{medians[int(0.975 * resamples) - 1]:.3f}"


def table(modules, times, rss, cpu, faults, own_cpu, sizes):
    floor = times["python"]
    cpu_floor = cpu["python"]
    lines = [f"### {modules} modules (+ 20 C extensions)", "",
             "| configuration | median s | min s | max s | ratio to python (median of per-round ratios) "
             "| 95% interval of that median | CPU s (median) | CPU ratio to python | supervisor CPU ms (median) "
             "| traced processes' CPU ratio to python | peak RSS MiB | minor faults (median) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, values in times.items():
        ratios = [v / f for v, f in zip(values, floor)]
        cpu_ratios = [v / f for v, f in zip(cpu[name], cpu_floor)]
        if name.startswith("importscope"):
            supervisor = f"{statistics.median(own_cpu[name]) * 1e3:.1f}"
            traced = [(total - own) / f for total, own, f in zip(cpu[name], own_cpu[name], cpu_floor)]
            traced_text = f"{statistics.median(traced):.3f}"
        else:
            supervisor = traced_text = "-"
        lines.append(f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} | "
                     f"{statistics.median(ratios):.3f} | {median_interval(ratios)} | {statistics.median(cpu[name]):.3f} | "
                     f"{statistics.median(cpu_ratios):.3f} | {supervisor} | {traced_text} | "
                     f"{statistics.median(rss[name]) / 1024:.1f} | {statistics.median(faults[name]):,.0f} |")
    lines.append("")
    lines.append("The supervisor's CPU time is its own (its /proc/PID/schedstat when it has ended); the traced "
                 "processes' is the rest of the run's: the worker and what it started. \"python, again\" is "
                 "the control: the same command as python, run right after importscope --match '*'; how far "
                 "its ratios are from 1 is how far this batch's noise moves any ratio.")
    lines.append("")
    for name, (report, journal) in sizes.items():
        journal_text = f"{journal / 1024:.0f} KiB" if journal is not None else "not reported"
        lines.append(f"- {name}: journals {journal_text}, report {report / 1024:.0f} KiB")
    lines.append("")
    return "\n".join(lines)


def dentry_cache():
    """How many directory entries the kernel caches: every path component an import or the
    supervisor looks up walks a hash chain of them, and a long-running machine's cache (hundreds
    of thousands, most of them negative) makes each look-up cost several times what it does after
    a `drop_caches`, for python and importscope both, but importscope's `lstat` of each module
    file more (docs/benchmarks.md, run AJ)."""
    try:
        count = int(Path("/proc/sys/fs/dentry-state").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return "dentry cache unknown"
    return f"{count:,} dentries cached"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("importscope")
    parser.add_argument("python")
    parser.add_argument("--sizes", default="500,5000,50000")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--out")
    parser.add_argument("--instructions", type=int, default=0)
    args = parser.parse_args()
    become_subreaper()
    build = Path(args.build).resolve()
    args.python = real_interpreter(args.python)
    version = subprocess.run([args.python, "-c", "import sys; print(sys.version.split()[0])"],
                             capture_output=True, text=True).stdout.strip()
    header = (f"Machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}; Python {version}; "
              f"{args.python}; {time.strftime('%Y-%m-%d')}; {3 * args.rounds} interleaved rounds up to 5,000 modules, "
              f"{max(3, args.rounds // 2)} above, after one warm-up run each; {dentry_cache()}.\n")
    sections = [header, startup(args.importscope, args.python, 4 * args.rounds)]
    print(sections[-1], flush=True)
    sections.append(spawn_tree(args.importscope, args.python, 3 * args.rounds))
    print(sections[-1], flush=True)
    for size in [int(s) for s in args.sizes.split(",")]:
        # The goals are set at 5,000 modules: three times the rounds there and below, where a
        # round takes about a second, so that the medians stand on more than the machine's noise.
        rounds = 3 * args.rounds if size <= 5000 else max(3, args.rounds // 2)
        times, rss, cpu, faults, own_cpu, sizes = measure(build, args.importscope, args.python, size, rounds)
        sections.append(table(size, times, rss, cpu, faults, own_cpu, sizes))
        print(sections[-1], flush=True)
    if args.instructions:
        sections.append(count_instructions(build, args.importscope, args.python, args.instructions))
        print(sections[-1], flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(sections))


if __name__ == "__main__":
    main()
