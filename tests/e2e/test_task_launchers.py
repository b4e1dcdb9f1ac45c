"""Task launchers in the run (srun, sbatch, mpirun): their tasks are started by a cluster's daemons,
not as their children, so importscope names each launcher in `untraced`, with how to run importscope
inside each task instead. These tests need no cluster: stand-ins carry the launchers' names (the
real srun is in test_slurm.py)."""
import os
import shutil

from conftest import PYTHON

ADVICE = "importscope run -o 'report-{rank}.json' -- python ..., then importscope merge report-*.json"


def launchers_on_path(tmp_path):
    """An environment whose PATH starts with stand-ins: `srun` a script that does nothing, `srun_sleep`
    and `mpiexec` copies of sleep (their /proc/PID/exe carries the name, as the real programs' does)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "srun").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "srun").chmod(0o755)
    sleeper = shutil.which("sleep")
    for name in ("mpiexec", "sbatch"):
        shutil.copy(sleeper, bin_dir / name)
    return bin_dir, dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")


def test_importscope_run_srun_says_that_the_tasks_are_outside_its_tree(importscope, tmp_path):
    bin_dir, env = launchers_on_path(tmp_path)
    run = importscope("--", "srun", "-n", "2", PYTHON, "train.py", python=None, env=env)
    assert run.status == 0, run.stderr
    [entry] = run.report["untraced"]
    assert entry["via"] == "the command"
    assert entry["executable"] == str(bin_dir / "srun")
    assert entry["argv"] == ["srun", "-n", "2", PYTHON, "train.py"]
    assert entry["reason"].startswith("srun has its tasks started by slurmd on the allocated nodes")
    assert "outside importscope's process tree" in entry["reason"]
    assert entry["advice"] == f"run importscope inside each task instead: srun ... {ADVICE} -o merged.json " \
                              "(docs/multi-node.md)"
    assert run.report["summary"]["untraced_processes"] == 1
    assert f"started srun -n 2 {PYTHON} train.py (the command)" in run.stderr
    assert "why: srun has its tasks started by slurmd" in run.stderr
    assert f"fix: run importscope inside each task instead: srun ... {ADVICE}" in run.stderr


def test_an_sbatch_that_a_traced_python_runs_is_named_once_as_it_started_it(importscope, tmp_path):
    # It runs 0.6 s, so the supervisor's look at /proc every 250 ms sees it too: still one entry.
    _, env = launchers_on_path(tmp_path)
    run = importscope("-c", "import subprocess; subprocess.run(['sbatch', '0.6'], check=True)", env=env)
    assert run.status == 0, run.stderr
    [main] = run.report["processes"]
    [entry] = run.report["untraced"]
    assert (entry["via"], entry["parent_pid"], entry["argv"]) == ("subprocess.Popen", main["pid"], ["sbatch", "0.6"])
    assert entry["reason"].startswith("sbatch hands the batch script to slurmctld")
    assert "srun importscope run -o 'report-{rank}.json'" in entry["advice"]


def test_an_mpiexec_that_a_shell_runs_is_seen_running(importscope, tmp_path):
    bin_dir, env = launchers_on_path(tmp_path)
    run = importscope("--", "sh", "-c", "mpiexec 0.6; true", python=None, env=env)
    assert run.status == 0, run.stderr
    [entry] = run.report["untraced"]
    assert (entry["via"], entry["executable"], entry["argv"]) == ("seen running", str(bin_dir / "mpiexec"),
                                                                  ["mpiexec", "0.6"])
    assert entry["reason"].startswith("mpiexec starts the ranks on other hosts through its daemons")
    assert entry["advice"].startswith(f"run importscope inside each rank instead: mpiexec ... {ADVICE}")


def test_a_program_that_launches_no_tasks_is_not_named(importscope, tmp_path):
    _, env = launchers_on_path(tmp_path)
    run = importscope("--", "sh", "-c", "sleep 0.6; true", python=None, env=env)
    assert run.status == 0, run.stderr
    assert run.report["untraced"] == []
