#include "importscope/analysis/finding.hpp"
#include "importscope/report/document.hpp"

#include <catch2/catch.hpp>

using namespace importscope;
using nlohmann::json;

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
    finding.evidence = {{"key", "a"}};

    const json written = finding;
    CHECK(written.at("severity") == "error");
    CHECK(written.at("evidence") == json{{"key", "a"}});
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
    CHECK(read.evidence == finding.evidence);
    CHECK(read.caused_by == "alias:a");
    CHECK(read.host == "node-1");
    CHECK(json(read) == hosted_json);
}

TEST_CASE("a record keeps what it does not type, and null stays null", "[report]")
{
    const json process = {{"pid", 4}, {"role", "main"}, {"argv", {"python3", "t.py"}}, {"exit", nullptr}};
    const auto read = process.get<report::Process>();
    CHECK(read.pid == 4);
    CHECK(read.role == "main");
    CHECK_FALSE(read.host);
    CHECK(read.rest == json{{"argv", {"python3", "t.py"}}, {"exit", nullptr}});
    CHECK(json(read) == process);

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
    CHECK_FALSE(ended.code);
    CHECK(ended.signal == 6);
    REQUIRE(ended.exception);
    CHECK(ended.exception->type == "ImportError");
    CHECK(json(ended) == exit);
    CHECK(json(report::Exit{}).at("exception").is_null());
}
