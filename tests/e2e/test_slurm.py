"""importscope under a real Slurm: a single-node cluster from Debian's packages (munged, slurmctld and
slurmd, started by this module as its own processes, in a directory of its own, on loopback), then
`srun -n 4 importscope run -o 'report-{rank}.json'` on the DeepGEMM probe's DP=4 shape and the merge
of the four reports, the sbatch recipe of docs/multi-node.md as it is written there, and
`importscope run -- srun`, whose tasks slurmstepd starts outside importscope's tree."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import BIN, PYTHON, SANITIZED, SOURCE, probe, validate

SBIN_PATH = "/usr/sbin:/sbin"
DAEMONS = ("mungekey", "munged", "slurmctld", "slurmd")
CLIENTS = ("srun", "sbatch", "sinfo")
PROBE = probe("deepgemm_pybind")
ALIASED = ["vllm_mini.third_party.deep_gemm._C", "deep_gemm._C"]
START_TIMEOUT_S = 30


def missing_programs():
    path = f"{os.environ.get('PATH', '')}:{SBIN_PATH}"
    return [name for name in DAEMONS + CLIENTS if not shutil.which(name, path=path)]


def why_no_cluster():
    if os.geteuid() != 0:
        return "slurmd starts every task as its user only when it runs as root"
    if missing := missing_programs():
        return f"Slurm or munge is not installed (no {', '.join(missing)}; tools/install-deps.sh installs them)"
    if SANITIZED:
        return ("sanitized build: the suite preloads libasan into every process it starts, and srun and the "
                "daemons, which are not built for it, would run under LeakSanitizer, which aborts a program that "
                "leaks at exit; the normal build runs these tests")
    return None


pytestmark = pytest.mark.skipif(why_no_cluster() is not None, reason=why_no_cluster() or "")


def free_loopback_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


SLURM_CONF = """\
ClusterName=importscope
SlurmctldHost=localhost
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
# Every daemon and srun listen on the address their host name has (loopback), not on every address.
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={root}/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
# No cgroups: processes are tracked by their parent links, and tasks are not bound to CPUs.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# sbatch --wait asks every 2 s while MinJobAge/2 allows it (else 8 s, then 10 s); a finished job
# stays known for 4 s, longer than that.
MinJobAge=4
NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
"""


class Cluster:
    """A one-node Slurm cluster in `root`, its daemons this process's children."""

    def __init__(self, root):
        self.root = root
        self.processes = []
        self.env = dict(os.environ, SLURM_CONF=str(root / "slurm.conf"), PATH=f"{os.environ['PATH']}:{SBIN_PATH}",
                        # The node has as many CPUs as the machine (2 here): four tasks share them.
                        SLURM_OVERCOMMIT="1", SBATCH_OVERCOMMIT="1")
        self.env.pop("SLURM_JOB_ID", None)

    def start(self):
        (self.root / "munge").mkdir()
        (self.root / "state").mkdir()
        (self.root / "spool").mkdir()
        ctld_port, slurmd_port = free_loopback_ports(2)
        (self.root / "slurm.conf").write_text(SLURM_CONF.format(
            root=self.root, ctld_port=ctld_port, slurmd_port=slurmd_port, cpus=os.cpu_count()))
        munge = self.root / "munge"
        subprocess.run(["mungekey", "--create", f"--keyfile={munge}/munge.key"], env=self.env, check=True)
        # --force: munged runs as root here, in a directory that is not its own /run/munge.
        self.spawn("munged", ["munged", "--foreground", "--force", f"--key-file={munge}/munge.key",
                              f"--socket={munge}/munge.socket", f"--pid-file={munge}/munged.pid",
                              f"--log-file={munge}/munged.log", f"--seed-file={munge}/munged.seed"])
        self.wait_for(lambda: (munge / "munge.socket").exists(), "munged to make its socket")
        self.spawn("slurmctld", ["slurmctld", "-D", "-i"])
        self.spawn("slurmd", ["slurmd", "-D"])
        self.wait_for(self.node_is_idle, "the node to be idle")

    def spawn(self, name, command):
        log = open(self.root / f"{name}.out", "wb")
        with log:
            self.processes.append(subprocess.Popen(command, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                                   stdin=subprocess.DEVNULL))

    def node_is_idle(self):
        state = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True)
        return state.stdout.strip() == "idle"

    def wait_for(self, ready, what):
        until = time.monotonic() + START_TIMEOUT_S
        while not ready():
            ended = [p.args[0] for p in self.processes if p.poll() is not None]
            if ended or time.monotonic() > until:
                pytest.fail(f"the test's Slurm cluster did not start: waited for {what}; "
                            f"{'ended: ' + ', '.join(ended) if ended else f'{START_TIMEOUT_S} s passed'}\n"
                            + self.logs())
            time.sleep(0.1)

    def logs(self):
        return "\n".join(f"== {log.name}\n{log.read_text(errors='replace')[-2000:]}"
                         for log in sorted(self.root.rglob("*.log")) + sorted(self.root.glob("*.out")))

    def stop(self):
        """Ends exactly the daemons it started, the last started first."""
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()

    def run(self, command, cwd, timeout=60):
        return subprocess.run([str(word) for word in command], cwd=cwd, env=self.env, capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def cluster():
    # Not pytest's temporary directory: munged wants every directory above its socket searchable by all.
    root = Path(tempfile.mkdtemp(prefix="importscope-slurm-"))
    root.chmod(0o755)
    cluster = Cluster(root)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


def the_duplicate_init(report):
    return [f for f in report["findings"] if f["kind"] == "duplicate-extension-init" and f["module_names"] == ALIASED]


def read_report(path):
    report = json.loads(path.read_text())
    validate(report)
    return report


def test_srun_gives_each_task_a_report_of_its_own_and_merge_holds_all_four(cluster, tmp_path):
    srun = cluster.run(["srun", "-n", "4", BIN, "run", "-o", tmp_path / "report-{rank}.json", "--", PYTHON, PROBE],
                       cwd=tmp_path)
    assert srun.returncode != 0, srun.stderr  # each task's importscope ends with status 3: a finding
    assert sorted(p.name for p in tmp_path.glob("report-*.json")) == [f"report-{r}.json" for r in range(4)], \
        srun.stderr
    pids, steps = set(), set()
    for rank in range(4):
        report = read_report(tmp_path / f"report-{rank}.json")
        [finding] = the_duplicate_init(report)
        pids.add(finding["pid"])
        job = report["run"]["job"]
        assert (job["launcher"], job["node"], job["rank"], job["local_rank"], job["world_size"]) == \
            ("slurm", "localhost", rank, rank, 4)
        steps.add((job["job_id"], job["step_id"]))
        assert report["run"]["outcome"]["exit_status"] == 3
    assert len(pids) == 4
    assert len(steps) == 1  # one job step, its four tasks

    merge = subprocess.run([BIN, "merge", *sorted(tmp_path.glob("report-*.json")), "-o", tmp_path / "merged.json"],
                           capture_output=True, text=True, timeout=60)
    assert merge.returncode == 0, merge.stderr
    merged = read_report(tmp_path / "merged.json")
    assert len(merged["run"]["merged_from"]) == 4
    assert {f["pid"] for f in the_duplicate_init(merged)} == pids
    assert merged["summary"]["processes_with_findings"] == 4


def sbatch_recipe():
    """The batch script of docs/multi-node.md, exactly as written there."""
    text = (SOURCE / "docs" / "multi-node.md").read_text()
    [script] = [block for block in re.findall(r"```sh\n(.*?)```", text, re.S) if "#SBATCH" in block]
    return script


def test_the_sbatch_recipe_of_the_docs_runs(cluster, tmp_path):
    recipe = sbatch_recipe()
    # The recipe's importscope is this build's, and its serve.py the probe, run by the test's Python.
    script = (recipe.replace("importscope run ", f"{BIN} run ").replace("importscope merge ", f"{BIN} merge ")
              .replace("python serve.py", f"{PYTHON} {PROBE}"))
    assert script.count(BIN) == 2 and str(PROBE) in script
    (tmp_path / "job.sh").write_text(script)
    sbatch = cluster.run(["sbatch", "--wait", "--parsable", "-o", tmp_path / "job.out", tmp_path / "job.sh"],
                         cwd=tmp_path)
    output = (tmp_path / "job.out").read_text() if (tmp_path / "job.out").exists() else ""
    assert sbatch.returncode == 0, sbatch.stderr + output
    job_id = sbatch.stdout.strip().split(";")[0]
    reports = sorted(tmp_path.glob(f"importscope-{job_id}-*.json"))
    assert [p.name for p in reports] == [f"importscope-{job_id}-{r}.json" for r in range(4)], output
    for rank, path in enumerate(reports):
        report = read_report(path)
        assert len(the_duplicate_init(report)) == 1
        assert (report["run"]["job"]["job_id"], report["run"]["job"]["rank"]) == (job_id, rank)
    merged = read_report(tmp_path / f"importscope-{job_id}.json")
    assert len(merged["run"]["merged_from"]) == 4
    assert len({f["pid"] for f in the_duplicate_init(merged)}) == 4


def test_importscope_run_srun_names_srun_whose_tasks_slurmstepd_starts(cluster, tmp_path):
    # Each task says which program is its parent: slurmstepd, a child of slurmd, not srun.
    parent = "import os; print(open(f'/proc/{os.getppid()}/comm').read().strip())"
    proc = cluster.run([BIN, "run", "-o", tmp_path / "report.json", "--", "srun", "-n", "2", PYTHON, "-c", parent],
                       cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["slurmstepd", "slurmstepd"]
    report = read_report(tmp_path / "report.json")
    [entry] = report["untraced"]  # srun forks a helper of its own: still one entry
    assert (entry["via"], entry["argv"][:3]) == ("the command", ["srun", "-n", "2"])
    assert Path(entry["executable"]).name == "srun"
    assert "started by slurmd on the allocated nodes" in entry["reason"]
    assert "srun ... importscope run -o 'report-{rank}.json' -- python" in entry["advice"]
    assert f"started srun -n 2 {PYTHON} -c" in proc.stderr
    assert "why: srun has its tasks started by slurmd" in proc.stderr
