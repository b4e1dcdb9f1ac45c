#include "importscope/analysis/finding.hpp"
#include "importscope/report/compare.hpp"
#include "importscope/report/merge.hpp"
#include "importscope/report/document.hpp"
#include "importscope/report/reader.hpp"
#include "importscope/report/redact_paths.hpp"
#include "importscope/report/scan_report.hpp"
#include "importscope/util/error.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>

using namespace importscope;
using nlohmann::json;

namespace {

std::string golden_text()
{
    std::ifstream in(IMPORTSCOPE_SOURCE_DIR "/tests/golden/report.json");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The message `parse_report` refuses `report` with, or "" when it reads it.
std::string refusal(const json& report)
{
    try {
        report::parse_report(report.dump(), "r.json");
    } catch (const Error& e) {
        CHECK(e.status() == ExitStatus::usage);
        return e.what();
    }
    return {};
}

/// What reading `process` as a report's process throws, or "".
std::string refusal_of_process(const json& process)
{
    try {
        (void)process.get<report::ReportedProcess>();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return {};
}

} // namespace

TEST_CASE("a report read into its records is written back as it was, every field kept", "[report]")
{
    const json golden = json::parse(golden_text());
    const report::Document document = report::parse_report(golden_text(), "report.json");
    REQUIRE(document.run);
    CHECK(document.run->exit.description == golden.at("run").at("exit").at("description"));
    CHECK(document.summary.findings == document.findings.size());
    CHECK(document.findings.at(0).caused_by == golden.at("findings")[0].at("caused_by").get<std::string>());
    CHECK(document.processes.at(0).pid == golden.at("processes")[0].at("pid"));
    CHECK_FALSE(document.processes.at(0).role); // a report from before roles
    CHECK(json(document) == golden);
}

TEST_CASE("a finding's JSON is its declared fields, each way", "[report]")
{
    analysis::Finding finding;
    finding.kind = "partial-alias";
    finding.severity = analysis::Severity::error;
    finding.pid = 7;
    finding.module_names = {"a", "b.a"};
    finding.file = "/s/a/__init__.py";
    finding.message = "m";
    finding.explanation = "e";
    finding.advice = "f";
    finding.evidence = analysis::evidence_of(finding.kind, {{"alias", "b.a"}, {"original", "a"}});

    const json written = finding;
    CHECK(written.at("severity") == "error");
    CHECK(written.at("evidence") == json{{"alias", "b.a"}, {"original", "a"}});
    CHECK(written.at("known_issue").is_null());
    CHECK_FALSE(written.contains("caused_by"));

    finding.caused_by = "alias:a";
    const report::ReportedFinding hosted{finding, "node-1"};
    const json hosted_json = hosted;
    CHECK(hosted_json.at("caused_by") == "alias:a");
    CHECK(hosted_json.at("host") == "node-1");
    const auto read = hosted_json.get<report::ReportedFinding>();
    CHECK(read.kind == finding.kind);
    CHECK(read.severity == analysis::Severity::error);
    CHECK(read.pid == 7);
    CHECK(read.module_names == finding.module_names);
    REQUIRE(std::holds_alternative<analysis::PartialAliasEvidence>(read.evidence));
    CHECK(std::get<analysis::PartialAliasEvidence>(read.evidence).original == "a");
    CHECK(json(read.evidence) == json(finding.evidence));
    CHECK(read.caused_by == "alias:a");
    CHECK(read.host == "node-1");
    CHECK(json(read) == hosted_json);
}

TEST_CASE("a record keeps what it does not type, and null stays null", "[report]")
{
    const json module = {
        {"stack", {0, 1}}, {"call_site", nullptr}, {"initialized_extension", true}, {"name", "a._C"}, {"late", true}};
    const auto read = module.get<report::ReportedModule>();
    CHECK(read.stack == std::vector<std::uint64_t>{0, 1});
    CHECK_FALSE(read.call_site);
    CHECK_FALSE(read.host);
    CHECK(read.rest == json{{"name", "a._C"}, {"late", true}});
    CHECK(json(read) == module);

    const json exit = {{"code", nullptr},
                       {"signal", 6},
                       {"signal_name", "SIGABRT"},
                       {"core_dumped", true},
                       {"timed_out", false},
                       {"stopped_on_finding", false},
                       {"forwarded_signal", nullptr},
                       {"how", "waited"},
                       {"description", "killed by SIGABRT"},
                       {"exception", {{"type", "ImportError"}, {"message", "dup"}, {"traceback", ""}}}};
    const auto ended = exit.get<report::Exit>();
    CHECK_FALSE(ended.process.code);
    CHECK(ended.process.signal == 6);
    CHECK(ended.process.how == ExitKnownBy::waited);
    REQUIRE(ended.exception);
    CHECK(ended.exception->type == "ImportError");
    CHECK(json(ended) == exit);
    CHECK(json(report::Exit{}).at("exception").is_null());
    json vanished = exit;
    vanished["how"] = "vanished"; // the schema's enum: a word no process ends by is refused
    CHECK_THROWS_WITH(vanished.get<report::Exit>(), Catch::Contains("how has the wrong type"));
}

TEST_CASE("a process is typed whole, and one of a report from before roles stays as it was", "[report]")
{
    const json exit = {{"code", 0},
                       {"signal", nullptr},
                       {"signal_name", nullptr},
                       {"core_dumped", false},
                       {"timed_out", false},
                       {"stopped_on_finding", false},
                       {"forwarded_signal", nullptr},
                       {"how", "waited"},
                       {"description", "exited with status 0"}};
    const json frame = {{"file", "/s/t.py"}, {"function", "<module>"}, {"line", 3}, {"module", "__main__"}};
    const json process = {{"pid", 12},
                          {"ppid", 11},
                          {"argv", {"python3", "t.py"}},
                          {"executable", "/usr/bin/python3"},
                          {"python_version", "3.11.7"},
                          {"cwd", "/s"},
                          {"start_method", "spawn"},
                          {"role", "spawn worker"},
                          {"multiprocessing", {{"name", "rank0"}, {"target", "__mp_main__.work"}}},
                          {"journal", "journal-12-0.isj"},
                          {"host", "node-1"},
                          {"programs", {{{"via", "os.system"}, {"executable", ""}, {"argv", {"ls"}}, {"order", 9}}}},
                          {"started_at", "2026-11-30T12:00:00.010Z"},
                          {"ended_at", nullptr},
                          {"exit", exit},
                          {"uncaught_exception", nullptr},
                          {"environment_read",
                           {{{"name", "HOME"}, {"set", true}, {"value", "/root"}, {"read_at", {frame}}},
                            {{"name", "NOPE"}, {"set", false}, {"value", nullptr}, {"read_at", {frame}}}}},
                          {"environment_bulk_read", {{{"at", frame}, {"variables", 40}}}}};
    const auto read = process.get<report::ReportedProcess>();
    CHECK(read.ppid == 11);
    CHECK(read.role == "spawn worker");
    REQUIRE(read.multiprocessing);
    REQUIRE(*read.multiprocessing);
    CHECK((*read.multiprocessing)->name == "rank0");
    CHECK(read.programs.at(0).order == 9);
    CHECK_FALSE(read.ended_at);
    REQUIRE(read.exit);
    CHECK(read.exit->description == "exited with status 0");
    REQUIRE(read.environment_read);
    CHECK_FALSE(read.environment_read->at(1).value);
    CHECK(read.environment_bulk_read->at(0).variables == 40);
    CHECK(json(read) == process);

    // Not started by multiprocessing: null, kept null.
    json other = process;
    other["multiprocessing"] = nullptr;
    const auto not_a_worker = other.get<report::ReportedProcess>();
    REQUIRE(not_a_worker.multiprocessing);
    CHECK_FALSE(*not_a_worker.multiprocessing);
    CHECK(json(not_a_worker) == other);

    // A report from before roles has no role, multiprocessing or environment reads: none is added.
    json before_roles = process;
    for (const char* key : {"role", "multiprocessing", "environment_read", "environment_bulk_read"})
        before_roles.erase(key);
    const auto old = before_roles.get<report::ReportedProcess>();
    CHECK_FALSE(old.role);
    CHECK_FALSE(old.multiprocessing);
    CHECK(json(old) == before_roles);
    CHECK_THAT(refusal_of_process({{"pid", 1}, {"argv", "python3 t.py"}}), Catch::Contains("argv has the wrong type"));
}

TEST_CASE("a report document is redacted as its JSON form is, in every string and command line", "[report]")
{
    report::Document document = report::parse_report(golden_text(), "report.json");
    document.run->argv.insert(document.run->argv.end(), {"--api-key", "k1"});
    document.run->target.args = {"--password", "p1", "postgres://u:pw@db/x"};
    report::ReportedProcess& process = document.processes.at(0);
    process.argv.emplace_back("--hf-token=hf_abcdefghijklmn");
    process.programs.push_back({"subprocess.Popen", "/opt/python3.11/bin/mysql", {"mysql", "-p", "secret"}, 7});
    process.environment_read.emplace().push_back({"DB_URL", true, "postgres://alice:pw@db/x", {}});
    document.problems.emplace_back("cannot reach https://ghp_0123456789abcdefABCDEF0123456789abcd@github.com");
    document.environment = {{"argv", {"python3", "--token", "t1"}}, {"home", "/opt/python3.11/alice"}};
    document.findings.at(0).message += " for alice";
    std::visit(
        [](auto& evidence) {
            if constexpr (requires { evidence.rest; })
                evidence.rest["note"] = "retry with password=hunter2 as alice";
            else
                evidence.json["note"] = "retry with password=hunter2 as alice";
        },
        document.findings.at(0).evidence);

    const report::PathRedaction redaction("/opt/python3.11", "alice");
    json expected = document;
    report::redact_secrets(expected);
    report::redact_paths(expected, redaction);
    CHECK(expected != json(document));
    report::redact(document, &redaction);
    CHECK(json(document) == expected);
    CHECK(document.run->argv.back() == "<redacted>");
    CHECK(document.processes.at(0).programs.back().argv == std::vector<std::string>{"mysql", "-p", "<redacted>"});
    CHECK(document.processes.at(0).executable == "~/bin/python3");
    CHECK(json(document).at("findings")[0].at("evidence").at("note") == "retry with password=<redacted> as <user>");
}

TEST_CASE("a report without a field every report has is refused, naming the report and the field", "[report]")
{
    const json golden = json::parse(golden_text());
    json without = golden;
    without.at("run").erase("target");
    CHECK_THAT(refusal(without), Catch::Contains("r.json: not an importscope report: run has no \"target\""));
    without = golden;
    without.at("findings")[0].erase("kind");
    CHECK_THAT(refusal(without), Catch::Contains("r.json: not an importscope report: findings[0] has no \"kind\""));
    without = golden;
    without.at("summary").at("errors") = "one";
    CHECK_THAT(refusal(without),
               Catch::Contains("r.json: not an importscope report: summary.errors has the wrong type"));
    without = golden;
    without.at("run").at("exit").at("exception") = "ImportError";
    CHECK_THAT(refusal(without), Catch::Contains("run.exit.exception has the wrong type"));
    // What the declarations cannot say, the reader checks once they are read.
    without = golden;
    without.erase("modules");
    CHECK_THAT(refusal(without), Catch::Contains("r.json: not an importscope report: it has no \"modules\""));
    without = golden;
    without.at("findings")[0].at("evidence") = json::array();
    CHECK_THAT(refusal(without), Catch::Contains("findings[0].evidence is not an object"));
    without = golden;
    without.erase("run");
    CHECK_THAT(refusal(without), Catch::Contains("it has no \"run\""));
    without = golden;
    without["scan"] = {{"files", json::object()}, {"python", json::object()}};
    CHECK_THAT(refusal(without), Catch::Contains("it has both \"run\" and \"scan\""));
    CHECK(refusal(golden).empty());

    // Read without the reader's checks, the records say the same of themselves.
    without = golden;
    without.at("findings")[1].erase("file");
    CHECK_THROWS_WITH(without.get<report::Document>(), "findings[1] has no \"file\"");
    without.erase("tool");
    CHECK_THROWS_AS(without.get<report::Document>(), std::invalid_argument);
    CHECK_THROWS_WITH(json::array().get<report::Document>(), "it is not an object");
}

TEST_CASE("merged and scan reports are read back as they were written", "[report]")
{
    json golden = json::parse(golden_text());
    golden.at("untraced")
        .push_back({{"parent_pid", 4001},
                    {"via", "subprocess.Popen"},
                    {"executable", "/usr/bin/python3"},
                    {"argv", {"python3", "-S", "t.py"}},
                    {"reason", "r"},
                    {"advice", "a"}});
    const report::Document one = report::parse_report(golden.dump(), "a.json");
    report::Document another = one; // another run of the same command on the same host
    another.run->started_at = "2031-01-01T00:00:00.000Z";
    const json merged = report::merge_reports({one, another});
    CHECK(merged.at("run").at("merged_from").size() == 2);
    CHECK(merged.at("untraced")[1].at("host") == golden.at("run").at("host"));
    CHECK(merged.at("findings")[3].at("host") == golden.at("run").at("host"));
    CHECK(json(report::parse_report(merged.dump(), "merged.json")) == merged);

    analysis::ScanFacts facts;
    facts.python = {{"executable", "/usr/bin/python3"}, {"version", "3.11.7"}};
    facts.files = {12, 4, 3, 1};
    facts.unparsable = {{"/s/bad.py", "invalid syntax"}};
    analysis::ScannedEntry from_pth;
    from_pth.entry = "/opt/extra";
    from_pth.path = "/opt/extra";
    from_pth.origin = ".pth";
    from_pth.pth = {"/site/extra.pth", 2, {}};
    analysis::ScannedEntry plain = from_pth;
    plain.origin = "site-packages";
    plain.pth = {};
    facts.sys_path = {from_pth, plain};
    facts.startup_code = {{"pth-import", "/site/extra.pth", 1, "import extra"}};
    report::ScanInfo info;
    info.argv = {"importscope", "scan"};
    info.paths = {"/s"};
    analysis::Finding finding;
    finding.kind = "partial-alias";
    finding.module_names = {"a"};
    analysis::PartialAliasEvidence evidence; // a scan's: the alias and where it was seen
    evidence.alias = "a";
    evidence.static_seen = analysis::StaticSeen{{{"/s/compat.py", 3, {}}}, {}};
    finding.evidence = std::move(evidence);
    const json scan = report::build_scan_report(info, facts, {finding}, report::decide_scan_outcome(1));
    const report::Document read = report::parse_report(scan.dump(), "scan.json");
    REQUIRE(read.scan);
    CHECK(read.scan->files.parsed == 3);
    CHECK(read.scan->python.version == "3.11.7");
    CHECK(read.scan->unparsable.size() == 1);
    CHECK(read.scan->outcome->status == 1);
    CHECK(read.scan->paths == std::vector<std::string>{"/s"});
    CHECK(read.scan->argv == info.argv);
    // A sys.path entry names its .pth line when one named it, and has no "pth" otherwise.
    CHECK(scan.at("scan").at("sys_path")[0].at("pth") == json{{"file", "/site/extra.pth"}, {"line", 2}});
    CHECK_FALSE(scan.at("scan").at("sys_path")[1].contains("pth"));
    CHECK(scan.at("scan").at("startup_code")[0].at("text") == "import extra");
    CHECK(scan.at("scan").at("unparsable")[0] == json{{"file", "/s/bad.py"}, {"error", "invalid syntax"}});
    CHECK(read.scan->rest.empty());
    CHECK(json(read) == scan);
}

TEST_CASE("a run given twice is merged once, and said so", "[report]")
{
    const report::Document one = report::parse_report(golden_text(), "a.json");
    const json merged = report::merge_reports({one, one, one});
    const json golden = json::parse(golden_text());
    CHECK(merged.at("run").at("merged_from").size() == 1);
    CHECK(merged.at("processes").size() == golden.at("processes").size());
    CHECK(merged.at("findings").size() == golden.at("findings").size());
    CHECK(merged.at("summary").at("processes") == golden.at("summary").at("processes"));
    CHECK(merged.at("summary").at("processes_with_findings") == golden.at("summary").at("processes_with_findings"));
    CHECK(merged.at("problems").back() ==
          fmt::format("{}: the run started at {} was given 3 times; it is merged once",
                      golden.at("run").at("host").get<std::string>(),
                      golden.at("run").at("started_at").get<std::string>()));
}

TEST_CASE("an integer that its field cannot hold is refused, naming the field", "[report]")
{
    json crafted = json::parse(golden_text());
    crafted.at("frames")[0].at("line") = 2147483648U; // 2^31
    CHECK_THAT(refusal(crafted),
               Catch::Contains("frames[0].line is 2147483648, not an integer from -2147483648 to 2147483647"));
    crafted = json::parse(golden_text());
    crafted.at("processes")[0].at("pid") = std::uint64_t{1} << 63;
    CHECK_THAT(refusal(crafted), Catch::Contains("processes[0].pid is 9223372036854775808, not an integer from"));
    crafted.at("processes")[0].at("pid") = std::numeric_limits<std::int64_t>::min();
    CHECK_THAT(refusal(crafted), Catch::Contains("processes[0].pid is -9223372036854775808, not an integer from"));

    // 2^64 is past every JSON integer the parser holds: it is read as a double, and refused too.
    crafted = json::parse(golden_text());
    crafted.at("frames")[0].at("line") = std::numeric_limits<std::uint64_t>::max();
    std::string text = crafted.dump();
    const std::string max = std::to_string(std::numeric_limits<std::uint64_t>::max());
    text.replace(text.find(max), max.size(), "18446744073709551616");
    CHECK_THROWS_WITH(report::parse_report(text, "r.json"), Catch::Contains("frames[0].line is ") &&
                                                                Catch::Contains(", not an integer from"));
}

TEST_CASE("ranks are written as ranges", "[merge]")
{
    CHECK(report::ranges_text({}).empty());
    CHECK(report::ranges_text({7}) == "7");
    CHECK(report::ranges_text({0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 31}) == "0-6,8-10,31");
}
