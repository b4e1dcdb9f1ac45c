// The model made while the run goes on (collect::Collector over analysis::ModelBuilder) against the
// same made at once after the run.

#include "journal_builder.hpp"
#include "temp_dir.hpp"

#include "importscope/collect/collector.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/analysis/conclusions.hpp"
#include "importscope/report/report.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

using namespace importscope;

namespace {

std::string joined(const std::vector<std::string>& records)
{
    std::string bytes;
    for (const auto& record : records)
        bytes += record;
    return journal::journal_file_of(bytes);
}

report::RunInfo run_info()
{
    report::RunInfo run;
    run.argv = {"importscope", "run", "t.py"};
    run.target_kind = "script";
    run.target = "t.py";
    run.match = {"*"};
    run.main_pid = 100;
    return run;
}

std::string report_text(const analysis::RunModel& model)
{
    return report::report_text(report::build_report(run_info(), model, analysis::conclude(model, analysis::analyze(model))), model);
}

} // namespace

TEST_CASE("the model made as the journals grow is the one made at the end", "[live]")
{
    const testing::TempDir scratch;
    const std::filesystem::path& dir = scratch.path;
    // The main process: nested imports, an extension, an error, a numbered frame used again, and
    // two begins written out of their sequence (an event is numbered before Python code runs).
    testing::JournalBuilder main(100);
    const auto outer = main.begin_below("pkg", "/home/alice/pkg/__init__.py",
                                        {journal::Frame{"/home/alice/t.py", 3, "<module>", "__main__", 1}});
    journal::Frame known;
    known.number = 1;
    known.known = true;
    const auto a = main.begin_below("pkg.a", "/home/alice/pkg/a.py", {known});
    const auto b = main.begin_below("pkg.b", "/home/alice/pkg/b.py", {known});
    main.end(b, journal::ExceptionInfo{"ImportError", "no \"b\"", "tb\n"});
    main.end(a);
    main.extension_import("pkg._C", "/home/alice/pkg/_C.so", {1, 7});
    main.end(outer);
    main.begin("pkg.never_ended", "source", "/home/alice/pkg/never_ended.py"); // the process died in it
    std::vector<std::string> main_records = main.records();
    std::swap(main_records[2], main_records[3]); // pkg.b's begin, then pkg.a's
    const std::string main_text = joined(main_records);
    // A child started later, whose journal sorts before the parent's, with a load the finder missed.
    testing::JournalBuilder child(99);
    child.process(99, 100, "spawn", 1'700'000'000'500'000'000);
    child.extension("other._C", "/home/alice/other/_C.so", journal::FileIdentity{1, 9});
    const std::string child_text = child.damaged().bytes();

    {
        collect::Collector live(dir);
        // Written 41 bytes at a time, cut anywhere, each journal's records read as they come.
        std::size_t child_at = 0;
        for (std::size_t at = 0; at < main_text.size(); at += 41) {
            std::ofstream(dir / "journal-100-0.isj", std::ios::app) << main_text.substr(at, 41);
            if (at >= 200 && child_at < child_text.size()) { // the child's journal appears later
                std::ofstream(dir / "journal-099-0.isj", std::ios::app) << child_text.substr(child_at, 41);
                child_at += 41;
            }
            live.poll();
        }
        if (child_at < child_text.size())
            std::ofstream(dir / "journal-099-0.isj", std::ios::app) << child_text.substr(child_at);
        live.poll();
        // What the model's records will be, in their order, before it is finished (EarlyReport).
        std::vector<std::string> in_order;
        for (const analysis::ModuleRecord* r : live.modules_in_order())
            in_order.push_back(r->name);
        const std::uint64_t changes = live.record_changes();
        CHECK(changes == 11); // 5 begins, 4 ends and 2 extension loads; no process start
        const analysis::RunModel followed = live.finish();
        CHECK(live.record_changes() == changes); // nothing left to fold
        std::vector<std::string> finished;
        for (const analysis::ModuleRecord& r : followed.modules)
            finished.push_back(r.name);
        CHECK(in_order == finished);
        const analysis::RunModel at_end = analysis::build_model(journal::read_run_journals(dir));

        REQUIRE(followed.modules.size() == 6);
        CHECK(followed.modules[1].name == "pkg.a"); // back in their sequence
        CHECK(followed.modules[2].name == "pkg.b");
        // The frame that three stacks hold is one object, the journal's, whole in each.
        REQUIRE(followed.modules[0].stack.size() == 1);
        REQUIRE(followed.modules[1].stack.size() == 1);
        REQUIRE(followed.modules[2].stack.size() == 1);
        CHECK(followed.modules[1].stack[0] == followed.modules[0].stack[0]);
        CHECK(followed.modules[2].stack[0] == followed.modules[0].stack[0]);
        CHECK(followed.modules[1].stack[0]->file == "/home/alice/t.py");
        CHECK(followed.modules[1].stack[0]->line == 3);
        CHECK(followed.modules[1].stack[0]->function == at_end.modules[1].stack[0]->function);
        CHECK(followed.modules[5].name == "other._C"); // the child started later
        CHECK(followed.problems == at_end.problems);
        CHECK(followed.problems.size() == 1); // the damaged record
        CHECK(followed.journal_bytes == at_end.journal_bytes);
        CHECK(report_text(followed) == report_text(at_end));
    }
}

TEST_CASE("a tail with a sink hands each event over with its journal's name", "[live]")
{
    const testing::TempDir scratch;
    const std::filesystem::path& dir = scratch.path;
    testing::JournalBuilder b;
    b.extension("a._C", "/s/a.so", journal::FileIdentity{1, 1});
    const std::string cut_short = journal::framed_record("\x05\x01\x02\x03").substr(0, 6);
    std::ofstream(dir / "journal-100-0.isj") << b.bytes() << cut_short;
    std::vector<std::string> names;
    journal::JournalTail tail(dir, [&](const std::string& journal, journal::Event&&, const journal::FrameTable&) { names.push_back(journal); });
    tail.poll();
    CHECK(names == std::vector<std::string>{"journal-100-0.isj", "journal-100-0.isj"});
    const auto contents = tail.finish();
    REQUIRE(contents.size() == 1);
    CHECK(contents[0].events.empty());
    CHECK(contents[0].problems.size() == 1); // the record cut short
    CHECK(contents[0].bytes == b.bytes().size() + 6);
}

TEST_CASE("the collector reads an installation's distributions while the run goes on, into the final "
          "analysis's cache",
          "[live]")
{
    const testing::TempDir scratch;
    const std::filesystem::path& dir = scratch.path;
    std::vector<std::string> asked;
    analysis::AnalysisOptions options;
    options.distribution_of = [&asked](const std::string& origin) {
        asked.push_back(origin);
        return std::vector<analysis::Distribution>{};
    };
    collect::Collector live(dir, options);
    testing::JournalBuilder b(100);
    // An installation that can make no finding (nothing shadowed, no --match name): the live
    // analysis does not run, the collector alone asks.
    b.installation("six", "/site/six.py", {}, false);
    b.installation("missing", "", {}, false); // importable from nowhere: nothing to look up
    std::ofstream(dir / "journal-100-0.isj") << b.bytes();
    live.poll();
    CHECK(asked == std::vector<std::string>{"/site/six.py"});
    // One that shadows another: both places, before the end (the live analysis asks again, of the cache).
    testing::JournalBuilder more(100);
    more.installation("idna", "/site/idna/__init__.py", {"/vendored/idna/__init__.py"}, false);
    std::ofstream(dir / "journal-100-0.isj", std::ios::app) << more.records().back();
    live.poll();
    CHECK(std::set<std::string>(asked.begin(), asked.end()) ==
          std::set<std::string>{"/site/six.py", "/site/idna/__init__.py", "/vendored/idna/__init__.py"});
    asked.clear();
    (void)live.finish();
    CHECK(asked.empty());
}

TEST_CASE("the events the model keeps have every frame whole, those the journal gave by number too", "[live]")
{
    const testing::TempDir scratch;
    testing::JournalBuilder b(100);
    const journal::Frame site{"/home/alice/t.py", 3, "<module>", "__main__", 1};
    journal::Frame known;
    known.number = 1;
    known.known = true;
    b.end(b.begin_below("pkg", "/home/alice/pkg/__init__.py", {site}));
    b.alias("deep_gemm", "v.deep_gemm", {known}, {known}); // the import's stack, and the store's
    std::ofstream(scratch.path / "journal-100-0.isj") << b.bytes();

    collect::Collector live(scratch.path);
    live.poll();
    const analysis::RunModel followed = live.finish();
    const analysis::RunModel at_end = analysis::build_model(journal::read_run_journals(scratch.path));
    for (const analysis::RunModel* model : {&followed, &at_end}) {
        REQUIRE(model->aliases.size() == 1);
        const journal::AliasSeen& alias = model->aliases[0].event;
        REQUIRE(alias.stack.size() == 1);
        CHECK(alias.stack[0].file == "/home/alice/t.py");
        CHECK(alias.stack[0].line == 3);
        REQUIRE(alias.set_by.size() == 1);
        CHECK(alias.set_by[0].module == "__main__");
        CHECK(alias.set_by[0].function == "<module>");
    }
}

TEST_CASE("a collector that leaves the findings to the end keeps none while the run goes on, and folds "
          "the same model",
          "[live]")
{
    const testing::JournalBuilder b = testing::partial_alias_journal(); // an error finding, live
    const auto read_with = [&b](collect::Collector::Findings findings) {
        const testing::TempDir scratch;
        std::ofstream(scratch.path / "journal-100-0.isj") << b.bytes();
        collect::Collector collector(scratch.path, {}, findings);
        const bool error_found = collector.poll(); // what --stop-on-finding acts on
        const std::size_t live_findings = collector.findings().findings().size();
        const std::uint64_t imports_counted = collector.findings().imports(); // the status line's count
        return std::make_tuple(error_found, live_findings, imports_counted, report_text(collector.finish()));
    };
    const auto [live_error, live_count, live_imports, live_report] = read_with(collect::Collector::Findings::live);
    const auto [end_error, end_count, end_imports, end_report] = read_with(collect::Collector::Findings::at_the_end);
    CHECK(live_error);
    CHECK(live_count >= 1);
    CHECK(live_imports == 4);
    CHECK_FALSE(end_error);
    CHECK(end_count == 0);
    CHECK(end_imports == 0);
    CHECK(end_report == live_report);
}
