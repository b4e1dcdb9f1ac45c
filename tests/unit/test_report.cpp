#include "journal_builder.hpp"

#include "importscope/analysis/finding.hpp"
#include "importscope/report/compare.hpp"
#include "importscope/report/merge.hpp"
#include "importscope/report/reader.hpp"
#include "importscope/report/redact_paths.hpp"
#include "importscope/analysis/conclusions.hpp"
#include "importscope/report/report.hpp"
#include "importscope/report/summary.hpp"
#include "importscope/util/error.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
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

    const auto r = nlohmann::json::parse(report::report_text(report::build_report(run, model, analysis::conclude(model, findings)), model));
    CHECK(r.at("schema") == "importscope.report/2");
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

    const auto document = r.get<report::Document>();
    const std::string text = report::render_summary(document, false);
    CHECK(text.find("killed by SIGABRT") != std::string::npos);
    CHECK(text.find("error: duplicate-extension-init") != std::string::npos);
    CHECK(text.find("deep_gemm._C  ImportError: dup") != std::string::npos);
    CHECK(text.find("\x1b[") == std::string::npos);
    CHECK(report::render_summary(document, true).find("\x1b[") != std::string::npos);
}

TEST_CASE("exit descriptions cover every ending", "[report]")
{
    const auto ended = [](std::optional<int> code, std::optional<int> signal, ExitKnownBy how = ExitKnownBy::waited) {
        ProcessExit exit;
        exit.code = code;
        exit.signal = signal;
        exit.how = how;
        return exit;
    };
    RunStop timeout;
    timeout.timed_out = true;
    RunStop forwarded;
    forwarded.forwarded_signal = SIGTERM;
    CHECK(report::describe_exit(ended(3, {})) == "exited with status 3");
    CHECK(report::describe_exit(ended({}, SIGINT), timeout) == "killed by SIGINT after the timeout");
    CHECK(report::describe_exit(ended({}, SIGTERM), forwarded) ==
          "killed by SIGTERM after importscope passed on SIGTERM");
    timeout.grace_over = forwarded.grace_over = true; // the grace period's words are a forwarded SIGTERM's
    CHECK(report::describe_exit(ended({}, SIGKILL), forwarded) ==
          "killed by SIGKILL after importscope passed on SIGTERM: it did not end after SIGTERM within the grace "
          "period of 10 s");
    CHECK(report::describe_exit(ended({}, SIGKILL), timeout) == "killed by SIGKILL after the timeout");
    ProcessExit dumped = ended({}, SIGSEGV);
    dumped.core_dumped = true;
    CHECK(report::describe_exit(dumped) == "killed by SIGSEGV (core dumped)");
    CHECK(report::describe_exit(ended(0, {}, ExitKnownBy::os_exit)) == "exited with status 0 (os._exit)");
    CHECK(report::describe_exit(ended({}, SIGKILL, ExitKnownBy::killed)) ==
          "killed by SIGKILL by importscope at the end of the run");
}

TEST_CASE("a clean run says so", "[report]")
{
    testing::JournalBuilder b;
    b.extension_import("a._C", "/s/a.so", {1, 1});
    const auto model = analysis::build_model(b.contents());
    auto run = sample_run();
    run.exit.code = 0;
    const report::Document document =
        report::build_report(run, model, analysis::conclude(model, analysis::analyze(model)));
    const nlohmann::json r = document;
    CHECK(r.at("findings").empty());
    CHECK(r.at("run").at("exit").at("exception").is_null());
    CHECK(report::render_summary(document, false).find("no findings") != std::string::npos);
}

TEST_CASE("times are ISO 8601 in UTC with milliseconds", "[report]")
{
    CHECK(report::iso_time(1'700'000'000'123'000'000) == "2023-11-14T22:13:20.123Z");
}

TEST_CASE("the report file streams the module records into the tree's place", "[report]")
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

    const auto head = report::build_report(run, model, analysis::conclude(model, findings));
    const nlohmann::json head_json = head;
    CHECK(head.modules.empty()); // streamed from the model
    CHECK(head.summary.modules == 4);
    const std::string text = report::report_text(head, model);
    const auto whole = nlohmann::json::parse(text);
    CHECK(text.ends_with("}\n"));
    // Indented by two, but each module record compact on a line of its own (grep finds a module's).
    CHECK(text.find("\n  \"findings\": [\n    {\n      \"advice\"") != std::string::npos);
    CHECK(text.find("\n  \"modules\": [\n    {\"call_site\":") != std::string::npos);
    std::size_t record_lines = 0;
    for (std::size_t at = text.find("\n    {\"call_site\":"); at != std::string::npos;
         at = text.find("\n    {\"call_site\":", at + 1))
        ++record_lines;
    CHECK(record_lines == 4);
    CHECK(whole.at("findings") == head_json.at("findings"));
    CHECK(whole.size() == head_json.size()); // "frames" and "modules" filled from the model
    // Each record's stack, by index into "frames", is the model's.
    for (std::size_t i = 0; i < model.modules.size(); ++i) {
        const auto& stack = whole.at("modules")[i].at("stack");
        REQUIRE(stack.size() == model.modules[i].stack.size());
        for (std::size_t k = 0; k < stack.size(); ++k) {
            const auto& written = whole.at("frames").at(stack[k].get<std::size_t>());
            CHECK(written.at("file") == model.modules[i].stack[k]->file);
            CHECK(written.at("line") == model.modules[i].stack[k]->line);
        }
    }
    const auto& modules = whole.at("modules");
    REQUIRE(modules.size() == 4);
    CHECK(modules[0].at("name") == "v.deep_gemm._C");
    CHECK(modules[1].at("status") == "error");
    CHECK(modules[1].at("error").at("message") == "type \"Runtime\"\tis\\already\nregistered");
    CHECK(modules[1].at("file_identity") == nlohmann::json{{"dev", 1}, {"ino", 1}});
    CHECK(modules[2].at("origin") == "/home/alice/s/utils-\xc3\xa9-\xef\xbf\xbd.py");
    CHECK(modules[2].at("duration_ms").is_null());
    CHECK(modules[3].at("via_finder") == false);
    CHECK(modules[3].at("call_site").is_null());
    CHECK(report::pretty_text(whole) == text); // merge writes what run writes
    // The schema, then the records, which are final before the rest is known; then the rest.
    CHECK(text.starts_with("{\n  \"schema\": \"importscope.report/2\",\n  \"frames\": [\n"));
    CHECK(text.find("\n  \"modules\": [") < text.find("\n  \"aliases\": ["));

    SECTION("the records handed to the sink whole before the rest is asked for")
    {
        std::string two_steps;
        report::ReportWriter writer([&](std::string_view piece) { two_steps += piece; }, nullptr);
        writer.write_records(report::records_of(model));
        CHECK(two_steps == text.substr(0, text.find(",\n  \"aliases\": [")));
        writer.write_rest(head);
        CHECK(two_steps == text);
        CHECK_THROWS_AS(writer.write_records(report::records_of(model)), std::logic_error);
    }
    SECTION("the rest asked for before the records, or of another schema")
    {
        report::ReportWriter early([](std::string_view) {}, nullptr);
        CHECK_THROWS_AS(early.write_rest(head), std::logic_error);
        early.write_records(report::records_of(model));
        auto other = head;
        other.schema = report::k_schema_1;
        CHECK_THROWS_AS(early.write_rest(other), std::logic_error);
    }
    SECTION("--redact-paths on the records' strings")
    {
        const report::PathRedaction redaction("/home/alice/", "alice");
        auto redacted_head = head;
        report::redact(redacted_head, &redaction);
        const std::string redacted = report::report_text(redacted_head, model, &redaction);
        CHECK(redacted.find("alice") == std::string::npos);
        CHECK(nlohmann::json::parse(redacted).at("modules")[0].at("origin") == "~/s/_C.so");
    }
    SECTION("a report larger than one piece")
    {
        testing::JournalBuilder many;
        for (int i = 0; i < 3000; ++i)
            many.end(many.begin(fmt::format("deep_gemm.m{}", i), "source",
                                fmt::format("/site/{}/m{}.py", std::string(300, 'd'), i)));
        const auto big = analysis::build_model(many.contents());
        std::vector<std::size_t> pieces;
        std::string big_text;
        report::write_report(report::build_report(run, big, analysis::conclude(big, {})), big, nullptr, [&](std::string_view piece) {
            pieces.push_back(piece.size());
            big_text += piece;
        });
        CHECK(pieces.size() > 1);
        CHECK(*std::max_element(pieces.begin(), pieces.end()) < (std::size_t{3} << 20) / 2);
        // Every record in its place, across the pieces, laid out as any tree.
        const auto big_whole = nlohmann::json::parse(big_text);
        const auto& big_modules = big_whole.at("modules");
        REQUIRE(big_modules.size() == 3000);
        for (std::size_t i = 0; i < big_modules.size(); ++i)
            REQUIRE(big_modules[i].at("name") == fmt::format("deep_gemm.m{}", i));
        CHECK(big_modules[2999].at("origin") == fmt::format("/site/{}/m2999.py", std::string(300, 'd')));
        CHECK(report::pretty_text(big_whole) == big_text);
    }
    SECTION("frames numbered in their journals are each journal's own")
    {
        auto numbered = [](const std::string& file, int line, std::uint32_t number) {
            return journal::Frame{file, line, "<module>", "__main__", number};
        };
        journal::Frame known;
        known.number = 1;
        known.known = true;
        testing::JournalBuilder first(100);
        first.end(first.begin_below("a", "/x/a.py", {numbered("/x/main.py", 3, 1), numbered("/x/p.py", 1, 2)}));
        first.end(first.begin_below("b", "/x/b.py", {known, numbered("/x/p.py", 2, 3)}));
        testing::JournalBuilder second(200);
        second.end(second.begin_below("d", "/x/d.py", {numbered("/x/other.py", 9, 1)}));
        second.end(second.begin_below("e", "/x/e.py", {known}));
        std::vector<journal::JournalContents> journals;
        journals.push_back(first.contents("journal-100-0.isj"));
        journals.push_back(second.contents("journal-200-0.isj"));
        const auto shared = analysis::build_model(std::move(journals));
        REQUIRE(shared.modules.size() == 4);
        const std::string shared_text = report::report_text(report::build_report(run, shared, analysis::conclude(shared, {})), shared);
        const auto shared_whole = nlohmann::json::parse(shared_text);
        const auto& records = shared_whole.at("modules");
        const auto& frames = shared_whole.at("frames");
        // Each frame once: main.py, p.py:1, p.py:2 of the first journal, other.py of the second,
        // whose frame number 1 is not the first journal's.
        REQUIRE(frames.size() == 4);
        CHECK(records[0].at("stack") == nlohmann::json{0, 1});
        CHECK(records[1].at("stack") == nlohmann::json{0, 2});
        CHECK(records[1].at("call_site") == 2);
        CHECK(records[2].at("stack") == nlohmann::json{3});
        CHECK(records[3].at("stack") == nlohmann::json{3});
        CHECK(frames[0] ==
              nlohmann::json{{"file", "/x/main.py"}, {"function", "<module>"}, {"line", 3}, {"module", "__main__"}});
        CHECK(frames[2].at("line") == 2);
        CHECK(frames[3].at("file") == "/x/other.py");
        CHECK(frames[records[3].at("call_site").get<std::size_t>()].at("line") == 9);
        // The frames' lines are laid out as the writer lays out any tree, each on a line of its own.
        CHECK(report::pretty_text(shared_whole) == shared_text);
        CHECK(shared_text.find("\n  \"frames\": [\n    {\"file\":\"/x/main.py\"") != std::string::npos);
        const report::PathRedaction redaction("/x/", "someone");
        const std::string redacted = report::report_text(report::build_report(run, shared, analysis::conclude(shared, {})), shared, &redaction);
        CHECK(redacted.find("/x/") == std::string::npos);
        CHECK(nlohmann::json::parse(redacted).at("frames")[0].at("file") == "~/main.py");
        CHECK(report::pretty_text(nlohmann::json::parse(redacted)) == redacted);
    }
    SECTION("a frame its journal did not number is told by its text")
    {
        testing::JournalBuilder plain;
        const journal::Frame site{"/x/main.py", 4, "<module>", "__main__", 0};
        plain.end(plain.begin_below("a", "/x/a.py", {site}));
        plain.end(plain.begin_below("b", "/x/b.py", {site}));
        plain.end(plain.begin_below("c", "/x/c.py", {journal::Frame{"/x/main.py", 5, "<module>", "__main__", 0}}));
        const auto model_plain = analysis::build_model(plain.contents());
        const auto plain_whole =
            nlohmann::json::parse(report::report_text(report::build_report(run, model_plain, analysis::conclude(model_plain, {})), model_plain));
        CHECK(plain_whole.at("frames").size() == 2);
        CHECK(plain_whole.at("modules")[1].at("call_site") == 0);
        CHECK(plain_whole.at("modules")[2].at("call_site") == 1);
    }
    SECTION("no modules at all")
    {
        const analysis::RunModel empty;
        const std::string empty_text = report::report_text(report::build_report(run, empty, analysis::conclude(empty, {})), empty);
        CHECK(empty_text.find("\"modules\": []") != std::string::npos);
        CHECK(nlohmann::json::parse(empty_text).at("modules").empty());
    }
    SECTION("a document with its module records in it is refused")
    {
        CHECK_THROWS_AS(report::report_text(report::parse_report(text, "r.json"), model), std::logic_error);
    }
}

TEST_CASE("every string of the records is screened for secrets, also after the same clean strings", "[report]")
{
    // The writer lets a string it has just found clean pass by comparison (a record's origin and
    // realpath are one path; the records of a run share their loader): a secret must still be caught.
    const std::string clean = "/site/packages/pkg/module_of_a_long_name.py";
    const std::string secret = "/site/ghp_0123456789abcdefABCDEF0123456789abcd/module_of_a_long_name.py";
    testing::JournalBuilder journal;
    journal.end(journal.begin("pkg.a", "source", clean));
    journal.end(journal.begin("pkg.b", "source", clean));
    journal.end(journal.begin("pkg.c", "source", secret));
    journal.end(journal.begin("pkg.d", "source", clean));
    // After its directory was found clean: a secret, and a byte JSON escapes, in what follows it.
    journal.end(journal.begin("pkg.e", "source", "/site/packages/pkg/ghp_0123456789abcdefABCDEF0123456789abcd.py"));
    journal.end(journal.begin("pkg.f", "source", "/site/packages/pkg/odd\"name.py"));
    auto model = analysis::build_model(journal.contents());
    for (auto& module : model.modules)
        module.realpath = module.origin;
    const report::RunInfo run = sample_run();
    const auto modules =
        nlohmann::json::parse(report::report_text(report::build_report(run, model, analysis::conclude(model, {})), model))
            .at("modules");
    REQUIRE(modules.size() == 6);
    for (const std::size_t i : {0, 1, 3}) {
        CHECK(modules[i].at("origin") == clean);
        CHECK(modules[i].at("realpath") == clean);
    }
    CHECK(modules[2].at("origin") == "/site/<redacted>/module_of_a_long_name.py");
    CHECK(modules[2].at("realpath") == "/site/<redacted>/module_of_a_long_name.py");
    CHECK(modules[4].at("origin") == "/site/packages/pkg/<redacted>.py");
    CHECK(modules[5].at("origin") == "/site/packages/pkg/odd\"name.py");
}

TEST_CASE("a report read back is written again with its keys escaped, whatever they hold", "[report]")
{
    // A key of data (an environment variable's name, any key of a file given to merge) may hold
    // what JSON escapes.
    const nlohmann::json read_back = {{"environment", {{"odd\"name\\\n", "v"}}},
                                      {"modules", nlohmann::json::array({{{"a\"b", 1}}})},
                                      {"x\ty", true}};
    const std::string text = report::pretty_text(read_back);
    CHECK(nlohmann::json::parse(text) == read_back);
    CHECK(text.find("\"odd\\\"name\\\\\\n\"") != std::string::npos);
}

namespace {

/// A report of one module record whose stack holds `stack` (report/1: frames whole; report/2: indexes).
nlohmann::json report_with_stack(const char* schema, nlohmann::json frames, nlohmann::json stack, nlohmann::json site)
{
    const nlohmann::json run = {
        {"host", "h"}, {"exit", nlohmann::json::object()}, {"target", nlohmann::json::object()}};
    nlohmann::json report = {{"schema", schema},
                             {"tool", nlohmann::json::object()},
                             {"run", run},
                             {"processes", nlohmann::json::array()},
                             {"modules", {{{"name", "m"}, {"stack", stack}, {"call_site", site}}}},
                             {"findings", nlohmann::json::array()},
                             {"problems", nlohmann::json::array()},
                             {"summary", nlohmann::json::object()}};
    if (!frames.is_null())
        report["frames"] = std::move(frames);
    return report;
}

nlohmann::json frame(const char* file, int line)
{
    return {{"file", file}, {"function", "f"}, {"line", line}, {"module", "m"}};
}

} // namespace

TEST_CASE("a report/1, whose records hold their frames whole, is read as report/2", "[report]")
{
    const auto old = report_with_stack("importscope.report/1", nullptr,
                                       {frame("/a.py", 1), frame("/b.py", 2), frame("/a.py", 1)}, frame("/a.py", 1));
    const auto read = report::parse_report(old.dump(), "old.json");
    CHECK(read.schema == "importscope.report/2");
    CHECK(nlohmann::json(read.frames) == nlohmann::json{frame("/a.py", 1), frame("/b.py", 2)});
    CHECK(read.modules[0].stack == std::vector<std::uint64_t>{0, 1, 0});
    CHECK(read.modules[0].call_site == 0U);
}

TEST_CASE("a report/2 whose records name a frame it does not hold is refused", "[report]")
{
    const auto frames = nlohmann::json{frame("/a.py", 1)};
    CHECK_NOTHROW(report::parse_report(report_with_stack("importscope.report/2", frames, {0}, 0).dump(), "r"));
    CHECK_NOTHROW(report::parse_report(report_with_stack("importscope.report/2", frames, {0}, nullptr).dump(), "r"));
    const auto refused = [&](const nlohmann::json& report, const std::string& why) {
        try {
            report::parse_report(report.dump(), "r.json");
            FAIL("read: " << report.dump());
        } catch (const Error& e) {
            CHECK_THAT(e.what(), Catch::Contains(why));
        }
    };
    refused(report_with_stack("importscope.report/2", frames, {1}, 0), "stack names a frame");
    refused(report_with_stack("importscope.report/2", frames, {0}, 1), "call_site names a frame");
    refused(report_with_stack("importscope.report/2", frames, {"0"}, 0), "modules[0].stack has the wrong type");
    refused(report_with_stack("importscope.report/2", frames, {-1}, 0), "modules[0].stack[0] is -1, not an integer");
    refused(report_with_stack("importscope.report/2", nullptr, {0}, 0), "has no \"frames\"");
    refused(report_with_stack("importscope.report/1", nullptr, {1}, nullptr), "frame is not an object");
    refused(report_with_stack("importscope.report/3", frames, {0}, 0), "is not supported");
}

TEST_CASE("merged reports' records name their own frames", "[report]")
{
    const auto first = report::parse_report(
        report_with_stack("importscope.report/2", {frame("/a.py", 1), frame("/b.py", 2)}, {0, 1}, 1).dump(), "1");
    const auto second = report::parse_report(
        report_with_stack("importscope.report/1", nullptr, {frame("/c.py", 3)}, frame("/c.py", 3)).dump(), "2");
    const nlohmann::json merged = report::merge_reports({first, second});
    CHECK(merged.at("frames") == nlohmann::json{frame("/a.py", 1), frame("/b.py", 2), frame("/c.py", 3)});
    CHECK(merged.at("modules")[0].at("stack") == nlohmann::json{0, 1});
    CHECK(merged.at("modules")[0].at("call_site") == 1);
    CHECK(merged.at("modules")[1].at("stack") == nlohmann::json{2});
    CHECK(merged.at("modules")[1].at("call_site") == 2);
    // What merge writes is read back the same.
    CHECK(nlohmann::json(report::parse_report(report::pretty_text(merged), "merged")) == merged);
}
