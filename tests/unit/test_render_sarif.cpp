#include "importscope/analysis/finding.hpp"
#include "importscope/report/document.hpp"
#include "importscope/report/render.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace importscope;
using nlohmann::json;

namespace {

/// A scan's report made in `cwd`, with one partial alias seen at `alias_file`:`line`.
report::Document scan_report(const std::string& cwd, const std::string& alias_file, int line)
{
    report::Document document;
    document.tool = {"importscope", "9.9.9", ""};
    document.scan.emplace();
    document.scan->cwd = cwd;
    report::ReportedFinding finding;
    finding.kind = "partial-alias";
    finding.severity = analysis::Severity::error;
    finding.module_names = {"deep_gemm"};
    finding.file = cwd + "/pkg/__init__.py";
    finding.message = "deep_gemm is an alias";
    finding.advice = "Alias the submodules too:\n    sys.modules[...] = ...";
    finding.evidence = analysis::evidence_of(
        finding.kind, {{"static",
                        {{"seen", json::array({{{"file", alias_file}, {"line", line}},
                                               {{"file", "/elsewhere/user.py"}, {"line", 3}}})}}}});
    document.findings.push_back(finding);
    return document;
}

json sarif_run(const report::Document& document)
{
    const json log = json::parse(report::render_sarif(document));
    CHECK(log.at("version") == "2.1.0");
    REQUIRE(log.at("runs").size() == 1);
    return log.at("runs")[0];
}

std::string fingerprint(const report::Document& document)
{
    return sarif_run(document).at("results")[0].at("partialFingerprints").at("importscope/v1").get<std::string>();
}

} // namespace

TEST_CASE("a SARIF result points at its line, relative to the report's working directory when under it",
          "[report][sarif]")
{
    const json run = sarif_run(scan_report("/src/proj", "/src/proj/pkg/alias 1%.py", 16));
    CHECK(run.at("tool").at("driver").at("version") == "9.9.9");
    CHECK(run.at("originalUriBaseIds") == json{{"SRCROOT", {{"uri", "file:///src/proj/"}}}});
    const json& result = run.at("results")[0];
    CHECK(result.at("ruleId") == "partial-alias");
    CHECK(result.at("level") == "error");
    CHECK(run.at("tool").at("driver").at("rules")[result.at("ruleIndex").get<std::size_t>()].at("id") ==
          "partial-alias");
    CHECK(result.at("locations")[0].at("physicalLocation") ==
          json{{"artifactLocation", {{"uri", "pkg/alias%201%25.py"}, {"uriBaseId", "SRCROOT"}}},
               {"region", {{"startLine", 16}}}});
    const json& related = result.at("relatedLocations");
    REQUIRE(related.size() == 2);
    CHECK(related[0].at("physicalLocation").at("artifactLocation") == json{{"uri", "file:///elsewhere/user.py"}});
    CHECK(related[0].at("physicalLocation").at("region").at("startLine") == 3);
    // The finding's own file has no line: it has no region.
    CHECK(related[1].at("physicalLocation") ==
          json{{"artifactLocation", {{"uri", "pkg/__init__.py"}, {"uriBaseId", "SRCROOT"}}}});
    // The fix is text, in the Markdown of the message and in the properties; never a SARIF fix.
    CHECK(result.at("message").at("markdown").get<std::string>().find("```python\nsys.modules[...] = ...\n```") !=
          std::string::npos);
    CHECK(result.at("properties").at("advice") == "Alias the submodules too:\n    sys.modules[...] = ...");
    CHECK_FALSE(result.contains("fixes"));
}

TEST_CASE("a SARIF fingerprint is the same wherever the tree is, and differs with what was found", "[report][sarif]")
{
    const std::string here = fingerprint(scan_report("/home/a/proj", "/home/a/proj/compat.py", 16));
    CHECK(here == fingerprint(scan_report("/runner/work/proj", "/runner/work/proj/compat.py", 16)));
    CHECK(here != fingerprint(scan_report("/home/a/proj", "/home/a/proj/compat.py", 17)));
    CHECK(here != fingerprint(scan_report("/home/a/proj", "/home/a/proj/other.py", 16)));
    report::Document warning = scan_report("/home/a/proj", "/home/a/proj/compat.py", 16);
    warning.findings[0].kind = "duplicate-source-exec";
    warning.findings[0].severity = analysis::Severity::warning;
    CHECK(here != fingerprint(warning));
    CHECK(sarif_run(warning).at("results")[0].at("level") == "warning");
}

TEST_CASE("a SARIF log has a rule for every finding kind, and none of a clean report's results", "[report][sarif]")
{
    report::Document clean;
    clean.run.emplace();
    clean.run->cwd = "/work";
    const json run = sarif_run(clean);
    CHECK(run.at("results") == json::array());
    const json& rules = run.at("tool").at("driver").at("rules");
    REQUIRE(rules.size() == analysis::k_finding_kinds.size());
    for (std::size_t i = 0; i < rules.size(); ++i) {
        CHECK(rules[i].at("id") == analysis::k_finding_kinds[i]);
        CHECK_FALSE(rules[i].at("shortDescription").at("text").get<std::string>().empty());
        CHECK_FALSE(rules[i].at("help").at("text").get<std::string>().empty());
    }
    CHECK(report::parse_format("sarif") == report::Format::sarif);
}

TEST_CASE("a path outside the working directory, or without one, is its own URI", "[report][sarif]")
{
    report::Document document = scan_report("", "/abs/x:y.py", 2);
    document.findings[0].file = "~/proj/pkg/__init__.py"; // as --redact-paths writes it
    const json run = sarif_run(document);
    CHECK_FALSE(run.contains("originalUriBaseIds"));
    const json& result = run.at("results")[0];
    CHECK(result.at("locations")[0].at("physicalLocation").at("artifactLocation") ==
          json{{"uri", "file:///abs/x%3Ay.py"}});
    CHECK(result.at("relatedLocations")[1].at("physicalLocation").at("artifactLocation") ==
          json{{"uri", "~/proj/pkg/__init__.py"}});
}
