"""The journals as traced processes write them: binary records in files with a versioned header, a
child's end recorded from a signal handler or os._exit, and `importscope journal dump` for people."""
import json
import os
import struct
import subprocess

from conftest import BIN

HEADER = b"# importscope journal\n" + struct.pack("=I", 4)


def _dump(path):
    return subprocess.run([BIN, "journal", "dump", str(path)], capture_output=True, text=True, timeout=60)


def test_a_child_killed_by_sigsegv_or_ended_by_os_exit_still_shows_its_end(importscope):
    # Each child's end is recorded in its own journal file: by the fatal signal's handler, and by
    # importscope's os._exit, both written without allocating.
    code = ("import subprocess, sys\n"
            "subprocess.run([sys.executable, '-c', 'import json, ctypes; ctypes.string_at(0)'])\n"
            "subprocess.run([sys.executable, '-c', 'import csv, os; os._exit(7)'])\n")
    run = importscope("--match", "json", "--match", "csv", "-c", code)
    assert run.status == 0, run.stderr
    children = [p for p in run.report["processes"] if p["start_method"] == "exec"]
    assert len(children) == 2, run.report["processes"]
    crashed, exited = sorted(children, key=lambda p: p["pid"])
    assert crashed["exit"]["how"] == "signal" and crashed["exit"]["signal_name"] == "SIGSEGV", crashed
    assert exited["exit"]["how"] == "os._exit" and exited["exit"]["code"] == 7, exited
    assert [m["status"] for m in run.modules("json")] == ["ok"]
    assert [m["status"] for m in run.modules("csv")] == ["ok"]
    assert not [p for p in run.report["problems"] if "journal" in p], run.report["problems"]


def test_journal_dump_prints_a_childs_journal_one_json_object_per_record(importscope, tmp_path):
    # The child copies its own journal, as far as it is written, out of the run directory.
    copy = tmp_path / "copy.isj"
    child = ("import csv, glob, os, shutil\n"
             "[mine] = glob.glob(os.path.join(os.environ['IMPORTSCOPE_RUN_DIR'], f'journal-{os.getpid()}-*.isj'))\n"
             f"shutil.copy(mine, {str(copy)!r})\n"
             "print(os.getpid())\n")
    run = importscope("--match", "csv", "-c",
                      f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}])")
    assert run.status == 0, run.stderr
    pid = int(run.stdout)
    assert copy.read_bytes().startswith(HEADER)

    dump = _dump(copy)
    assert dump.returncode == 0, dump.stderr
    assert dump.stderr == ""
    events = [json.loads(line) for line in dump.stdout.splitlines()]
    assert events[0]["ev"] == "process" and events[0]["pid"] == pid and events[0]["start_method"] == "exec"
    [begin] = [e for e in events if e["ev"] == "begin" and e["name"] == "csv"]
    assert begin["pid"] == pid and begin["kind"] == "source"
    assert all(isinstance(frame, dict) for frame in begin["stack"])  # every frame whole
    # Every declared field, empty or not: a frame's, after its number when it has one (`id`); a
    # begin's, with its file's identity from importlib's own stat and the real path left to the
    # supervisor.
    for frame in begin["stack"]:
        keys = list(frame)
        assert keys[-4:] == ["file", "line", "function", "module"] and keys[:-4] in ([], ["id"]), frame
    assert {"origin", "realpath", "loader", "parent", "stack", "stdlib", "late", "by_path"} <= set(begin), begin
    assert begin["late"] is False and begin["realpath"] == "", begin
    found = os.stat(begin["origin"])
    assert begin["identity"] == {"dev": found.st_dev, "ino": found.st_ino}, begin
    assert [e["seq"] for e in events[1:]] == sorted(e["seq"] for e in events[1:])

    # Cut short inside its last record, as a process killed mid-write leaves it: the rest is
    # printed, the cut record named, and the status says so.
    whole = copy.read_bytes()
    cut = tmp_path / "cut.isj"
    cut.write_bytes(whole[:-3])
    damaged = _dump(cut)
    assert damaged.returncode == 1
    assert len(damaged.stdout.splitlines()) == len(events) - 1
    assert f"cut.isj: record {len(events)} is incomplete" in damaged.stderr


def test_journal_dump_refuses_what_is_not_a_journal_of_its_version(tmp_path):
    other = tmp_path / "other.isj"
    other.write_bytes(HEADER[:-4] + struct.pack("=I", 3))
    lines = tmp_path / "journal-1-0.jsonl"
    lines.write_text('{"ev":"process","format":2,"pid":1}\n')
    for path, message in [(tmp_path / "missing.isj", "cannot read journal"),
                          (other, "is a journal of format version 3, and this importscope reads version 4"),
                          (lines, "is not an importscope journal"),
                          (tmp_path, "is a directory")]:
        result = _dump(path)
        assert result.returncode == 2, (path, result.stderr)
        assert result.stdout == ""
        assert result.stderr.startswith("importscope: error: ") and message in result.stderr, result.stderr
    usage = subprocess.run([BIN, "journal", "dump", "--help"], capture_output=True, text=True, timeout=60)
    assert usage.returncode == 0 and "journal-<pid>-<n>.isj" in usage.stdout


def test_a_journal_of_another_version_in_the_run_directory_is_named_and_skipped(importscope):
    code = ("import os, struct\n"
            "path = os.path.join(os.environ['IMPORTSCOPE_RUN_DIR'], 'journal-999997-0.isj')\n"
            "with open(path, 'wb') as f:\n"
            "    f.write(b'# importscope journal\\n' + struct.pack('=I', 99) + b'\\xff' * 64)\n")
    run = importscope("-c", code)
    assert run.status == 0, run.stderr
    assert any(p.startswith("journal-999997-0.isj: a journal of format version 99") for p in run.report["problems"])


def test_a_module_file_deleted_right_after_its_import_keeps_its_identity(importscope, tmp_path):
    # The identity comes from importlib's own stat at the import, not from a look the supervisor
    # takes when it reads the journal: a suite that imports from a temporary directory and removes
    # it at once still has its files named by identity, which tells one file under two names.
    scratch = tmp_path / "scratch"
    (scratch / "tmp_pkg").mkdir(parents=True)
    (scratch / "tmp_pkg" / "__init__.py").write_text("")
    (scratch / "tmp_pkg" / "mod.py").write_text("")
    expected = {name: os.stat(scratch / "tmp_pkg" / name) for name in ("__init__.py", "mod.py")}
    code = ("import shutil, sys\n"
            f"sys.path.insert(0, {str(scratch)!r})\n"
            "import tmp_pkg.mod\n"
            f"shutil.rmtree({str(scratch)!r})\n")
    run = importscope("--match", "tmp_pkg", "-c", code)
    assert run.status == 0, run.stderr
    assert not scratch.exists()
    for name, file in (("tmp_pkg", "__init__.py"), ("tmp_pkg.mod", "mod.py")):
        [record] = run.modules(name)
        assert record["origin"] == str(scratch / "tmp_pkg" / file)
        assert record["file_identity"] == {"dev": expected[file].st_dev, "ino": expected[file].st_ino}, record
