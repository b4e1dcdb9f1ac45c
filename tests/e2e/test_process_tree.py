"""Following the whole process tree: multiprocessing (spawn, forkserver, fork), subprocess chains,
exec, crashes, timeouts and --stop-on-finding."""
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from conftest import BIN, BUILD, PROBES, PYTHON, TARGETS, plain_ending, probe, run_on_a_terminal, run_then_signal

CAPI_SO = next((PROBES / "deepgemm_capi/vllm_mini/third_party/deep_gemm").glob("_C*.so"))


def by_method(run, method):
    return [p for p in run.report["processes"] if p["start_method"] == method]


def finding_pids(run):
    return sorted(f["pid"] for f in run.findings("duplicate-extension-init"))


def test_data_parallel_spawn_workers_each_initialize_the_extension_twice(importscope):
    run = importscope(probe("deepgemm_pybind", "dp_workers.py"), "--start-method", "spawn")
    assert run.status == 3, run.stderr
    workers = by_method(run, "spawn")
    assert len(workers) == 4
    main = by_method(run, "main")[0]
    assert all(w["ppid"] == main["pid"] for w in workers)
    # main, 4 workers, and multiprocessing's resource tracker (a Python child too)
    assert len(run.report["processes"]) == 6
    assert [p["argv"][-1] for p in by_method(run, "exec")] == ["from multiprocessing.resource_tracker import main;main(4)"] or \
        len(by_method(run, "exec")) == 1
    assert finding_pids(run) == sorted(w["pid"] for w in workers)
    # Each worker ends as the probe does under plain python: by SIGABRT where pybind11 aborts at exit.
    code, sig = plain_ending(probe("deepgemm_pybind"))
    for w in workers:
        if sig:
            assert w["exit"]["signal"] == sig and w["exit"]["how"] == "signal"
        else:
            assert w["exit"]["signal"] is None and w["exit"]["how"] != "signal"
        assert w["uncaught_exception"] is None  # multiprocessing prints it; the worker exits by itself
    assert run.report["summary"]["processes_with_findings"] == 4
    assert "4 of 6 processes initialized" in run.stderr
    # Each process's role, and what multiprocessing says of its workers.
    assert main["role"] == "main" and main["multiprocessing"] is None
    assert sorted(w["multiprocessing"]["name"] for w in workers) == ["rank0", "rank1", "rank2", "rank3"]
    assert {w["role"] for w in workers} == {"spawn worker"}
    assert {w["multiprocessing"]["target"] for w in workers} == {"__mp_main__.worker"}
    assert [p["role"] for p in by_method(run, "exec")] == ["resource tracker"]
    assert "6 processes (main, 4 spawn workers, resource tracker)" in run.stderr
    assert "(pid " + ", ".join(str(p) for p in finding_pids(run)) + ": spawn workers)" in run.stderr
    assert all(m["pid"] in {p["pid"] for p in run.report["processes"]} for m in run.report["modules"])


def test_data_parallel_forkserver(importscope):
    run = importscope(probe("deepgemm_pybind", "dp_workers.py"), "--start-method", "forkserver")
    assert run.status == 3, run.stderr
    workers = by_method(run, "forkserver")
    assert len(workers) == 4
    assert finding_pids(run) == sorted(w["pid"] for w in workers)
    server = {w["ppid"] for w in workers}
    assert len(server) == 1  # all forked by the forkserver process, which is traced as well
    assert server <= {p["pid"] for p in by_method(run, "exec")}
    for w in workers:
        assert w["exit"]["how"] == "os._exit" and w["exit"]["code"] == 1
        assert w["role"] == "forkserver worker" and w["multiprocessing"]["target"] == "__mp_main__.worker"
    [forkserver] = [p for p in run.report["processes"] if p["pid"] in server]
    assert forkserver["role"] == "forkserver"


def test_data_parallel_fork_children_journal_on_their_own(importscope):
    run = importscope(probe("deepgemm_pybind", "dp_workers.py"), "--start-method", "fork")
    assert run.status == 3, run.stderr
    workers = by_method(run, "fork")
    assert len(workers) == 4
    assert finding_pids(run) == sorted(w["pid"] for w in workers)
    assert {(w["role"], w["multiprocessing"]["target"]) for w in workers} == {("fork child", "__main__.worker")}
    main = by_method(run, "main")[0]
    # The parent never imported deep_gemm: none of the children's events landed in its journal,
    # which is in memory the forked children still map, and no line of it was written over.
    assert not [m for m in run.report["modules"] if m["pid"] == main["pid"] and "deep_gemm" in m["name"]]
    assert run.report["problems"] == []
    assert len({p["journal"] for p in run.report["processes"]}) == len(run.report["processes"])


def test_no_follow_traces_only_the_main_process(importscope):
    run = importscope("--no-follow", probe("deepgemm_pybind", "dp_workers.py"), "--start-method", "spawn")
    # The workers die of the duplicate init, unseen: the target's failure is passed on.
    assert run.exit["code"] != 0 and run.status == run.exit["code"]
    assert [p["start_method"] for p in run.report["processes"]] == ["main"]
    assert run.report["run"]["follow"] is False
    assert run.findings() == []


def test_a_subprocess_chain_three_levels_deep(importscope):
    run = importscope(TARGETS / "chain.py", "3", CAPI_SO)
    assert run.status == 3, run.stderr
    processes = run.report["processes"]
    assert [p["start_method"] for p in processes] == ["main", "exec", "exec", "exec"]
    assert [p["role"] for p in processes] == ["main", "subprocess", "subprocess", "subprocess"]
    for parent, child in zip(processes, processes[1:]):
        assert child["ppid"] == parent["pid"]
        assert any(prog["via"] == "subprocess.Popen" for prog in parent["programs"])
    [finding] = run.findings("duplicate-extension-init")
    assert finding["pid"] == processes[-1]["pid"]
    assert finding["module_names"] == ["leaf_a._C", "leaf_b._C"]


def test_the_environment_sitecustomize_still_runs_once_per_process(importscope, tmp_path):
    user_site = tmp_path / "user_site"
    user_site.mkdir()
    marks = tmp_path / "marks.txt"
    (user_site / "sitecustomize.py").write_text(
        "import os\n"
        f"with open({str(marks)!r}, 'a') as f:\n"
        "    f.write(f'{os.getpid()}\\n')\n"
        "USER_SITECUSTOMIZE = True\n")
    code = ("import json, subprocess, sys, sitecustomize\n"
            "assert sitecustomize.USER_SITECUSTOMIZE\n"
            "import os\n"
            "assert os.environ['IMPORTSCOPE_BOOTSTRAP'] not in sys.path, sys.path\n"
            "subprocess.run([sys.executable, '-c', 'import sitecustomize; assert sitecustomize.USER_SITECUSTOMIZE'], check=True)\n")
    env = dict(os.environ, PYTHONPATH=str(user_site))
    run = importscope("-c", code, env=env)
    assert run.exit["code"] == 0, run.stderr
    pids = marks.read_text().split()
    assert len(pids) == 2 and len(set(pids)) == 2
    assert sorted(int(p) for p in pids) == sorted(p["pid"] for p in run.report["processes"])


def test_the_main_process_never_has_the_bootstrap_on_sys_path(importscope, tmp_path):
    """The bootstrap directory is on PYTHONPATH for the Python children only: the main process,
    traced already, starts with python's own sys.path and imports no sitecustomize of ours, while
    its environment still hands the bootstrap to the children, which are traced."""
    code = ("import os, subprocess, sys\n"
            "bootstrap = os.environ['IMPORTSCOPE_BOOTSTRAP']\n"
            "assert bootstrap not in sys.path, sys.path\n"
            "assert 'sitecustomize' not in sys.modules, sys.modules['sitecustomize']\n"
            "assert os.environ['PYTHONPATH'].split(os.pathsep) == [bootstrap, sys.argv[1]]\n"
            "assert sys.path[1] == sys.argv[1], sys.path\n"
            "subprocess.run([sys.executable, '-c', 'import sys, os; "
            "assert os.environ[\"IMPORTSCOPE_BOOTSTRAP\"] not in sys.path'], check=True)\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    run = importscope("-c", code, str(tmp_path), env=env)
    assert run.exit["code"] == 0, run.stderr
    assert [p["start_method"] for p in run.report["processes"]] == ["main", "exec"]


def test_a_python_child_loads_the_bootstrap_as_bytecode_instead_of_compiling_it(importscope):
    """The children's sitecustomize comes with its minor's bytecode (cmake/compile_bootstrap.py):
    a child that may not write bytecode (-B here; PYTHONDONTWRITEBYTECODE, a read-only install)
    loads that instead of compiling the source, every time, and is traced (it has a journal)."""
    code = ("import os, subprocess, sys\n"
            "child = subprocess.run([sys.executable, '-B', '-v', '-c', 'pass'], capture_output=True, text=True,"
            " check=True)\n"
            "bootstrap = os.environ['IMPORTSCOPE_BOOTSTRAP']\n"
            "pyc = os.path.join(bootstrap, '__pycache__', f'sitecustomize.{sys.implementation.cache_tag}.pyc')\n"
            "assert f\"code object from '{pyc}'\" in child.stderr, child.stderr[-4000:]\n")
    run = importscope("-c", code)
    assert run.exit["code"] == 0, run.stderr
    assert [p["start_method"] for p in run.report["processes"]] == ["main", "exec"]


def test_a_worker_that_segfaults_while_the_others_finish(importscope):
    run = importscope(probe("deepgemm_capi", "dp_workers.py"), "--start-method", "spawn", "--crash-rank", "2")
    workers = by_method(run, "spawn")
    assert len(workers) == 4
    crashed = [w for w in workers if w["exit"]["signal_name"] == "SIGSEGV"]
    assert len(crashed) == 1 and crashed[0]["exit"]["how"] == "signal"
    assert sorted(w["exit"]["code"] for w in workers if w not in crashed) == [0, 0, 0]
    assert len(finding_pids(run)) == 3
    assert crashed[0]["pid"] not in finding_pids(run)
    assert "worker exit codes: [0, 0, -11, 0]" in run.stdout


def _survivors(marker):
    alive = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    alive.append(int(entry.name))
            except OSError:
                pass
    return alive


def test_timeout_ends_a_tree_with_a_hung_grandchild_and_leaves_no_orphan(importscope):
    marker = f"hung-{uuid.uuid4().hex}"
    started = time.monotonic()
    run = importscope("--timeout", "2", TARGETS / "hung_tree.py", marker)
    assert time.monotonic() - started < 20
    assert run.exit["timed_out"] is True
    assert len(run.report["processes"]) == 3
    assert all(p["exit"] is not None for p in run.report["processes"]), run.report["processes"]
    time.sleep(0.2)
    assert _survivors(marker) == []


def test_sigterm_reaches_the_whole_tree(tmp_path):
    marker = f"term-{uuid.uuid4().hex}"
    run = run_then_signal(tmp_path, [TARGETS / "hung_tree.py", marker], signal.SIGTERM, "grandchild hanging")
    assert run.exit["forwarded_signal"] == "SIGTERM"
    assert len(run.report["processes"]) == 3
    time.sleep(0.2)
    assert _survivors(marker) == []


def test_stop_on_finding_ends_a_server_soon_after_its_workers_hit_the_duplicate(importscope):
    started = time.monotonic()
    run = importscope("--stop-on-finding", probe("deepgemm_capi", "dp_workers.py"), "--serve", timeout=60)
    elapsed = time.monotonic() - started
    assert elapsed < 15, elapsed
    assert run.status == 3
    assert run.exit["stopped_on_finding"] is True
    assert run.exit["signal_name"] == "SIGTERM"
    assert len(run.findings("duplicate-extension-init")) >= 1
    assert "--stop-on-finding" in run.exit["description"]


def test_a_program_that_is_not_python_is_listed_not_traced(importscope):
    code = "import subprocess, os\nsubprocess.run(['/bin/true'])\nos.execv('/bin/echo', ['echo', 'replaced'])\n"
    run = importscope("-c", code)
    assert run.exit["code"] == 0
    assert run.stdout == "replaced\n"
    [main] = run.report["processes"]
    assert [(p["via"], p["executable"]) for p in main["programs"]] == [("subprocess.Popen", "/bin/true"),
                                                                       ("os.exec", "/bin/echo")]
    assert main["programs"][1]["argv"] == ["echo", "replaced"]


def _run_with_stderr_on_a_terminal(args, tmp_path):
    return run_on_a_terminal([BIN, "run", "--python", PYTHON, "-o", str(tmp_path / "r.json"), *map(str, args)],
                             stdout=subprocess.DEVNULL)


def test_a_status_line_is_kept_up_to_date_on_a_terminal(tmp_path):
    status, output = _run_with_stderr_on_a_terminal(
        ["-c", "import time, json\nfor _ in range(8):\n    time.sleep(0.1)\n"], tmp_path)
    assert status == 0
    assert "\x1b[24;1H\x1b[2Kimportscope: " in output  # on the last row, which it keeps to itself
    assert "| 1 process |" in output


def test_quiet_silences_the_status_line(tmp_path):
    status, output = _run_with_stderr_on_a_terminal(["--quiet", "-c", "import time; time.sleep(0.6)"], tmp_path)
    assert status == 0
    assert output == ""  # nothing but findings and errors


def test_a_fork_behind_pythons_back_does_not_write_into_the_parents_journal(importscope, tmp_path):
    # libc's fork() called through ctypes runs none of Python's at-fork hooks: the child goes on
    # with the parent's journal state, and must not write into the parent's (shared) journal.
    for name in ("deep_gemm_before", "deep_gemm_in_child", "deep_gemm_after"):
        (tmp_path / f"{name}.py").write_text("X = 1\n")
    (tmp_path / "target.py").write_text(
        "import ctypes, os, sys\n"
        "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"
        "import deep_gemm_before\n"
        "pid = ctypes.CDLL(None, use_errno=True).fork()\n"
        "if pid == 0:\n"
        "    import deep_gemm_in_child, json, csv, decimal\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "import deep_gemm_after\n")
    run = importscope("--match", "deep_gemm", "--match", "json", tmp_path / "target.py")
    assert run.exit["code"] == 0, run.stderr
    assert run.report["problems"] == []
    main = [p for p in run.report["processes"] if p["start_method"] == "main"][0]
    mine = [m["name"] for m in run.report["modules"] if m["pid"] == main["pid"]]
    assert "deep_gemm_before" in mine and "deep_gemm_after" in mine
    assert "deep_gemm_in_child" not in mine


def test_stop_on_finding_fires_on_a_type_conflict_between_two_libraries(importscope):
    # No file is initialized twice: only the analysis of the final report knew this finding before.
    started = time.monotonic()
    run = importscope("--stop-on-finding", "--timeout", "60", PROBES / "type_conflict" / "serve.py", timeout=90)
    assert time.monotonic() - started < 15
    assert run.status == 3, run.stderr
    assert run.exit["stopped_on_finding"] is True
    assert [f["kind"] for f in run.findings() if f["severity"] == "error"] == ["native-type-conflict"]
    assert run.findings("duplicate-extension-init") == []


def test_venvs_ensurepip_is_untraced_because_venv_drops_pythonpath_and_says_so(importscope, tmp_path):
    # venv runs ensurepip with a copy of os.environ less PYTHONPATH, on purpose: the advice to build
    # the child's env from os.environ would be wrong.
    run = importscope("-m", "venv", str(tmp_path / "v"), timeout=300)
    assert run.status == 0, run.stderr
    [ensurepip] = [u for u in run.report["untraced"] if "ensurepip" in u["argv"]]
    assert "from which PYTHONPATH, which carries importscope's bootstrap, was removed or replaced" in ensurepip["reason"]
    assert "venv does so on purpose" in ensurepip["reason"]
    assert "os.environ" not in ensurepip["advice"]
    assert all("env= built from scratch" not in u["reason"] for u in run.report["untraced"])


def test_a_child_on_a_python_without_hooks_is_named_with_its_version_and_prints_nothing(importscope, tmp_path):
    other = [p for p in (f"/root/.pyenv/versions/{v}/bin/python3" for v in ("3.12.1", "3.13.0", "3.10.13"))
             if os.path.exists(p) and f"cpython-{p.split('/')[-3][:4]}" not in os.listdir(BUILD / "lib" / "importscope")]
    if not other:
        pytest.skip("no CPython here without a worker in this build")
    # Its name says no version: only the child itself can tell which Python it is.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3").symlink_to(other[0])
    code = f"import subprocess; subprocess.run([{str(tmp_path / 'bin' / 'python3')!r}, '-c', 'pass'], check=True)"
    run = importscope("-c", code)
    assert run.status == 0, run.stderr
    assert "ModuleNotFoundError" not in run.stderr
    [child] = run.report["untraced"]
    minor = other[0].split("/")[-3][:4]
    assert child["reason"] == f"it is Python {minor}, and this importscope has no hooks for that version"


def test_a_fork_child_that_execs_python_is_one_process(importscope, tmp_path):
    script = tmp_path / "fork_exec.py"
    script.write_text("import os, sys\n"
                      "for _ in range(3):\n"
                      "    pid = os.fork()\n"
                      "    if pid == 0:\n"
                      "        os.execv(sys.executable, [sys.executable, '-c', 'pass'])\n"
                      "    os.waitpid(pid, 0)\n")
    run = importscope(script)
    assert run.status == 0, run.stderr
    assert len(run.report["processes"]) == 7  # a journal per image: the fork child's, then Python's again
    assert run.report["summary"]["processes"] == 4
    assert run.report["summary"]["python_processes"] == 4
    assert "4 processes (main, 3 fork children; 3 exec'd Python again)" in run.stderr


def test_identical_untraced_workers_of_a_native_launcher_are_one_entry_each(importscope, tmp_path):
    # A launcher that is not Python starts six identical workers with an environment of their own.
    launcher = ("for i in 1 2 3 4 5 6; do env -i " + PYTHON +
                " -c 'import time; time.sleep(1.0)' & done; wait")
    run = importscope("--", "sh", "-c", launcher, python=None)
    assert run.status == 0, run.stderr
    seen = [u for u in run.report["untraced"] if u["via"] == "seen running"]
    assert len(seen) == 6, run.report["untraced"]
    assert run.report["summary"]["python_processes"] == 6
    assert "0 of 6 Python processes traced" in run.stderr


def test_an_untraced_python_that_execs_its_own_command_line_again_is_one_entry(importscope, tmp_path):
    # The re-exec idiom (os.execv(sys.executable, sys.orig_argv)): /proc shows a new image before and
    # after, of one process running one program, which importscope names once.
    marker = tmp_path / "exec-d"
    code = ("import os, sys, time\n"
            "time.sleep(1.0)\n"
            f"if not os.path.exists({str(marker)!r}):\n"
            f"    open({str(marker)!r}, 'w').close()\n"
            "    os.execv(sys.executable, sys.orig_argv)\n")
    run = importscope("--", "env", "-i", PYTHON, "-c", code, python=None)
    assert run.status == 0, run.stderr
    assert marker.exists()
    seen = [u for u in run.report["untraced"] if u["via"] == "seen running"]
    assert len(seen) == 1, run.report["untraced"]
    assert run.report["summary"]["python_processes"] == 1
    assert "0 of 1 Python processes traced" in run.stderr


def test_a_command_that_ran_no_traced_python_says_so(importscope):
    run = importscope("--", "env", "-i", PYTHON, "-c", "pass", python=None)
    assert run.status == 0, run.stderr
    assert run.report["summary"]["processes"] == 0
    assert "no Python process was traced, and none was seen running" in run.stderr


def test_a_python_that_a_traced_python_execs_through_a_shell_without_the_bootstrap_is_named_once(importscope):
    # Ray's worker set-up under a runtime_env: a traced Python sets PYTHONPATH anew and exec's
    # `bash -c "exec python ..."`; the Python it ends as has the traced one's pid, and no hooks.
    code = ("import os, sys\n"
            "os.environ['PYTHONPATH'] = os.getcwd()\n"
            "worker = sys.executable + ' -c \"import time; time.sleep(1.0)\" worker'\n"
            "os.execvp('sh', ['sh', '-c', 'exec ' + worker])\n")
    run = importscope("-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {code!r}], check=True)")
    assert run.status == 0, run.stderr
    [worker] = run.report["untraced"]
    assert worker["via"] == "seen running" and worker["argv"][-1] == "worker"
    assert "PYTHONPATH, which carries importscope's bootstrap, was removed or replaced" in worker["reason"]


def test_a_traced_python_that_retitles_itself_is_not_named_as_untraced(importscope):
    # setproctitle (Ray's "ray::IDLE") writes over argv: /proc/PID/cmdline changes, the program does not.
    retitle = ("import time\n"
               "stat = open('/proc/self/stat').read().rsplit(')', 1)[1].split()\n"
               "start, end = int(stat[45]), int(stat[46])\n"
               "with open('/proc/self/mem', 'r+b', buffering=0) as mem:\n"
               "    mem.seek(start)\n"
               "    mem.write(b'retitled'.ljust(end - start, b'\\0'))\n"
               "assert open('/proc/self/cmdline').read().startswith('retitled')\n"
               "time.sleep(1.0)\n")
    run = importscope("-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {retitle!r}], check=True)")
    assert run.status == 0, run.stderr
    assert len(run.report["processes"]) == 2
    assert run.report["untraced"] == []
