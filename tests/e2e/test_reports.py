"""Reports for people and for CI: render, diff, merge, gate; and inputs that are not reports."""
import json
import os
import shutil
import subprocess
import time
import xml.etree.ElementTree as ElementTree

import pytest

from conftest import BIN, PROBES, PYTHON, SANITIZED, SOURCE, Run, probe, validate, with_frames

GOLDEN = SOURCE / "tests" / "golden"
FIXTURE = GOLDEN / "report.json"
EXTENSIONS = {"text": "txt", "markdown": "md", "junit": "junit.xml", "dot": "dot", "sarif": "sarif"}


def importscope_cmd(*args, cwd=None, env=None):
    env = dict(env or os.environ, NO_COLOR="1")
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_each_format_matches_its_golden_file(fmt):
    proc = importscope_cmd("report", FIXTURE, "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    golden = GOLDEN / f"report.{EXTENSIONS[fmt]}"
    if os.environ.get("IMPORTSCOPE_UPDATE_GOLDEN") == "1":
        golden.write_text(proc.stdout)
    assert proc.stdout == golden.read_text()


def test_junit_is_well_formed_and_fails_each_kind_found():
    proc = importscope_cmd("report", FIXTURE, "--format", "junit")
    root = ElementTree.fromstring(proc.stdout)
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert len(cases) == 8  # one per finding kind
    failing = sorted(name for name, case in cases.items() if case.find("failure") is not None)
    expected = sorted({f["kind"] for f in json.loads(FIXTURE.read_text())["findings"]})
    assert failing == expected
    assert root.get("failures") == str(len(expected))


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz is not installed")
def test_dot_output_renders_with_graphviz(tmp_path):
    proc = importscope_cmd("report", FIXTURE, "--format", "dot", "-o", tmp_path / "g.dot")
    assert proc.returncode == 0 and proc.stdout == ""
    # graphviz is not importscope's: under `make sanitize` it runs without the preloaded ASan runtime.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    svg = subprocess.run(["dot", "-Tsvg", str(tmp_path / "g.dot")], capture_output=True, text=True, env=env)
    assert svg.returncode == 0, svg.stderr
    assert "<svg" in svg.stdout and "deep_gemm._C" in svg.stdout


def test_markdown_for_an_issue():
    md = importscope_cmd("report", FIXTURE, "--format", "markdown").stdout
    assert md.startswith("# importscope report\n")
    assert "| findings | 2 errors, 2 warnings |" in md
    assert "### error: duplicate-extension-init" in md
    assert "**Known issue [vllm#59904](https://github.com/vllm-project/vllm/issues/59904):**" in md
    assert "<details><summary>Environment</summary>" in md
    assert "<details><summary>import stack</summary>" in md


@pytest.fixture(scope="module")
def broken_and_fixed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    for name in ("broken", "fixed"):
        subprocess.run([BIN, "run", "-q", "--python", PYTHON, "-o", str(tmp / f"{name}.json"),
                        str(probe("deepgemm_pybind", f"{name}.py"))],
                       capture_output=True, timeout=120)
    return tmp / "broken.json", tmp / "fixed.json"


def test_diff_says_the_duplicate_disappeared_after_the_fix(broken_and_fixed):
    broken, fixed = broken_and_fixed
    proc = importscope_cmd("diff", broken, fixed)
    assert proc.returncode == 0, proc.stderr
    assert "disappeared (5):" in proc.stdout
    assert "error duplicate-extension-init: duplicate-extension-init | vllm_mini.third_party.deep_gemm._C,deep_gemm._C" \
           in proc.stdout
    assert "appeared (0):" in proc.stdout


def test_diff_fails_when_a_new_error_appears(broken_and_fixed):
    broken, fixed = broken_and_fixed
    assert importscope_cmd("diff", fixed, broken).returncode == 1
    assert importscope_cmd("diff", fixed, broken, "--fail-on", "none").returncode == 0
    assert importscope_cmd("diff", fixed, broken, "--fail-on", "multiple-installations").returncode == 0
    assert importscope_cmd("diff", broken, broken).returncode == 0  # nothing new


def test_merge_keeps_every_host(broken_and_fixed, tmp_path):
    broken, fixed = broken_and_fixed
    out = tmp_path / "all.json"
    proc = importscope_cmd("merge", broken, fixed, "-o", out)
    assert proc.returncode == 0, proc.stderr
    merged = json.loads(out.read_text())
    validate(merged)
    a, b = json.loads(broken.read_text()), json.loads(fixed.read_text())
    assert merged["summary"]["processes"] == len(a["processes"]) + len(b["processes"])
    assert merged["summary"]["findings"] == len(a["findings"])
    assert all(p["host"] for p in merged["processes"])
    assert len(merged["run"]["merged_from"]) == 2
    # a merged report is a report: it renders and diffs
    assert importscope_cmd("report", out).returncode == 0


def test_run_fail_on_and_format(importscope):
    run = importscope("--fail-on", "none", probe("deepgemm_capi"))
    assert run.status == 0 and run.findings()
    run = importscope("--fail-on", "warning", PROBES / "double_import" / "main.py")
    assert run.status == 3
    run = importscope("--format", "markdown", probe("deepgemm_capi", "fixed.py"))
    assert "# importscope report" in run.stderr
    bad = importscope("--fail-on", "nonsense", probe("deepgemm_capi", "fixed.py"))
    assert bad.status == 125 and "unknown finding kind" in bad.stderr


def _write(path, data):
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


@pytest.mark.parametrize("name, content, message", [
    ("empty.json", "", "the file is empty"),
    ("truncated.json", FIXTURE.read_text()[:5000], "not valid JSON"),
    ("array.json", "[1, 2, 3]", "not a JSON object"),
    ("future.json", json.dumps({**json.loads(FIXTURE.read_text()), "schema": "importscope.report/3"}),
     'schema "importscope.report/3" is not supported'),
    ("missing.json", json.dumps({"schema": "importscope.report/2"}), 'has no "tool"'),
    ("garbage.json", "50 MB of binary garbage", "not valid JSON"),
], ids=["empty", "truncated", "array", "schema-3", "missing-fields", "50MB-garbage"])
def test_inputs_that_are_not_reports_are_refused_in_one_line(tmp_path, name, content, message):
    if name == "garbage.json":
        content = b"\x00\xff" * (25 * 1024 * 1024)
    bad = _write(tmp_path / name, content)
    out = tmp_path / "out.md"
    for args in (["report", bad, "--format", "markdown", "-o", out], ["diff", bad, FIXTURE],
                 ["merge", FIXTURE, bad, "-o", out]):
        proc = importscope_cmd(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr
        assert not out.exists()


def test_a_50_megabyte_report_is_read(tmp_path):
    report = json.loads(FIXTURE.read_text())
    module = report["modules"][0]
    copies = []
    while len(json.dumps(copies)) < 50 * 1024 * 1024 // 2:
        copies.extend([dict(module, order=i) for i in range(len(copies), len(copies) + 20000)])
    report["modules"] = copies * 2
    big = tmp_path / "big.json"
    big.write_text(json.dumps(report))
    assert big.stat().st_size > 50 * 1024 * 1024
    started = time.monotonic()
    proc = importscope_cmd("report", big, "--format", "junit")
    assert proc.returncode == 0, proc.stderr
    # AddressSanitizer's build (make sanitize) reads it about three times slower.
    limit = 180 if SANITIZED else 60
    assert time.monotonic() - started < limit
    assert "<testsuites" in proc.stdout


@pytest.mark.parametrize("script, expected", [("broken.py", 1), ("fixed.py", 0)])
def test_the_nightly_gate_archives_reports_and_fails_on_errors(tmp_path, script, expected):
    env = dict(os.environ, IMPORTSCOPE=BIN, PYTHON=os.environ["IMPORTSCOPE_PYTHON"], IMPORTSCOPE_TIMEOUT="120")
    proc = subprocess.run(["sh", str(SOURCE / "tools" / "nightly-gate.sh"), str(tmp_path / "artifacts"),
                           str(probe("deepgemm_pybind", script))], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == expected, proc.stdout + proc.stderr
    artifacts = tmp_path / "artifacts"
    for name in ("scan", "reproducer", "vllm-deep-gemm-alias"):
        for suffix in (".json", ".md", ".junit.xml", ".log"):
            assert (artifacts / f"{name}{suffix}").exists(), name + suffix
    # no vLLM in this environment: the bundled probe's target exits 2, which is no finding
    assert json.loads((artifacts / "vllm-deep-gemm-alias.json").read_text())["run"]["exit"]["code"] == 2
    ElementTree.parse(artifacts / "reproducer.junit.xml")
    # The scan came first, and found no error in the interpreter's environment.
    assert "nightly-gate: scan: no error finding" in proc.stdout.splitlines()[0]
    assert json.loads((artifacts / "scan.json").read_text())["scan"]["outcome"]["reason"] in ("ok", "findings")


def test_the_golden_fixture_is_a_valid_report():
    validate(json.loads(FIXTURE.read_text()))


def as_schema_1(report):
    """The report as importscope.report/1 wrote it: each module record's frames whole."""
    old = {key: value for key, value in report.items() if key != "frames"}
    old["schema"] = "importscope.report/1"
    old["modules"] = [with_frames(report, m) for m in report["modules"]]
    return old


def test_a_report_of_schema_1_reads_as_its_schema_2(tmp_path):
    report = json.loads(FIXTURE.read_text())
    assert report["frames"] and any(m["stack"] for m in report["modules"])
    old_report = as_schema_1(report)
    old = _write(tmp_path / "old.json", json.dumps(old_report))
    for fmt in sorted(EXTENSIONS):
        proc = importscope_cmd("report", old, "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == (GOLDEN / f"report.{EXTENSIONS[fmt]}").read_text(), fmt
    # merge writes schema 2, whose records name the same frames (of another run: one run is merged once).
    old_report["run"]["started_at"] = "2031-01-01T00:00:00.000Z"
    another = _write(tmp_path / "another.json", json.dumps(old_report))
    proc = importscope_cmd("merge", another, FIXTURE, "-o", tmp_path / "merged.json")
    assert proc.returncode == 0, proc.stderr
    merged = json.loads((tmp_path / "merged.json").read_text())
    validate(merged)
    expected = [with_frames(report, m) for m in report["modules"]] * 2
    got = [{k: v for k, v in with_frames(merged, m).items() if k != "host"} for m in merged["modules"]]
    assert got == expected


def test_a_report_with_a_wrongly_typed_field_deep_inside_is_refused_in_one_line(tmp_path):
    report = json.loads(FIXTURE.read_text())
    report["findings"][0]["evidence"]["initializations"] = [5, "x"]
    bad = _write(tmp_path / "odd.json", json.dumps(report))
    proc = importscope_cmd("report", bad, "--format", "markdown", "-o", tmp_path / "out.md")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"importscope: error: {bad}: not an importscope report: ")
    assert proc.stderr.count("\n") == 1
    assert not (tmp_path / "out.md").exists()


def test_the_records_come_first_and_a_child_importing_after_the_main_process_finalized_is_in_them(
        importscope, tmp_path):
    """The module records are written while the main process finalizes (here for 0.3 s, in a
    __del__); a traced child that imports after that makes importscope write the report again, whole."""
    script = tmp_path / "late_child.py"
    script.write_text("import subprocess, sys, time\n"
                      "class SlowToGo:\n"
                      "    def __del__(self, sleep=time.sleep):\n"
                      "        sleep(0.3)\n"
                      "kept = SlowToGo()\n"
                      "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(0.4); import csv'])\n")
    run = importscope("--match", "*", script)
    assert run.status == 0, run.stderr
    assert list(run.report)[:3] == ["schema", "frames", "modules"]
    main_pid = next(p["pid"] for p in run.report["processes"] if p["role"] == "main")
    children = [p["pid"] for p in run.report["processes"] if p["pid"] != main_pid]
    assert len(children) == 1
    assert [m["pid"] for m in run.modules("csv")] == children
    assert run.modules("subprocess")[0]["pid"] == main_pid
    assert not list(tmp_path.glob(".report.json.*"))  # the temporary begun early is gone


def test_the_markdown_report_renders_its_code_as_code_under_commonmark():
    # GitHub renders CommonMark: a fix's code right after its paragraph would fold into the
    # paragraph, and a fence at column 0 inside a numbered list would end the list.
    markdown_it = pytest.importorskip("markdown_it", reason="Debian's python3-markdown-it renders the Markdown")
    from html.parser import HTMLParser

    proc = importscope_cmd("report", FIXTURE, "--format", "markdown")
    assert proc.returncode == 0, proc.stderr
    html = markdown_it.MarkdownIt("commonmark").render(proc.stdout)

    class Blocks(HTMLParser):
        def __init__(self):
            super().__init__()
            self.open, self.code, self.in_list = [], [], []

        def handle_starttag(self, tag, attrs):
            self.open.append(tag)

        def handle_endtag(self, tag):
            while self.open and self.open.pop() != tag:
                pass

        def handle_data(self, data):
            if self.open[-2:] == ["pre", "code"]:
                self.code.append(data)
                self.in_list.append("li" in self.open)

    blocks = Blocks()
    blocks.feed(html)
    fixes = [c for c in blocks.code if "for name, module in list(sys.modules.items()):" in c]
    assert fixes and all(c.startswith("for name, module") for c in fixes), blocks.code
    stacks = [inside for c, inside in zip(blocks.code, blocks.in_list) if " in <module>" in c]
    assert stacks and all(stacks), "every import stack stays inside its numbered item"


def test_merge_of_one_run_given_many_times_counts_it_once(tmp_path):
    out = tmp_path / "merged.json"
    # 500 copies: a rank count of a large job; the sanitizer build (make sanitize) merges them in
    # about 20 s, well inside importscope_cmd's time limit even on a loaded machine.
    proc = importscope_cmd("merge", *([FIXTURE] * 500), "-o", out)
    assert proc.returncode == 0, proc.stderr
    merged = json.loads(out.read_text())
    validate(merged)
    original = json.loads(FIXTURE.read_text())
    assert len(merged["processes"]) == merged["summary"]["processes"] == 1
    assert merged["summary"]["processes_with_findings"] == 1
    assert len(merged["findings"]) == merged["summary"]["findings"] == len(original["findings"])
    assert len(merged["modules"]) == len(original["modules"])
    assert len(merged["run"]["merged_from"]) == 1
    host = original["run"]["host"]
    assert f"{host}: the run started at {original['run']['started_at']} was given 500 times; it is merged once" \
        in merged["problems"]


@pytest.mark.parametrize("where, value, field", [
    ("frame line", 2 ** 64, "frames[0].line"),
    ("frame line", 2 ** 31, "frames[0].line"),
    ("pid", 2 ** 63, "processes[0].pid"),
    ("pid", -(2 ** 63), "processes[0].pid"),
], ids=["line-2^64", "line-2^31", "pid-2^63", "pid--2^63"])
def test_out_of_range_integers_in_a_report_are_refused(tmp_path, where, value, field):
    report = json.loads(FIXTURE.read_text())
    if where == "pid":
        report["processes"][0]["pid"] = value
    else:
        report["frames"][0]["line"] = value
    crafted = _write(tmp_path / "crafted.json", json.dumps(report))
    out = tmp_path / "merged.json"
    for args in (["merge", FIXTURE, crafted, "-o", out], ["report", crafted]):
        proc = importscope_cmd(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1, proc.stderr
        assert f"{field} is " in proc.stderr and ", not an integer from " in proc.stderr, proc.stderr
        assert not out.exists()


def test_a_250_character_report_name_is_written(importscope, tmp_path):
    name = tmp_path / ("r" * 245 + ".json")
    run = importscope("-c", "pass", output=name)
    assert run.status == 0, run.stderr
    assert json.loads(name.read_text())["run"]["outcome"]["reason"] == "ok"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left
