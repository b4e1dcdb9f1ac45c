"""Ray for real: `ray` from PyPI in a venv of the build's Python (tools/pypi-venv.sh, cached outside
the tree), on loopback, with a cluster of the test's own.

Ray's raylet, a native program, starts the workers with its own environment, which it had from the
driver that started it: a worker that runs a task is traced like any Python child. A runtime_env
whose env_vars set PYTHONPATH makes Ray start the worker through setup_worker.py, a traced Python
that exec's `bash -c "exec python default_worker.py ..."` with that PYTHONPATH in place of the one
that carried the bootstrap: such a worker is named in `untraced`, once. A `ray start` cluster is
traced by running `ray start --block` itself under importscope (docs/multi-node.md, "Ray").
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import BIN, SANITIZED, Run, pypi_python

pytestmark = pytest.mark.skipif(
    SANITIZED, reason="Ray's daemons and every worker under AddressSanitizer's preload take minutes, not seconds")

# tasks.py: what a worker runs. `vend.third_party.pkg` is a vendored package aliased at the top level
# only (the DeepGEMM shape, in pure Python): `from pkg.sub import x` executes sub.py a second time.
TASKS = '''
import os, sys, time

def use_alias():
    import vend.third_party.pkg as vendored
    import vend.third_party.pkg.sub
    sys.modules.setdefault("pkg", vendored)
    from pkg.sub import x
    time.sleep(0.3)  # long enough that the tasks of a batch are spread over the workers
    return os.getpid()
'''

# The remote functions and the actor, for a driver that imports this module once Ray is up.
REMOTE = '''
import ray
import tasks

@ray.remote
def work():
    return tasks.use_alias()

@ray.remote
class Aliasing:
    def run(self):
        return tasks.use_alias()

def pids(**options):
    return sorted(set(ray.get([work.options(**options).remote() for _ in range(4)])))

def actor_pid():
    return ray.get(Aliasing.remote().run.remote())
'''

# A driver that starts a local cluster: tasks as they come, tasks under a runtime_env that sets
# PYTHONPATH (replacing it, then keeping the inherited one behind), and an actor.
DRIVER = '''
import json, os, sys
import ray

here = os.path.dirname(os.path.abspath(__file__))
ray.init(num_cpus=2, include_dashboard=False, object_store_memory=78_643_200, _node_ip_address="127.0.0.1",
         _temp_dir=os.environ["RAY_TEST_TMP"], log_to_driver=False)
import remote

result = {
    "plain": remote.pids(),
    "actor": remote.actor_pid(),
    "replaced": remote.pids(runtime_env={"env_vars": {"PYTHONPATH": here}}),
    "kept": remote.pids(runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([here, os.environ["PYTHONPATH"]])}}),
}
ray.shutdown()
print(json.dumps(result), flush=True)
sys.exit(7)
'''

# A driver that joins a cluster started by `ray start`.
CLIENT = '''
import json, os
import ray

ray.init(address=os.environ["RAY_TEST_ADDRESS"], log_to_driver=False)
import remote

result = {"plain": remote.pids(), "actor": remote.actor_pid()}
ray.shutdown()
print(json.dumps(result), flush=True)
'''


@pytest.fixture(scope="module")
def ray_python():
    return pypi_python("ray-requirements.txt")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """The programs, and a temporary directory for Ray whose socket paths stay under 108 bytes."""
    programs = tmp_path_factory.mktemp("ray")
    package = programs / "vend" / "third_party" / "pkg"
    package.mkdir(parents=True)
    for init in (programs / "vend", programs / "vend" / "third_party", package):
        (init / "__init__.py").write_text("")
    (package / "sub.py").write_text("x = 42\n")
    for name, text in (("tasks.py", TASKS), ("remote.py", REMOTE), ("driver.py", DRIVER), ("client.py", CLIENT)):
        (programs / name).write_text(text)
    ray_tmp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    yield programs, ray_tmp
    shutil.rmtree(ray_tmp, ignore_errors=True)


def ray_environment(ray_tmp):
    """Local only: loopback addresses (Ray's switch for a one-machine cluster), no usage statistics,
    no token written to ~/.ray, a home of the test's own."""
    home = ray_tmp / "home"
    home.mkdir(exist_ok=True)
    return dict(os.environ, HOME=str(home), RAY_TEST_TMP=str(ray_tmp), RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",
                RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="disabled")


def addresses(run):
    """The node addresses on the command lines of the run's processes."""
    return {w.split("=", 1)[1] for p in run.report["processes"] for w in p["argv"]
            if w.startswith("--node-ip-address=")}


def alias_pids(run):
    """The processes in which the partial alias was found."""
    return {f["pid"] for f in run.findings("partial-alias")}


def living(pids):
    """The processes of `pids` still running. A zombie has ended: one whose parent died before it
    waits for init to reap it (seen under load: `ray::IDLE`, state Z, parent 1)."""
    alive = []
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if stat[stat.rfind(")") + 2:][:1] not in ("Z", "X"):
            alive.append(pid)
    return alive


def setup_workers(run, python_path):
    """The worker-ids of the traced setup_worker.py processes whose runtime_env gave PYTHONPATH
    `python_path`: each exec'd the worker that Ray started for that runtime_env."""
    ids = []
    for process in run.report["processes"]:
        argv = process["argv"]
        if not any(word.endswith("/setup_worker.py") for word in argv):
            continue
        [context] = [w.split("=", 1)[1] for w in argv if w.startswith("--serialized-runtime-env-context=")]
        if json.loads(context)["env_vars"].get("PYTHONPATH") == python_path:
            ids += [w for w in argv if w.startswith("--worker-id=")]
    return ids


@pytest.fixture(scope="module")
def local_cluster(ray_python, workspace):
    """One traced run of DRIVER: (the run, what the driver printed, the seconds it took)."""
    programs, ray_tmp = workspace
    report = programs / "report.json"
    started = time.monotonic()
    proc = subprocess.run([BIN, "run", "--timeout", "120", "--python", ray_python, "-o", str(report), "driver.py"],
                          cwd=programs, capture_output=True, text=True, timeout=180, env=ray_environment(ray_tmp))
    seconds = time.monotonic() - started
    run = Run(proc, report)
    assert run.report is not None, proc.stderr
    assert proc.stdout, proc.stderr
    return run, json.loads(proc.stdout.splitlines()[-1]), seconds


def test_a_traced_driver_ends_as_python_would_and_leaves_no_ray_process(local_cluster):
    run, _, seconds = local_cluster
    assert run.status == 7 and run.exit["code"] == 7, run.stderr
    assert run.report["run"]["outcome"]["reason"] != "timeout"
    assert seconds < 60
    assert addresses(run) == {"127.0.0.1"}
    assert living(p["pid"] for p in run.report["processes"]) == []


def test_every_worker_that_ran_a_task_or_the_actor_is_traced_and_finds_the_alias(local_cluster):
    run, pids, _ = local_cluster
    workers = set(pids["plain"]) | {pids["actor"]} | set(pids["kept"])
    assert workers <= {p["pid"] for p in run.report["processes"]}
    assert workers <= alias_pids(run)
    [cause] = [c for c in run.report["causes"] if "pkg" in c["message"]]
    assert cause["severity"] == "warning"


def test_a_worker_whose_runtime_env_replaces_pythonpath_is_named_as_untraced_once(local_cluster, workspace):
    run, pids, _ = local_cluster
    programs, _ = workspace
    # Ray started them through setup_worker.py, which was traced; the worker it exec'd is not.
    assert not set(pids["replaced"]) & alias_pids(run)
    exec_d = setup_workers(run, str(programs))
    assert len(exec_d) >= len(pids["replaced"])
    untraced = run.report["untraced"]
    assert len(untraced) == len(exec_d), untraced
    for entry in untraced:
        assert entry["via"] == "seen running"
        assert entry["reason"].startswith("a Ray worker whose runtime_env sets PYTHONPATH (env_vars)")
        assert 'os.pathsep.join([YOUR_PATH, os.environ[\\"PYTHONPATH\\"]])' in json.dumps(entry["advice"])
    named = [w for entry in untraced for w in entry["argv"] if w.startswith("--worker-id=")]
    assert set(named) <= set(exec_d)
    assert f"of {run.report['summary']['python_processes']} Python processes traced; not traced:" in run.stderr


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(path, text, proc, seconds):
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if text in path.read_text(errors="replace"):
            return
        assert proc.poll() is None, path.read_text(errors="replace")
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not in {path}:\n{path.read_text(errors='replace')}")


def test_a_ray_start_head_run_under_importscope_traces_the_workers_of_a_driver_outside_it(ray_python, workspace):
    programs, ray_tmp = workspace
    head_tmp = ray_tmp / "head"
    port = free_port()
    # The node stops at once on SIGTERM, within importscope's grace period, rather than draining for 30 s.
    env = dict(ray_environment(ray_tmp), RAY_TEST_ADDRESS=f"127.0.0.1:{port}", RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S="0")
    report = programs / "head.json"
    output = programs / "head.out"
    ray = Path(ray_python).parent / "ray"
    with open(output, "w") as out:
        head = subprocess.Popen([BIN, "run", "--ignore-target-status", "--timeout", "120", "--python", ray_python,
                                 "-o", str(report), "--",
                                 str(ray), "start", "--head", "--block", f"--port={port}",
                                 "--node-ip-address=127.0.0.1", "--num-cpus=2", "--include-dashboard=false",
                                 "--object-store-memory=78643200", f"--temp-dir={head_tmp}"],
                                cwd=programs, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        wait_for(output, "Ray runtime started", head, 60)
        client = subprocess.run([ray_python, "client.py"], cwd=programs, capture_output=True, text=True, timeout=90,
                                env=env)
        assert client.returncode == 0, client.stderr
        pids = json.loads(client.stdout.splitlines()[-1])
        # How the recipe ends it: SIGTERM to importscope, passed on to `ray start`, which stops the node.
        head.send_signal(signal.SIGTERM)
        head.wait(timeout=60)
    finally:
        if head.poll() is None:
            head.kill()  # importscope's guardian then ends the whole tree
            head.wait()
    run = Run(subprocess.CompletedProcess(head.args, head.returncode, output.read_text(), ""), report)
    assert run.report is not None, output.read_text()
    assert run.report["run"]["exit"]["forwarded_signal"] == "SIGTERM"
    # `ray start` stopped the node and ended of itself, with status 1; only findings count.
    assert run.report["run"]["exit"]["signal"] is None, output.read_text()
    assert run.report["run"]["exit"]["code"] == 1
    assert run.status == 0, output.read_text()
    assert addresses(run) == {"127.0.0.1"}
    workers = set(pids["plain"]) | {pids["actor"]}
    assert workers <= alias_pids(run)
    assert run.report["untraced"] == []
    assert living(p["pid"] for p in run.report["processes"]) == []
