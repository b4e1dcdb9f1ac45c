#include "journal_builder.hpp"

#include "importscope/analysis/finding.hpp"
#include "importscope/report/redact_paths.hpp"
#include "importscope/report/report.hpp"
#include "importscope/report/summary.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <csignal>

using namespace importscope;

namespace {

report::RunInfo sample_run()
{
    report::RunInfo run;
    run.argv = {"importscope", "run", "t.py"};
    run.target_kind = "script";
    run.target = "t.py";
    run.python_executable = "/usr/bin/python3";
    run.match = {"deep_gemm"};
    run.started_ns = 1'700'000'000'000'000'000;
    run.ended_ns = run.started_ns + 2'500'000'000;
    run.main_pid = 100;
    return run;
}

} // namespace

TEST_CASE("a crashed run's report names the signal and the uncaught exception", "[report]")
{
    testing::JournalBuilder b;
    b.extension_import("v.deep_gemm._C", "/s/_C.so", {1, 1});
    b.extension_import("deep_gemm._C", "/s/_C.so", {1, 1}, journal::ExceptionInfo{"ImportError", "dup", ""});
    b.uncaught("ImportError", "dup");
    const auto model = analysis::build_model(b.contents());
    const auto findings = analysis::analyze(model);
    auto run = sample_run();
    run.exit.signal = SIGABRT;

    const auto r = report::build_report(run, model, findings);
    CHECK(r.at("schema") == "importscope.report/1");
    CHECK(r.at("run").at("exit").at("signal") == SIGABRT);
    CHECK(r.at("run").at("exit").at("signal_name") == "SIGABRT");
    CHECK(r.at("run").at("exit").at("code").is_null());
    CHECK(r.at("run").at("exit").at("exception").at("type") == "ImportError");
    CHECK(r.at("run").at("duration_s") == Approx(2.5));
    CHECK(r.at("processes").size() == 1);
    CHECK(r.at("processes")[0].at("exit").at("description") == "killed by SIGABRT");
    CHECK(r.at("modules").size() == 2);
    CHECK(r.at("findings").size() == 1);
    CHECK(r.at("summary").at("errors") == 1);
    CHECK(r.at("summary").at("extension_inits") == 2);

    const std::string text = report::render_summary(r, false);
    CHECK(text.find("killed by SIGABRT") != std::string::npos);
    CHECK(text.find("error: duplicate-extension-init") != std::string::npos);
    CHECK(text.find("deep_gemm._C  ImportError: dup") != std::string::npos);
    CHECK(text.find("\x1b[") == std::string::npos);
    CHECK(report::render_summary(r, true).find("\x1b[") != std::string::npos);
}

TEST_CASE("exit descriptions cover every ending", "[report]")
{
    report::ExitInfo exit;
    exit.code = 3;
    CHECK(report::describe_exit(exit) == "exited with status 3");
    exit = {};
    exit.signal = SIGINT;
    exit.timed_out = true;
    CHECK(report::describe_exit(exit) == "killed by SIGINT after the timeout");
    exit = {};
    exit.signal = SIGTERM;
    exit.forwarded_signal = SIGTERM;
    CHECK(report::describe_exit(exit) == "killed by SIGTERM after importscope passed on SIGTERM");
    exit = {};
    exit.signal = SIGSEGV;
    exit.core_dumped = true;
    CHECK(report::describe_exit(exit) == "killed by SIGSEGV (core dumped)");
}

TEST_CASE("a clean run says so", "[report]")
{
    testing::JournalBuilder b;
    b.extension_import("a._C", "/s/a.so", {1, 1});
    const auto model = analysis::build_model(b.contents());
    auto run = sample_run();
    run.exit.code = 0;
    const auto r = report::build_report(run, model, analysis::analyze(model));
    CHECK(r.at("findings").empty());
    CHECK(r.at("run").at("exit").at("exception").is_null());
    CHECK(report::render_summary(r, false).find("no findings") != std::string::npos);
}

TEST_CASE("times are ISO 8601 in UTC with milliseconds", "[report]")
{
    CHECK(report::iso_time(1'700'000'000'123'000'000) == "2023-11-14T22:13:20.123Z");
}

TEST_CASE("the report file written from the model is the whole report tree's text", "[report]")
{
    testing::JournalBuilder b;
    b.extension_import("v.deep_gemm._C", "/home/alice/s/_C.so", {1, 1});
    b.extension_import("deep_gemm._C", "/home/alice/s/_C.so", {1, 1},
                       journal::ExceptionInfo{"ImportError", "type \"Runtime\"\tis\\already\nregistered", "tb\n"});
    b.begin("deep_gemm.utils", "source", "/home/alice/s/utils-\xc3\xa9-\xff.py"); // é, then invalid UTF-8
    b.extension("deep_gemm._bypass", "/s/_bypass.so", std::nullopt);             // no finder record
    b.uncaught("ImportError", "dup");
    const auto model = analysis::build_model(b.contents());
    const auto findings = analysis::analyze(model);
    const auto run = sample_run();
    REQUIRE(model.modules.size() == 4);

    auto whole = report::build_report(run, model, findings, report::ModuleRecords::included);
    const auto head = report::build_report(run, model, findings, report::ModuleRecords::deferred);
    CHECK(head.at("modules").empty());
    CHECK(head.at("summary").at("modules") == 4);
    const auto replace = nlohmann::json::error_handler_t::replace;
    CHECK(report::dump_report(head, model) == whole.dump(2, ' ', false, replace) + "\n");

    SECTION("redacted as the tree would be")
    {
        const report::PathRedaction redaction("/home/alice/", "alice");
        auto redacted_head = head;
        report::redact_paths(redacted_head, redaction);
        report::redact_paths(whole, redaction);
        const std::string text = report::dump_report(redacted_head, model, &redaction);
        CHECK(text == whole.dump(2, ' ', false, replace) + "\n");
        CHECK(text.find("alice") == std::string::npos);
        CHECK(text.find("~/s/_C.so") != std::string::npos);
    }
    SECTION("a report larger than one piece")
    {
        testing::JournalBuilder many;
        for (int i = 0; i < 3000; ++i)
            many.end(many.begin(fmt::format("deep_gemm.m{}", i), "source",
                                fmt::format("/site/{}/m{}.py", std::string(300, 'd'), i)));
        const auto big = analysis::build_model(many.contents());
        const auto big_head = report::build_report(run, big, {}, report::ModuleRecords::deferred);
        std::vector<std::size_t> pieces;
        std::string text;
        report::write_report(big_head, big, nullptr, [&](std::string_view piece) {
            pieces.push_back(piece.size());
            text += piece;
        });
        CHECK(pieces.size() > 1);
        CHECK(text == report::build_report(run, big, {}).dump(2, ' ', false, replace) + "\n");
    }
    SECTION("frames numbered in their journals, each written once and copied")
    {
        // Two processes number their frames alike, with other content: a frame's text is its
        // journal's own.
        auto numbered = [](const std::string& file, int line, std::uint32_t number) {
            return journal::Frame{file, line, "<module>", "__main__", number};
        };
        journal::Frame known;
        known.number = 1;
        known.known = true;
        testing::JournalBuilder first(100);
        first.end(first.begin_below("a", "/home/alice/a.py", {numbered("/home/alice/main.py", 3, 1), numbered("/x/p.py", 1, 2)}));
        first.end(first.begin_below("b", "/home/alice/b.py", {known, numbered("/x/p.py", 2, 3)}));
        first.end(first.begin_below("c", "/home/alice/c.py", {known}));
        testing::JournalBuilder second(200);
        second.end(second.begin_below("d", "/home/alice/d.py", {numbered("/home/alice/other.py", 9, 1)}));
        second.end(second.begin_below("e", "/home/alice/e.py", {known}));
        std::vector<journal::JournalContents> journals;
        journals.push_back(first.contents("journal-100-0.jsonl"));
        journals.push_back(second.contents("journal-200-0.jsonl"));
        const auto shared = analysis::build_model(std::move(journals));
        REQUIRE(shared.modules.size() == 5);
        const auto shared_head = report::build_report(run, shared, {}, report::ModuleRecords::deferred);
        auto shared_whole = report::build_report(run, shared, {});
        const std::string text = report::dump_report(shared_head, shared);
        CHECK(text == shared_whole.dump(2, ' ', false, replace) + "\n");
        CHECK(text.find("other.py") != std::string::npos);

        const report::PathRedaction redaction("/home/alice/", "alice");
        auto redacted_head = shared_head;
        report::redact_paths(redacted_head, redaction);
        report::redact_paths(shared_whole, redaction);
        CHECK(report::dump_report(redacted_head, shared, &redaction) == shared_whole.dump(2, ' ', false, replace) + "\n");
    }
    SECTION("no modules at all")
    {
        const analysis::RunModel empty;
        const auto empty_head = report::build_report(run, empty, {}, report::ModuleRecords::deferred);
        CHECK(report::dump_report(empty_head, empty) ==
              report::build_report(run, empty, {}).dump(2, ' ', false, replace) + "\n");
    }
    SECTION("a tree with its modules in it is refused")
    {
        CHECK_THROWS_AS(report::dump_report(whole, model), std::logic_error);
    }
}
