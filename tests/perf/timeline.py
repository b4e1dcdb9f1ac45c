"""Where a run's fixed cost goes: the stages of `importscope run` and of python, timed by the
kernel with uprobes (root, and tracefs at /sys/kernel/tracing), in interleaved rounds.

    sudo python3 tests/perf/timeline.py BUILD_DIR [--python PYTHON] [--rounds 15] [-- TARGET ARGS...]

Probes go on the entry of: the supervisor's `main`, `run_run`, `launch`, `Collector::finish` and
`write_report`; the worker's `importscope_worker_main`; libpython's `Py_InitializeFromConfig`,
`init_interp_main` (the main phase: site, .pth files, sitecustomize) and its return,
`Py_RunMain` and `Py_FinalizeEx`; python's `main`. With the scheduler's exec, fork and exit
events, each run becomes a list of stages ("exec->s_main", "fork->w_main" ...), printed as the
median of each stage's duration over the rounds, in ms. The target is `-c pass` unless given.

The probes are removed at the end, also after an error: while a uprobe is set, the probed file's
pages hold breakpoints, and valgrind, for one, stops on them.
"""
import argparse
import collections
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from run_bench import real_interpreter

TRACING = "/sys/kernel/tracing"
GROUP = "importscope_timeline"

SUPERVISOR = {
    "s_main": r"main",
    "s_run_run": r"_ZN11importscope3app3runERKNS0_10RunOptionsE",
    "s_launch": r"_ZN11importscope3app6launch.*",
    "s_finish": r"_ZN11importscope7collect9Collector6finishEv",
    "s_write": r"_ZN11importscope6report12write_report.*",
}
LIBPYTHON = {
    "py_initcfg": r"Py_InitializeFromConfig",
    "py_init_main": r"init_interp_main",
    "py_runmain": r"Py_RunMain",
    "py_finalize": r"Py_FinalizeEx",
}


def symbol_offset(binary, pattern):
    """The file offset of the first symbol matching `pattern` (text offsets equal addresses in
    the binaries built here: checked by the caller's probes firing)."""
    for flags in ([], ["-D"]):
        out = subprocess.run(["nm", *flags, binary], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tT" and re.fullmatch(pattern, parts[2]):
                return "0x" + parts[0]
    return None


def write(path, text, append=False):
    # One write(2), without the seek that Python's files make and tracefs refuses.
    fd = os.open(os.path.join(TRACING, path), os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def set_probes(build, python, libpython):
    minor = subprocess.run([python, "-c", "import sys; print(sys.version_info[1])"], capture_output=True,
                           text=True, check=True).stdout.strip()
    worker = os.path.join(build, "lib", "importscope", f"cpython-3.{minor}", "worker.so")
    probes = [(name, os.path.join(build, "importscope"), pattern) for name, pattern in SUPERVISOR.items()]
    probes.append(("w_main", worker, r"importscope_worker_main"))
    probes += [(name, libpython, pattern) for name, pattern in LIBPYTHON.items()]
    probes.append(("py_main", python, r"main"))
    lines = []
    for name, binary, pattern in probes:
        offset = symbol_offset(binary, pattern)
        if offset:
            lines.append(f"p:{GROUP}/{name} {binary}:{offset}\n")
            if name == "py_init_main":
                lines.append(f"r:{GROUP}/py_init_main_ret {binary}:{offset}\n")
        else:
            print(f"timeline: no symbol {pattern} in {binary}; that stage is left out", file=sys.stderr)
    for line in lines:
        write("uprobe_events", line, append=True)
    write(f"events/{GROUP}/enable", "1")
    for event in ("sched_process_exec", "sched_process_fork", "sched_process_exit"):
        write(f"events/sched/{event}/enable", "1")


def clear_probes():
    write("tracing_on", "0")
    for event in ("sched_process_exec", "sched_process_fork", "sched_process_exit"):
        write(f"events/sched/{event}/enable", "0")
    if os.path.isdir(os.path.join(TRACING, "events", GROUP)):
        write(f"events/{GROUP}/enable", "0")
    kept = [line for line in open(os.path.join(TRACING, "uprobe_events")) if f":{GROUP}/" not in line]
    write("uprobe_events", "")
    for line in kept:
        write("uprobe_events", line, append=True)


EVENT = re.compile(r"-(\d+)\s+\[\d+\].*?\s(\d+\.\d+): (\w+):(.*)")


def stages(command):
    """The run's stages: (name, ms) from its exec to its last exit, in order."""
    write("trace", "")
    write("tracing_on", "1")
    subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
    write("tracing_on", "0")
    events = []
    for line in open(os.path.join(TRACING, "trace")):
        match = EVENT.search(line)
        if match and not line.lstrip().startswith("#"):
            pid, at, name, rest = match.groups()
            events.append((float(at) * 1e3, name, rest))
    found, previous, seen = [], None, collections.Counter()
    for at, name, rest in events:
        if name == "sched_process_exec" and previous is None:
            previous = ("exec", at)
            continue
        if previous is None or (name == "sched_process_fork" and f" pid={os.getpid()} " in rest):
            continue  # this script starting the next command
        label = {"sched_process_exit": "exit", "sched_process_fork": "fork"}.get(name, name)
        stage = f"{previous[0]}->{label}"
        seen[stage] += 1
        found.append((stage if seen[stage] == 1 else f"{stage}#{seen[stage]}", at - previous[1]))
        previous = (label, at)
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("target", nargs="*", default=["-c", "pass"])
    args = parser.parse_args()
    python = real_interpreter(args.python)
    libpython = subprocess.run(
        [python, "-c", "import sysconfig, os; print(os.path.join(sysconfig.get_config_var('LIBDIR'), "
                       "sysconfig.get_config_var('INSTSONAME')))"],
        capture_output=True, text=True, check=True).stdout.strip()
    scratch = tempfile.mkdtemp(prefix="importscope-timeline-")
    commands = {
        "python": [python, *args.target],
        "importscope": [os.path.join(args.build, "importscope"), "run", "-q", "--python", python,
                        "-o", os.path.join(scratch, "report.json"), "--", python, *args.target],
    }
    durations = {name: collections.defaultdict(list) for name in commands}
    totals = {name: [] for name in commands}
    clear_probes()
    try:
        set_probes(os.path.abspath(args.build), python, libpython)
        for _ in range(args.rounds):
            for name, command in commands.items():
                found = stages(command)
                totals[name].append(sum(ms for _, ms in found))
                for stage, ms in found:
                    durations[name][stage].append(ms)
    finally:
        clear_probes()
        shutil.rmtree(scratch, ignore_errors=True)
    for name in commands:
        print(f"{name}: {statistics.median(totals[name]):.2f} ms from exec to the last exit (median)")
        for stage, values in durations[name].items():
            print(f"   {stage:40} {statistics.median(values):7.2f}")


if __name__ == "__main__":
    main()
