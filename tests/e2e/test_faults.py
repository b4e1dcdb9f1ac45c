"""The fault matrix: however the target misbehaves, the report is complete and schema-valid, ends
the way plain python ends, and keeps every event up to the fault (docs/reliability.md)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import BIN, PROBES, PYTHON, TARGETS, run_then_signal

CAPI_SO = next((PROBES / "deepgemm_capi/vllm_mini/third_party/deep_gemm").glob("_C*.so"))


def plain_python_status(args, cwd, env=None):
    """What python itself returns for the same target: the ending importscope must report."""
    return subprocess.run([PYTHON, *map(str, args)], cwd=cwd, capture_output=True, env=env, timeout=120).returncode


def assert_same_ending(run, status):
    if status < 0:
        assert run.exit["signal"] == -status and run.exit["code"] is None, run.exit
    else:
        assert run.exit["code"] == status and run.exit["signal"] is None, run.exit


@pytest.mark.parametrize("name, args", [
    ("abort", [TARGETS / "abort.py"]),
    ("segfault", [TARGETS / "segfault.py"]),
    ("os_exit", [TARGETS / "os_exit.py"]),
    ("system_exit_int", ["-c", "import sys; sys.exit(3)"]),
    ("system_exit_str", ["-c", "import sys; sys.exit('fatal: bad config')"]),
    ("system_exit_none", ["-c", "import sys; sys.exit(None)"]),
    ("keyboard_interrupt", ["-c", "raise KeyboardInterrupt"]),
    ("uncaught", [TARGETS / "uncaught.py"]),
    ("closed_stdio", ["-c", "import os, json; os.close(1); os.close(2); import csv"]),
    ("redirected_stdio", ["-c", "import os, sys; sys.stdout = open(os.devnull, 'w'); sys.stderr = sys.stdout; "
                                "import csv; print('hidden'); raise SystemExit(7)"]),
])
def test_the_report_ends_the_way_python_ends(importscope, tmp_path, name, args):
    run = importscope("--match", "csv", *args)
    assert run.report is not None, run.stderr
    assert_same_ending(run, plain_python_status(args, tmp_path))
    assert run.report["processes"][0]["start_method"] == "main"
    if name in ("closed_stdio", "redirected_stdio"):
        assert [m["status"] for m in run.modules("csv")] == ["ok"]  # recorded before the end
    if name == "keyboard_interrupt":
        assert run.exit["exception"]["type"] == "KeyboardInterrupt"


def test_abort_in_a_spawned_child(importscope):
    run = importscope(TARGETS / "child_abort.py")
    children = [p for p in run.report["processes"] if p["start_method"] == "spawn"]
    ends = sorted((p["exit"]["signal_name"] or "", p["exit"]["code"] or 0) for p in children)
    assert ends == [("", 0), ("SIGABRT", 0)]
    assert "exit codes: [-6, 0]" in run.stdout
    assert run.exit["code"] == 0


def test_a_syntax_error_in_the_target(importscope, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def broken(:\n    pass\n")
    run = importscope(bad)
    assert run.exit["code"] == 1
    assert run.exit["exception"]["type"] == "SyntaxError"


def test_sigint_to_importscope_reaches_the_target(tmp_path):
    run = run_then_signal(tmp_path, [TARGETS / "hang.py"], signal.SIGINT, "ready")
    assert run.exit["forwarded_signal"] == "SIGINT"
    assert run.exit["signal_name"] == "SIGINT"
    assert run.exit["exception"]["type"] == "KeyboardInterrupt"  # python showed where it was


@pytest.mark.parametrize("mode", ["clear", "reorder", "import_hook", "delete_module"])
def test_tampering_with_the_import_system_does_not_hide_extension_loads(importscope, mode):
    run = importscope(TARGETS / "meta_path_tamper.py", mode, CAPI_SO)
    assert run.exit["code"] == 0, run.stderr
    [finding] = run.findings("duplicate-extension-init")
    assert finding["module_names"] == ["tampered_a._C", "tampered_b._C"]
    removed_note = any("no longer on sys.meta_path" in p for p in run.report["problems"])
    assert removed_note == (mode == "clear")


def test_eight_threads_importing_at_once(importscope, tmp_path):
    run = importscope(TARGETS / "thread_imports.py", tmp_path / "modules")
    assert run.exit["code"] == 0, run.stderr
    names = {m["name"] for m in run.report["modules"] if m["name"].startswith("deep_gemm_thread_")}
    assert len(names) == 200
    orders = [m["order"] for m in run.report["modules"]]
    assert len(orders) == len(set(orders))  # one event sequence, no torn writes
    assert run.report["problems"] == []


def test_one_hundred_thousand_imports(importscope):
    started = time.monotonic()
    run = importscope(TARGETS / "many_imports.py", 100000, 100)
    assert run.exit["code"] == 0, run.stderr
    assert run.stdout.split()[0] == "100100"
    assert len([m for m in run.report["modules"] if m["name"].startswith("deep_gemm_synthetic_")]) == 100
    assert time.monotonic() - started < 120


def test_module_names_and_paths_that_are_not_ascii(importscope, tmp_path):
    package = tmp_path / "paquet_é"
    (package / "deep_gemm_ünïcode").mkdir(parents=True)
    (package / "deep_gemm_ünïcode" / "__init__.py").write_text("VALUE = 'ok'\n")
    run = importscope("-c", f"import sys; sys.path.insert(0, {str(package)!r}); import deep_gemm_ünïcode")
    assert run.exit["code"] == 0, run.stderr
    [module] = run.modules("deep_gemm_ünïcode")
    assert module["origin"] == str(package / "deep_gemm_ünïcode" / "__init__.py")
    assert module["status"] == "ok"


def test_redact_paths_removes_home_and_user(importscope, tmp_path):
    home = tmp_path / "home" / "alice"
    (home / "proj" / "deep_gemm_local").mkdir(parents=True)
    (home / "proj" / "deep_gemm_local" / "__init__.py").write_text("")
    env = dict(os.environ, HOME=str(home))
    run = importscope("--redact-paths", "-c",
                      f"import sys; sys.path.insert(0, {str(home / 'proj')!r}); import deep_gemm_local", env=env)
    text = run.report_path.read_text()
    assert str(home) not in text
    assert run.modules("deep_gemm_local")[0]["origin"] == "~/proj/deep_gemm_local/__init__.py"


def test_the_run_directory_is_private_and_gone_afterwards(tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    code = ("import os, stat, json\n"
            "d = os.environ['IMPORTSCOPE_RUN_DIR']\n"
            "print(json.dumps({'dir': oct(stat.S_IMODE(os.stat(d).st_mode)), "
            "'files': sorted(oct(stat.S_IMODE(os.stat(os.path.join(d, f)).st_mode)) for f in os.listdir(d))}))\n")
    proc = subprocess.run([BIN, "run", "--python", PYTHON, "-o", str(tmp_path / "r.json"), "-c", code],
                          capture_output=True, text=True, env=dict(os.environ, TMPDIR=str(tmpdir)), timeout=60)
    seen = json.loads(proc.stdout)
    assert seen["dir"] == "0o700"
    assert set(seen["files"]) == {"0o600"}
    assert list(tmpdir.iterdir()) == []  # removed after the report was written


def test_when_the_report_cannot_be_written_the_journals_are_kept(tmp_path):
    # The target removes the report's directory, so the report cannot be written at the end: the
    # run directory is kept, with the main process's journal (which lives in memory shared with
    # importscope during the run) written out whole into its file.
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    code = f"import json, csv, shutil; shutil.rmtree({str(out)!r})"
    proc = subprocess.run([BIN, "run", "--python", PYTHON, "--match", "csv", "-o", str(out / "r.json"), "-c", code],
                          capture_output=True, text=True, env=dict(os.environ, TMPDIR=str(tmpdir)), timeout=60)
    assert proc.returncode == 125, proc.stderr
    [kept] = list(tmpdir.iterdir())
    assert f"the journals are kept in {kept}" in proc.stderr
    [journal] = list(kept.glob("journal-*.isj"))
    dump = subprocess.run([BIN, "journal", "dump", str(journal)], capture_output=True, text=True, timeout=60)
    assert dump.returncode == 0, dump.stderr
    events = [json.loads(line) for line in dump.stdout.splitlines()]
    assert events[0]["ev"] == "process"
    assert [e["name"] for e in events if e["ev"] == "begin" and e["name"] == "csv"] == ["csv"]


def test_a_limited_address_space_keeps_the_journal_in_a_file(tmp_path):
    # The shared journal takes 1 GiB of address space; under an RLIMIT_AS the main process writes
    # its journal file as its children do. The limit here is the whole of a 47-bit address space,
    # so that nothing else (a sanitizer's shadow memory, say) runs short.
    import resource

    code = ("import glob, json, os\n"
            "[mine] = glob.glob(os.path.join(os.environ['IMPORTSCOPE_RUN_DIR'], f'journal-{os.getpid()}-*.isj'))\n"
            "print(os.path.getsize(mine))\n")

    def run(limited):
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (2**47 - 1, 2**47 - 1))
        proc = subprocess.run([BIN, "run", "--python", PYTHON, "--match", "json", "-o", str(tmp_path / "r.json"),
                               "-c", code], capture_output=True, text=True, timeout=60,
                              preexec_fn=limit if limited else None)
        assert proc.returncode == 0, proc.stderr
        report = json.loads((tmp_path / "r.json").read_text())
        assert [m["status"] for m in report["modules"] if m["name"] == "json"] == ["ok"]
        return int(proc.stdout)

    assert run(limited=False) == 0  # the file only keeps the name: the records are in shared memory
    assert run(limited=True) > 0


SEND_PROBLEM = """
import os, socket, sys
address = "\\0" + sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])):
    s.sendto(sys.argv[3].encode(), address)
"""


AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def python_nobody_can_run():
    # The matrix's CPythons live under /root, which user nobody cannot enter: the sender is any
    # Python that nobody can start.
    for python in (PYTHON, "/usr/bin/python3", sys.executable):
        if python and subprocess.run(AS_NOBODY + [python, "-S", "-c", "pass"], cwd="/", capture_output=True,
                                     env={"PATH": os.environ["PATH"]}).returncode == 0:
            return python
    return None


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="sends as another user")
def test_the_problem_inbox_refuses_another_users_datagrams(importscope, tmp_path):
    # The inbox's name is in world-readable /proc/net/unix: user nobody must not turn a clean run
    # into importscope's failure, nor write into its report.
    sender = python_nobody_can_run()
    if sender is None:
        pytest.skip("no Python that user nobody can run")
    code = ("import os, subprocess, sys\n"
            f"subprocess.run({AS_NOBODY!r} + [{sender!r}, '-S', "
            f"'-c', {SEND_PROBLEM!r}, os.environ['IMPORTSCOPE_PROBLEMS'], '3', 'FORGED: the journal cannot be "
            "written'], check=True, cwd='/', env={'PATH': os.environ['PATH']})\n")
    run = importscope("-c", code)
    assert run.status == 0, run.stderr
    assert not any("FORGED" in p for p in run.report["problems"])
    # The sender itself may be listed as an untraced Python (its command line holds the text); no
    # line of importscope's own says the forged problem.
    assert not [line for line in run.stderr.splitlines() if line.startswith("importscope:") and "FORGED" in line]
    assert any("3 datagrams from another user (uid 65534)" in p and "refused" in p for p in run.report["problems"])


def test_a_flood_of_problem_messages_is_cut_short_and_counted(importscope, tmp_path):
    code = ("import os, subprocess, sys\n"
            f"subprocess.run([sys.executable, '-S', '-c', {SEND_PROBLEM!r}, os.environ['IMPORTSCOPE_PROBLEMS'], "
            "'20000', 'cannot journal'], check=True)\n")
    started = time.monotonic()
    run = importscope("-c", code, timeout=120)
    assert time.monotonic() - started < 60
    assert run.status == 125  # the traced processes said their journals cannot be written
    kept = [p for p in run.report["problems"] if p == "cannot journal"]
    assert len(kept) == 100
    assert any("19900 more problem messages" in p for p in run.report["problems"])
    assert run.report_path.stat().st_size < 2_000_000


def test_the_target_has_the_descriptors_it_has_under_python(importscope, tmp_path):
    # importscope's own descriptors (the problem inbox's socket) are never the target's: under a
    # tight `ulimit -n` a spawn that works under python must work under importscope.
    code = ("import os\n"
            "open_fds = []\n"
            "for name in os.listdir('/proc/self/fd'):\n"
            "    try:\n"
            "        os.fstat(int(name))\n"
            "        open_fds.append(int(name))\n"
            "    except OSError:\n"
            "        pass  # the listing's own, closed by now\n"
            "print(sorted(open_fds))\n")
    plain = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=60)
    run = importscope("-c", code)
    assert run.status == 0, run.stderr
    assert run.stdout == plain.stdout
