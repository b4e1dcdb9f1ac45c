"""torchrun (`python -m torch.distributed.run`, Debian's python3-torch) under importscope: its
elastic agent starts each worker as a Python child of its own, and every worker is traced, with the
partial alias that each one imports through found in each."""
import os
import socket
import subprocess

import pytest

from conftest import SANITIZED

DEBIAN_PYTHON = "/usr/bin/python3"

WORKER = '''\
import os
import sys

import vllm_like.third_party.deep_gemm as vendored

sys.modules.setdefault("deep_gemm", vendored)  # the top-level package only
from deep_gemm.utils import CONFIG  # executes the vendored utils again, as deep_gemm.utils

print(f"rank {os.environ['RANK']} of {os.environ['WORLD_SIZE']}", flush=True)
'''


def has_torch():
    found = subprocess.run([DEBIAN_PYTHON, "-c", "import importlib.util as u; print(bool(u.find_spec('torch')))"],
                           capture_output=True, text=True)
    return found.stdout.strip() == "True"


def free_loopback_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_vendored_tree(root):
    """A vendored package whose __init__ imports its utils, as vLLM's DeepGEMM does, in pure Python."""
    package = root / "vllm_like" / "third_party" / "deep_gemm"
    (package / "utils").mkdir(parents=True)
    for init in (root / "vllm_like", root / "vllm_like" / "third_party"):
        (init / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from . import utils\n")
    (package / "utils" / "__init__.py").write_text("from .layout import CONFIG\n")
    (package / "utils" / "layout.py").write_text("CONFIG = {}\n")
    (root / "worker.py").write_text(WORKER)


@pytest.mark.skipif(not has_torch(), reason="needs Debian's python3-torch (tools/install-deps.sh installs it)")
def test_torchrun_workers_are_each_traced_with_the_partial_alias_found_in_each(importscope, tmp_path):
    write_vendored_tree(tmp_path)
    # --tee 1 --redirects 1: Debian's torch 1.13 on Python 3.11 reads the default "0" as None and
    # fails before starting any worker; --monitor_interval: the agent looks at its workers every
    # 0.2 s, not 5 s.
    env = dict(os.environ)
    if SANITIZED:
        # LeakSanitizer finds libtorch's and numpy's allocations at the agent's exit and aborts it
        # (134): torch's leaks, not importscope's. AddressSanitizer and UBSan still watch the run.
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    run = importscope("--", DEBIAN_PYTHON, "-m", "torch.distributed.run", "--nproc_per_node", "4",
                      "--master_addr", "127.0.0.1", "--master_port", free_loopback_port(),
                      "--monitor_interval", "0.2", "--tee", "1", "--redirects", "1", "--log_dir", tmp_path / "logs",
                      "worker.py", python=DEBIAN_PYTHON, timeout=120, env=env)
    assert run.status == 0, run.stderr  # the findings are warnings
    for rank in range(4):
        assert f"rank {rank} of 4" in run.stdout
    [agent] = [p for p in run.report["processes"] if p["role"] == "main"]
    assert agent["argv"][1:3] == ["-m", "torch.distributed.run"]
    workers = [p for p in run.report["processes"] if p["argv"][1:] == ["-u", "worker.py"]]
    assert len(workers) == 4 and all(w["ppid"] == agent["pid"] for w in workers)
    assert run.report["untraced"] == []
    for kind, names in (("partial-alias", ["deep_gemm", "vllm_like.third_party.deep_gemm"]),
                        ("duplicate-source-exec", ["vllm_like.third_party.deep_gemm.utils", "deep_gemm.utils"])):
        found = [f for f in run.findings(kind) if f["module_names"] == names]
        assert sorted(f["pid"] for f in found) == sorted(w["pid"] for w in workers), kind
    pids = ", ".join(str(p) for p in sorted(w["pid"] for w in workers))
    assert f"in pid {pids}: subprocesses" in run.stderr
