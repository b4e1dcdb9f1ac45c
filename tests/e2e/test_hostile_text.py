"""Text a target controls (module names, paths, exception messages) is escaped by every renderer:
it never drives the terminal, forges a line of the summary, or becomes Markdown of its own."""
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from conftest import BIN, PROBES, PYTHON, run_on_a_terminal

HOSTILE = ("evil\n## No findings, all clear\n![x](http://e/x.png) <img src=x> a|b \x1b[2J\x1b[H\x07\r"
           "\nimportscope: exit status 0\nimportscope: no findings\n")
FORGED = ("importscope: no findings", "importscope: exit status 0")


def _cli(*args):
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=120)


def _so():
    return next((PROBES / "deepgemm_capi/vllm_mini/third_party/deep_gemm").glob("_C*.so"))


@pytest.fixture
def hostile_run(importscope, tmp_path):
    """A run whose finding names a hostile module and whose target dies of a hostile exception."""
    (tmp_path / "hostile.py").write_text(
        "import importlib.util, sys\n"
        "for name in (sys.argv[2], sys.argv[3]):\n"
        "    spec = importlib.util.spec_from_file_location(name, sys.argv[1])\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "raise RuntimeError(sys.argv[2])\n")
    run = importscope(tmp_path / "hostile.py", _so(), HOSTILE + "._C", "plain._C")
    assert run.status == 3, run.stderr
    return run


def _assert_plain_terminal_text(text):
    assert not re.search("[\x1b\x07\r\x80-\x9f]", text)
    assert not [line for line in text.splitlines() if line.startswith(FORGED)]


def test_the_summary_on_stderr_has_no_control_character_nor_a_forged_line(hostile_run):
    # The target's own traceback comes first, raw: it is the target's. importscope's summary follows.
    summary = hostile_run.stderr[hostile_run.stderr.rindex("importscope: target "):]
    _assert_plain_terminal_text(summary)
    assert "\\x1b[2J" in summary and "\\nimportscope: no findings" in summary


def test_the_text_report_has_no_control_character_nor_a_forged_line(hostile_run):
    proc = _cli("report", hostile_run.report_path, "--format", "text")
    assert proc.returncode == 0, proc.stderr
    _assert_plain_terminal_text(proc.stdout)


def test_diff_prints_no_control_character(hostile_run, tmp_path):
    empty = tmp_path / "empty.json"
    assert _cli("run", "--python", PYTHON, "-q", "-o", empty, "-c", "pass").returncode == 0
    proc = _cli("diff", empty, hostile_run.report_path)
    assert proc.returncode == 1, proc.stderr
    assert "evil" in proc.stdout
    assert not re.search("[\x1b\x07\r]", proc.stdout)


class _Html(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.headings, self.rows, self.open = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.open.append(tag)
        if tag == "tr":
            self.rows.append(0)
        if tag in ("td", "th"):
            self.rows[-1] += 1
        if re.fullmatch("h[1-6]", tag):
            self.headings.append("")

    def handle_endtag(self, tag):
        while self.open and self.open.pop() != tag:
            pass

    def handle_data(self, data):
        if any(re.fullmatch("h[1-6]", t) for t in self.open):
            self.headings[-1] += data


def test_the_markdown_report_holds_no_heading_image_or_html_of_the_target(hostile_run):
    markdown_it = pytest.importorskip("markdown_it", reason="Debian's python3-markdown-it renders the Markdown")
    proc = _cli("report", hostile_run.report_path, "--format", "markdown")
    assert proc.returncode == 0, proc.stderr
    assert not re.search("[\x1b\x07\r]", proc.stdout)
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(proc.stdout)
    page = _Html()
    page.feed(html)
    assert not [h for h in page.headings if "No findings" in h]
    assert "img" not in page.tags
    assert set(page.rows) == {2}  # the summary table: every row two cells, whatever "|" the text holds
    assert "evil" in html and "a|b" in html


def test_the_status_line_escapes_a_path_with_an_escape_sequence(tmp_path):
    directory = tmp_path / "\x1b[2J\x1b[Hx"
    directory.mkdir()
    so = directory / _so().name
    shutil.copy(_so(), so)
    (tmp_path / "twice.py").write_text(
        "import importlib.util, sys, time\n"
        "for name in ('one._C', 'two._C'):\n"
        "    spec = importlib.util.spec_from_file_location(name, sys.argv[1])\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "time.sleep(0.6)\n")
    status, output = run_on_a_terminal(
        [BIN, "run", "--python", PYTHON, "-o", str(tmp_path / "r.json"), str(tmp_path / "twice.py"), str(so)],
        columns=400, stdout=subprocess.DEVNULL)
    assert "| duplicate-extension-init in pid" in output, output
    assert "\x1b[2J" not in output and "\x1b[H" not in output
    assert "\\x1b[2J\\x1b[Hx" in output


def test_the_status_line_sets_its_scrolling_region_again_after_the_target_reset_it(tmp_path):
    # A target that resets the region scrolls the whole screen; its current line may then stand on
    # the last row. Each redraw sets the region again first and frees the last row (ESC D, up).
    status, output = run_on_a_terminal(
        [BIN, "run", "--python", PYTHON, "-o", str(tmp_path / "r.json"), "-c",
         "import sys, time\ntime.sleep(0.3)\nsys.stderr.write('\\x1b[r' + 'line\\n' * 30 + 'partial')\n"
         "sys.stderr.flush()\ntime.sleep(0.5)\n"])
    assert status == 0
    after = output[output.index("\x1b[rline"):]
    redraw = after.index("\x1b[24;1H\x1b[2Kimportscope: ")
    assert "\x1b[r\x1b8\x1bD\x1b[1A\x1b7\x1b[1;23r" in after[:redraw]
