"""One report per rank: -o's placeholders, run.job from the launcher's variables, and runs given the
same -o that never lose a report."""
import glob
import json
import os
import subprocess

from conftest import BIN, PYTHON, validate

LAUNCHER_VARIABLES = ("SLURM_", "RANK", "LOCAL_RANK", "WORLD_SIZE", "OMPI_", "PMI_", "PMIX_", "TORCHELASTIC_")


def _environment(**variables):
    # The test's own launcher, never the one CI itself may run under.
    env = {k: v for k, v in os.environ.items() if not k.startswith(LAUNCHER_VARIABLES)}
    env.update(variables)
    return env


def _run(tmp_path, output, *target, **variables):
    return subprocess.Popen([BIN, "run", "--python", PYTHON, "-o", output, *target], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_environment(**variables))


def test_each_srun_task_writes_its_own_report_named_by_its_rank(tmp_path):
    (tmp_path / "reports").mkdir()
    tasks = [_run(tmp_path, "reports/{job}-{host}-{rank}.json", "-c", "pass", SLURM_JOB_ID="4242",
                  SLURM_STEP_ID="0", SLURM_PROCID=str(rank), SLURM_LOCALID=str(rank % 2), SLURM_NTASKS="4",
                  SLURMD_NODENAME=f"node{rank // 2}")
             for rank in range(4)]
    for task in tasks:
        assert task.wait(timeout=60) == 0, task.stderr.read()
    host = os.uname().nodename.split(".")[0]
    for rank in range(4):
        report = json.loads((tmp_path / "reports" / f"4242-{host}-{rank}.json").read_text())
        validate(report)
        assert report["run"]["job"] == {"launcher": "slurm", "job_id": "4242", "step_id": "0",
                                        "node": f"node{rank // 2}", "rank": rank, "local_rank": rank % 2,
                                        "world_size": 4}


def test_a_run_outside_any_launcher_says_so_and_its_placeholders_still_expand(tmp_path):
    run = _run(tmp_path, "r-{job}-{rank}.json", "-c", "pass")
    assert run.wait(timeout=60) == 0, run.stderr.read()
    report = json.loads((tmp_path / "r-local-0.json").read_text())
    assert report["run"]["job"] == dict.fromkeys(
        ("launcher", "job_id", "step_id", "node", "rank", "local_rank", "world_size"))


def test_an_unknown_placeholder_is_refused_before_the_target_runs(tmp_path):
    run = _run(tmp_path, "r-{ranks}.json", "-c", "open('ran', 'w')")
    assert run.wait(timeout=60) == 125
    assert "unknown placeholder {ranks}" in run.stderr.read()
    assert not (tmp_path / "ran").exists()


def test_runs_given_the_same_output_lose_no_report(tmp_path):
    # Four ranks whose job script forgot the placeholders: each report is kept, and each run that
    # could not take the name says where its report went.
    runs = [_run(tmp_path, "report.json", "-c", f"import time; time.sleep(0.5); print({rank})", RANK=str(rank))
            for rank in range(4)]
    errors = []
    for run in runs:
        assert run.wait(timeout=60) == 0
        errors.append(run.stderr.read())
    reports = sorted(glob.glob(str(tmp_path / "report*.json")))
    assert len(reports) == 4, (reports, errors)
    ranks = sorted(json.loads(open(r).read())["run"]["job"]["rank"] for r in reports)
    assert ranks == [0, 1, 2, 3]
    moved = [e for e in errors if "was written by another process while this run went on" in e]
    assert len(moved) == 3, errors
    assert all(os.path.exists(line.split("this run's report is ")[1].split(" ")[0])
               for e in moved for line in e.splitlines() if "this run's report is" in line)
