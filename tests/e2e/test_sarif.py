"""--format sarif: SARIF 2.1.0 logs for code scanning, from `report`, `run` and `scan`.

Every log is validated against data/sarif-schema-2.1.0.json, the OASIS SARIF 2.1.0 schema (errata 01,
JSON Schema draft-04) as published in github.com/oasis-tcs/sarif-spec, sarif-2.1/schema/ (commit
e0583813964ec43cea53b6b531b402866095ed1f), under the OASIS IPR Policy (data/README.md).
"""
import ast
import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlparse

import jsonschema
import pytest

from conftest import BIN, BUILD, PROBES, PYTHON, SOURCE, probe

DATA = Path(__file__).parent / "data"
FIXTURE = SOURCE / "tests" / "golden" / "report.json"
_SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
_VALIDATOR = jsonschema.validators.validator_for(_SCHEMA)(_SCHEMA)
KINDS = ["duplicate-extension-init", "partial-alias", "duplicate-source-exec", "native-type-conflict",
         "duplicate-extension-copy", "multiple-installations", "extension-load-failed",
         "package-directory-on-sys-path"]


def sarif(text):
    """The log parsed and checked against the SARIF schema; its one run."""
    log = json.loads(text)
    errors = sorted(_VALIDATOR.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "not SARIF 2.1.0:\n" + "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    assert run["tool"]["driver"]["name"] == "importscope"
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == KINDS
    return run


def report_as_sarif(report, cwd=None):
    out = Path(report).with_suffix(".sarif")
    proc = subprocess.run([BIN, "report", str(report), "--format", "sarif", "-o", str(out)], capture_output=True,
                          text=True, cwd=cwd, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    return sarif(out.read_text())


def path_of(run, location):
    """The file a location names, its URI resolved against SRCROOT where it is relative."""
    artifact = location["physicalLocation"]["artifactLocation"]
    uri = artifact["uri"]
    if "uriBaseId" in artifact:
        uri = run["originalUriBaseIds"][artifact["uriBaseId"]]["uri"] + uri
    parsed = urlparse(uri)
    assert parsed.scheme == "file", uri
    return Path(unquote(parsed.path))


def aliased_tree(parent):
    """The DeepGEMM miniature under `parent`, with vLLM's alias of the top-level package only (its
    fixed variant taken out, as tests/e2e/test_scan.py does)."""
    tree = parent / "tree"
    shutil.copytree(PROBES / "deepgemm_pybind", tree)
    compat = tree / "vllm_mini" / "deep_gemm_compat.py"
    lines = compat.read_text().splitlines(keepends=True)
    [fixed] = [n for n in ast.parse("".join(lines)).body
               if getattr(n, "name", "") == "_expose_deep_gemm_to_flashinfer_fixed"]
    del lines[fixed.lineno - 1:fixed.end_lineno]
    compat.write_text("".join(lines))
    return compat


def scan_tree(parent, *args):
    compat = aliased_tree(parent)
    report = parent / "scan.json"
    proc = subprocess.run([BIN, "scan", "-q", "--python", PYTHON, "-o", str(report), *args, "tree"],
                          cwd=parent, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    return compat, report, proc


def test_a_scanned_alias_is_a_result_at_its_line_relative_to_the_scanned_directory(tmp_path):
    compat, report, _ = scan_tree(tmp_path.resolve())
    [finding] = json.loads(report.read_text())["findings"]
    line = finding["evidence"]["static"]["seen"][0]["line"]
    assert "sys.modules" in compat.read_text().splitlines()[line - 1]

    run = report_as_sarif(report)
    [result] = run["results"]
    assert (result["ruleId"], result["level"]) == ("partial-alias", "error")
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "partial-alias"
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["defaultConfiguration"]["level"] == "error"
    assert result["message"]["text"] == finding["message"]
    assert finding["advice"] in result["properties"]["advice"]
    assert "**Fix:**" in result["message"]["markdown"]
    [location] = result["locations"]
    artifact = location["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "tree/vllm_mini/deep_gemm_compat.py", "uriBaseId": "SRCROOT"}
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.resolve().as_uri() + "/"
    assert location["physicalLocation"]["region"] == {"startLine": line}
    assert path_of(run, location) == compat
    # The importer the scan followed is a related place, with its line.
    related = {(str(path_of(run, place)), place["physicalLocation"].get("region", {}).get("startLine"))
               for place in result["relatedLocations"]}
    assert (str(compat.parent.parent / "flashinfer_mini" / "fused_moe.py"), 15) in related


def test_the_fingerprint_is_the_same_for_the_same_tree_checked_out_elsewhere(tmp_path):
    fingerprints = []
    for place in ("one", "two"):
        (tmp_path / place).mkdir()
        _, report, _ = scan_tree(tmp_path / place)
        [result] = report_as_sarif(report)["results"]
        fingerprints.append(result["partialFingerprints"])
    assert fingerprints[0] == fingerprints[1] and fingerprints[0]["importscope/v1"]


def test_scan_prints_its_summary_as_sarif(tmp_path):
    _, report, proc = scan_tree(tmp_path.resolve(), "--format", "sarif")
    # Under the sanitizers the scanner's python may print a leak report before the log.
    start = 0 if proc.stderr.startswith("{") else proc.stderr.index("\n{") + 1
    run = sarif(proc.stderr[start:])
    assert [r["ruleId"] for r in run["results"]] == ["partial-alias"]
    assert run == report_as_sarif(report)


def test_a_run_with_a_duplicate_init_is_an_error_result(importscope, tmp_path):
    run = importscope("--format", "sarif", probe("deepgemm_pybind"), cwd=BUILD)
    assert run.status == 3, run.stderr
    assert '"version": "2.1.0"' in run.stderr  # the summary on stderr
    log = report_as_sarif(run.report_path)
    results = [r for r in log["results"] if r["ruleId"] == "duplicate-extension-init"]
    assert results and all(r["level"] == "error" for r in results)
    [finding] = run.findings("duplicate-extension-init")
    [result] = results
    assert result["message"]["text"] == finding["message"]
    # The line that stored the alias where the interpreter tells it (CPython 3.12 and later watch
    # sys.modules), else the import that initialized it again: a line of the probe's sources under
    # the working directory.
    [location] = result["locations"]
    assert location["physicalLocation"]["artifactLocation"]["uriBaseId"] == "SRCROOT"
    assert log["originalUriBaseIds"]["SRCROOT"]["uri"] == BUILD.resolve().as_uri() + "/"
    file = path_of(log, location)
    line = location["physicalLocation"]["region"]["startLine"]
    place = {"file": str(file), "line": line}
    set_at = finding["evidence"].get("cause", {}).get("set_at") or []
    if set_at:
        assert place == {"file": set_at[-1]["file"], "line": set_at[-1]["line"]}
        assert "sys.modules" in file.read_text().splitlines()[line - 1]
    else:
        assert file.is_file() and "import" in file.read_text().splitlines()[line - 1]
        sites = [i["call_site"] for i in finding["evidence"]["initializations"]]
        assert place in [{"file": s["file"], "line": s["line"]} for s in sites]


def test_a_report_without_findings_is_a_log_without_results(tmp_path):
    (tmp_path / "empty").mkdir()
    report = tmp_path / "clean.json"
    proc = subprocess.run([BIN, "scan", "-q", "--python", PYTHON, "-o", str(report), str(tmp_path / "empty")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    run = report_as_sarif(report)
    assert run["results"] == []


def test_hostile_names_and_paths_stay_json_strings(tmp_path):
    report = json.loads(FIXTURE.read_text())
    hostile = 'evil"name\n\x1b[2J\\'
    finding = report["findings"][0]
    finding["module_names"][0] = hostile
    finding["message"] = f"{hostile} was initialized twice"
    finding["evidence"]["initializations"][-1]["module"] = hostile
    finding["evidence"]["initializations"][-1]["call_site"]["file"] = '/tmp/a b/"q"\n%.py'
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(report))
    out = tmp_path / "hostile.sarif"
    proc = subprocess.run([BIN, "report", str(path), "--format", "sarif", "-o", str(out)], capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert b"\x1b" not in out.read_bytes()
    run = sarif(out.read_text())
    result = run["results"][0]
    assert result["message"]["text"] == 'evil"name\n\\x1b[2J\\ was initialized twice'
    assert result["properties"]["module_names"][0] == 'evil"name\n\\x1b[2J\\'
    [location] = result["locations"]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "file:///tmp/a%20b/%22q%22%0A%25.py"
    assert location["message"]["text"] == 'imported as evil"name\n\\x1b[2J\\ here'


@pytest.mark.parametrize("command", ["run", "scan"])
def test_an_unknown_format_names_sarif_among_the_formats(command, tmp_path):
    (tmp_path / "x.py").write_text("")
    proc = subprocess.run([BIN, command, "--python", PYTHON, "--format", "sarif2", "-o", str(tmp_path / "r.json"),
                           "x.py"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode in (2, 125), proc.stderr
    assert "use text, markdown, junit, dot or sarif" in proc.stderr


def test_the_golden_log_is_sarif_with_a_result_per_finding_at_its_level():
    run = sarif((SOURCE / "tests" / "golden" / "report.sarif").read_text())
    findings = json.loads(FIXTURE.read_text())["findings"]
    assert [(r["ruleId"], r["level"]) for r in run["results"]] == [(f["kind"], f["severity"]) for f in findings]
    assert len({r["partialFingerprints"]["importscope/v1"] for r in run["results"]}) == len(findings)


def test_a_run_on_debians_pikepdf_gives_a_result_at_the_line_that_loaded_it_again(importscope, tmp_path):
    from test_pythons import DEBIAN_PYTHON, has_debian_libpython
    if not has_debian_libpython() or subprocess.run([DEBIAN_PYTHON, "-c", "import pikepdf"]).returncode != 0:
        pytest.skip("needs Debian's python3 with python3-pikepdf")
    script = tmp_path / "plugins.py"
    script.write_text("import importlib.util, os, pikepdf._qpdf\n"
                      "spec = importlib.util.spec_from_file_location('plugins._qpdf', pikepdf._qpdf.__file__)\n"
                      "try:\n    importlib.util.module_from_spec(spec)\nexcept ImportError:\n    pass\n"
                      "os._exit(0)\n")
    run = importscope(script, python=DEBIAN_PYTHON, cwd=tmp_path)
    assert run.status == 3, run.stderr
    log = report_as_sarif(run.report_path, cwd=tmp_path)
    results = {r["ruleId"]: r for r in log["results"]}
    assert set(results) == {"duplicate-extension-init", "native-type-conflict"}
    duplicate = results["duplicate-extension-init"]
    assert duplicate["level"] == "error"
    [location] = duplicate["locations"]
    assert path_of(log, location) == script
    assert location["physicalLocation"]["region"]["startLine"] == 4
