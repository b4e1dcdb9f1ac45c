"""One report per rank: -o's placeholders, run.job from the launcher's variables, and runs given the
same -o that never lose a report."""
import glob
import json
import os
import subprocess

from conftest import BIN, BUILD, PYTHON, validate

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


def test_merge_of_a_jobs_ranks_says_which_ranks_found_it_and_which_were_clean(tmp_path):
    # Ranks 0, 1 and 3 run the DeepGEMM reproducer; rank 2 runs the fixed one.
    probe = BUILD / "probes" / "deepgemm_capi"
    (tmp_path / "reports").mkdir()
    ranks = [_run(tmp_path, "reports/{host}-{rank}.json", probe / ("fixed.py" if rank == 2 else "broken.py"),
                  SLURM_JOB_ID="7", SLURM_PROCID=str(rank), SLURM_LOCALID=str(rank), SLURM_NTASKS="4")
             for rank in range(4)]
    for rank, proc in enumerate(ranks):
        assert proc.wait(timeout=60) == (0 if rank == 2 else 3), proc.stderr.read()
    reports = sorted(str(p) for p in (tmp_path / "reports").iterdir())
    merged_path = tmp_path / "merged.json"
    merge = subprocess.run([BIN, "merge", *reports, "-o", merged_path], capture_output=True, text=True)
    assert merge.returncode == 0, merge.stderr
    merged = json.loads(merged_path.read_text())
    validate(merged)
    across = merged["across_runs"]
    host = os.uname().nodename.split(".")[0]
    assert (across["runs"], across["hosts"], across["ranks"]) == (4, 1, "0-3")
    duplicate = [f for f in across["findings"] if f["kind"] == "duplicate-extension-init"]
    assert len(duplicate) == 1
    assert (duplicate[0]["runs"], duplicate[0]["ranks"], duplicate[0]["hosts"]) == (3, "0-1,3", [host])
    clean_runs = [merged["run"]["merged_from"][i] for i in across["clean"]]
    assert [r["job"]["rank"] for r in clean_runs] == [2]
    assert clean_runs[0]["source"].endswith(f"{host}-2.json")
    # Each rank's records are kept whole, each with its own host and pid.
    assert len(merged["findings"]) == sum(len(json.loads(open(r).read())["findings"]) for r in reports)
    text = subprocess.run([BIN, "report", merged_path], capture_output=True, text=True).stdout
    assert "merged 4 runs on 1 host (ranks 0-3)" in text
    assert "duplicate-extension-init in 3 of 4 runs (ranks 0-1,3)" in text
    assert f"clean: 1 run: rank 2 on {host}" in text
    assert text.count("importscope: error: duplicate-extension-init:") == 1  # shown whole once, not per rank
