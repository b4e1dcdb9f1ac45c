// The stages of `importscope run` (app/run_stages.hpp), each on its own.

#include "journal_builder.hpp"
#include "temp_dir.hpp"

#include "importscope/app/run_stages.hpp"
#include "importscope/util/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace importscope;

namespace {

app::RunOptions options_in(const testing::TempDir& dir)
{
    app::RunOptions options;
    options.command = "pass";
    options.output = (dir.path / "report.json").string();
    return options;
}

/// A request as make_request() gives it, without looking for an interpreter.
app::RunRequest sample_request()
{
    app::RunRequest request;
    request.options.match = {"deep_gemm", "flashinfer"};
    request.options.timeout_given = true;
    request.options.timeout_s = 30;
    request.options.argv = {"importscope", "run", "-c", "pass"};
    request.resolved.target.kind = embed::TargetKind::command;
    request.resolved.target.value = "pass";
    request.python.executable = "/usr/bin/python3";
    request.runtime.minor = "3.11";
    request.runtime.libpython = "/usr/lib/libpython3.11.so.1.0";
    request.bootstrap_dir = "/opt/importscope/lib/importscope/bootstrap";
    return request;
}

} // namespace

TEST_CASE("request: what is wrong with the options is said before anything runs", "[stages]")
{
    const testing::TempDir dir;
    auto refused = [&](auto change, const std::string& message) {
        app::RunOptions options = options_in(dir);
        change(options);
        CHECK_THROWS_WITH(app::make_request(options), Catch::Contains(message));
    };
    refused([](app::RunOptions& o) { o.timeout_given = true, o.timeout_s = -1; }, "is not a positive number");
    refused([](app::RunOptions& o) { o.timeout_given = true, o.timeout_s = 1e12; }, "more than importscope can wait");
    refused([](app::RunOptions& o) { o.match.clear(); }, "--match needs at least one PATTERN");
    refused([](app::RunOptions& o) { o.fail_on = "sometimes"; }, "sometimes");
    refused([](app::RunOptions& o) { o.format = "yaml"; }, "yaml");
    refused([&](app::RunOptions& o) { o.output = (dir.path / "missing" / "r.json").string(); }, "missing");
    refused(
        [](app::RunOptions& o) {
            o.command.clear();
            o.program = "/bin/true";
            o.no_follow = true;
        },
        "with --no-follow nothing of it would be traced");
    CHECK(std::filesystem::is_empty(dir.path)); // no report, no run directory
}

TEST_CASE("request: the worker's plan and the report's run come from the one request", "[stages]")
{
    const app::RunRequest request = sample_request();
    const supervisor::RunDir run_dir;
    const journal::ProblemInbox inbox;
    const embed::WorkerPlan plan = app::make_worker_plan(request, run_dir, inbox, nullptr);
    const report::RunInfo info = app::make_run_info(request);
    CHECK(plan.match == request.options.match);
    CHECK(info.match == plan.match);
    CHECK(plan.follow);
    CHECK(info.follow);
    CHECK(plan.target.value == "pass");
    CHECK(info.target == "pass");
    CHECK(info.target_kind == "command");
    CHECK(plan.python_executable == info.python_executable);
    CHECK(plan.run_dir == run_dir.path().string());
    CHECK(plan.problem_address == inbox.address());
    CHECK_FALSE(plan.shared_journal); // journals to files
    CHECK(info.timeout_s == 30);
    CHECK(info.worker_minor == "3.11");
    CHECK(info.python_libpython == "/usr/lib/libpython3.11.so.1.0");
    CHECK(info.argv == request.options.argv);

    const journal::SharedJournal shared(1 << 20);
    CHECK(app::make_worker_plan(request, run_dir, inbox, &shared).shared_journal);
}

TEST_CASE("launch: a tick is busy while the journals grow or the problem inbox reads datagrams", "[stages]")
{
    app::RunActivity activity;
    CHECK_FALSE(activity.busy(0, 0)); // the worker has not started writing
    CHECK(activity.busy(4096, 0));
    CHECK_FALSE(activity.busy(4096, 0)); // a server between requests: the ticks slow down
    CHECK(activity.busy(4096, 10));      // a flood past the messages kept: drained at the short interval
    CHECK(activity.busy(4096, 20));
    CHECK_FALSE(activity.busy(4096, 20));
}

TEST_CASE("launch: the handshake says whether the target was started", "[stages]")
{
    ProcessExit exited;
    exited.code = 1;
    CHECK(app::start_failure("R", exited, {}, false).empty());
    CHECK(app::start_failure("E", exited, {}, false).empty()); // python --version
    CHECK(app::start_failure("X", exited, {}, true).empty());  // a program executed, or 126/127
    CHECK(app::start_failure("Fno worker for 3.14", exited, {}, false) == "no worker for 3.14");
    CHECK(app::start_failure("", exited, {}, false) ==
          "the worker exited with status 1 before the interpreter was ready to run the target");
    ProcessExit killed;
    killed.signal = SIGSEGV;
    CHECK(app::start_failure("", killed, {}, true) == "the worker killed by SIGSEGV before it executed the program");
    RunStop timeout;
    timeout.timed_out = true;
    CHECK(app::start_failure("", killed, timeout, false).empty()); // importscope ended it first
}

TEST_CASE("collect: how each process ended, and what outlived the run", "[stages]")
{
    testing::JournalBuilder b(100);
    b.extension("a._C", "/s/a.so", journal::FileIdentity{1, 1});
    const analysis::RunModel model = analysis::build_model(b.contents());
    app::Launched launched;
    launched.end.pid = 100;
    launched.end.exit.code = 0;
    launched.end.reaped[101] = ProcessExit{3, std::nullopt, false, ExitKnownBy::reaped};
    launched.end.ended_by_importscope = {102};
    launched.started_ns = 10;
    launched.ended_ns = 20;
    report::RunInfo info;
    app::record_ends(info, launched, model);
    CHECK(info.main_pid == 100);
    CHECK(info.exit.code == 0);
    CHECK(info.ended_ns == 20);
    CHECK(info.seen_ends.at(101).how == ExitKnownBy::reaped);
    CHECK(info.seen_ends.at(101).code == 3);
    CHECK(info.seen_ends.at(102).how == ExitKnownBy::killed);
    CHECK(info.seen_ends.at(102).signal == SIGKILL);
    CHECK(info.python_version == model.processes.at(0).python_version);

    launched.end.start_words = "R";
    launched.inbox = {"pid 7: no journal could be created"};
    std::vector<std::string> failures;
    {
        const supervisor::RunDir run_dir;
        CHECK(app::tool_failures(launched, info, false, run_dir, nullptr) == launched.inbox);
        std::filesystem::remove_all(run_dir.path()); // the target took it away
        failures = app::tool_failures(launched, info, false, run_dir, nullptr);
    }
    REQUIRE(failures.size() == 2);
    CHECK_THAT(failures[1], Catch::Contains("was removed while the target ran"));
}

TEST_CASE("analyze: a missing catalogue is a problem of the run, each file is hashed once, and each "
          "directory's distributions are read once",
          "[stages]")
{
    testing::JournalBuilder b;
    b.extension_import("v.deep_gemm._C", "/s/_C.so", {1, 1});
    b.extension_import("deep_gemm._C", "/s/_C.so", {1, 1});
    analysis::RunModel model = analysis::build_model(b.contents());
    const auto conclusions = app::find_hazards(model, "", app::cached_hasher(), app::cached_distributions());
    CHECK_FALSE(conclusions.findings.empty());
    CHECK(conclusions.environment_reads.size() == model.processes.size());
    REQUIRE_FALSE(model.problems.empty());
    CHECK_THAT(model.problems.back(), Catch::Contains("known issues not matched"));

    const testing::TempDir dir;
    const std::string file = (dir.path / "x.so").string();
    std::ofstream(file) << "one";
    const analysis::FileHasher hash = app::cached_hasher();
    const auto first = hash(file);
    REQUIRE(first);
    std::ofstream(file) << "two";
    CHECK(hash(file) == first); // the live and the final analysis see the same content
    CHECK(app::cached_hasher()(file) != first);
    CHECK_FALSE(hash((dir.path / "missing.so").string()));

    // A directory's distributions are read once, by whichever asks first: the collect stage while
    // the target runs, then the final analysis from the same cache.
    const std::filesystem::path metadata = dir.path / "six-1.16.0.dist-info";
    std::filesystem::create_directories(metadata);
    std::ofstream(metadata / "METADATA") << "Metadata-Version: 2.1\nName: six\nVersion: 1.16.0\n\n";
    std::ofstream(metadata / "top_level.txt") << "six\n";
    std::ofstream(dir.path / "six.py") << "";
    const analysis::DistributionLookup distributions = app::cached_distributions();
    const std::string six = (dir.path / "six.py").string();
    REQUIRE(distributions(six).size() == 1);
    CHECK(distributions(six)[0].version == "1.16.0");
    std::filesystem::remove_all(metadata);
    CHECK(distributions(six).size() == 1);
    CHECK(app::cached_distributions()(six).empty());
}

TEST_CASE("report: the outcome is in the tree, and a report that cannot be written keeps the journals",
          "[stages]")
{
    testing::JournalBuilder b;
    b.extension_import("v.deep_gemm._C", "/s/_C.so", {1, 1});
    b.extension_import("deep_gemm._C", "/s/_C.so", {1, 1});
    analysis::RunModel model = analysis::build_model(b.contents());
    const auto conclusions = analysis::conclude(model, analysis::analyze(model));
    app::RunRequest request = sample_request();
    request.gate = report::FailOn::parse("error");
    report::RunInfo info = app::make_run_info(request);
    info.exit.code = 0;
    report::Outcome outcome;
    const report::Document tree = app::make_report(request, info, model, conclusions, {}, false, outcome);
    CHECK(outcome.status == 3);
    CHECK(nlohmann::json(tree).at("run").at("outcome").at("reason") == "findings");

    const testing::TempDir dir;
    std::filesystem::path kept;
    {
        supervisor::RunDir run_dir;
        kept = run_dir.path();
        CHECK_THROWS_WITH(app::write_report_file((dir.path / "no" / "r.json").string(), tree, model, nullptr, run_dir,
                                                 nullptr),
                          Catch::Contains("the journals are kept in " + kept.string()));
    }
    CHECK(std::filesystem::is_directory(kept));
    CHECK(std::filesystem::is_regular_file(kept / "report.json"));
    std::filesystem::remove_all(kept);
    app::write_report_file((dir.path / "r.json").string(), tree, model, nullptr, *std::make_unique<supervisor::RunDir>(),
                           nullptr);
    std::ifstream written(dir.path / "r.json");
    CHECK(nlohmann::json::parse(written).at("modules").size() == 2);
}

namespace {

std::string text_of(const std::filesystem::path& path)
{
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The files of `dir` but the journals: the report, and any temporary beside it.
std::vector<std::string> outputs_in(const std::filesystem::path& dir)
{
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (!entry.path().filename().string().starts_with("journal-"))
            names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace

TEST_CASE("report: the records are written while the main process finalizes, and kept only if they are the "
          "model's",
          "[stages]")
{
    const testing::TempDir dir;
    const std::filesystem::path journal = dir.path / "journal-100-0.isj";
    const std::string output = (dir.path / "r.json").string();
    testing::JournalBuilder main(100);
    main.end(main.begin("pkg", "source", "/s/pkg/__init__.py"));
    main.extension_import("pkg._C", "/s/pkg/_C.so", {1, 1});
    std::ofstream(journal) << main.bytes();
    collect::Collector collector(dir.path);
    app::EarlyReport early(output, nullptr, collector);
    const auto offer = [&] {
        collector.poll();
        early.offer();
    };
    const auto finish = [&] {
        const analysis::RunModel model = collector.finish();
        const report::Document tree =
            report::build_report(report::RunInfo{}, model, analysis::conclude(model, analysis::analyze(model)));
        const bool held = early.holds(model);
        app::write_report_file(output, tree, model, nullptr, *std::make_unique<supervisor::RunDir>(), nullptr, &early);
        CHECK(outputs_in(dir.path) == std::vector<std::string>{"r.json"}); // no temporary left
        CHECK(text_of(output) == report::report_text(tree, model));      // as if written at once
        return std::make_pair(held, model);
    };

    offer();
    CHECK(outputs_in(dir.path).empty()); // still running: nothing yet
    std::ofstream(journal, std::ios::app) << main.finalizing().records().back();
    offer();
    const std::vector<std::string> begun = outputs_in(dir.path);
    REQUIRE(begun.size() == 1);
    CHECK(begun[0].starts_with(".r.json."));
    CHECK(text_of(dir.path / begun[0]).starts_with("{\n  \"schema\": \"importscope.report/2\",\n  \"frames\": ["));

    SECTION("nothing but the process's end after: the records written early stay")
    {
        const std::size_t before = main.bytes().size();
        std::ofstream(journal, std::ios::app) << main.end_of_process("exit", 0).bytes().substr(before);
        const auto [held, model] = finish();
        CHECK(held);
        CHECK(model.modules.size() == 2);
    }
    SECTION("an import after: written again, whole")
    {
        const std::size_t before = main.bytes().size();
        main.end(main.begin("late", "source", "/s/late.py"));
        std::ofstream(journal, std::ios::app) << main.bytes().substr(before);
        const auto [held, model] = finish();
        CHECK_FALSE(held);
        REQUIRE(model.modules.size() == 3);
        CHECK(model.modules[2].name == "late");
    }
    SECTION("the end of an import open at the mark: written again, whole")
    {
        const std::size_t before = main.bytes().size();
        const auto open = main.begin("open", "source", "/s/open.py");
        std::ofstream(journal, std::ios::app) << main.bytes().substr(before);
        collector.poll(); // folded after the records were written
        const std::size_t after_begin = main.bytes().size();
        main.end(open);
        std::ofstream(journal, std::ios::app) << main.bytes().substr(after_begin);
        const auto [held, model] = finish();
        CHECK_FALSE(held);
        CHECK(model.modules.back().status == analysis::ImportStatus::ok);
    }
}

TEST_CASE("report: no early records for a child's finalizing, nor for a destination written into", "[stages]")
{
    const testing::TempDir dir;
    testing::JournalBuilder child(100);
    child.process(100, 1, "spawn");
    child.end(child.begin("pkg", "source", "/s/pkg/__init__.py"));
    child.finalizing();
    std::ofstream(dir.path / "journal-100-0.isj") << child.bytes();
    collect::Collector collector(dir.path);
    collector.poll();
    CHECK_FALSE(collector.main_finalizing());
    app::EarlyReport early((dir.path / "r.json").string(), nullptr, collector);
    early.offer();
    CHECK(outputs_in(dir.path).empty());

    testing::JournalBuilder main(200);
    main.finalizing();
    std::ofstream(dir.path / "journal-200-0.isj") << main.bytes();
    collector.poll();
    CHECK(collector.main_finalizing());
    app::EarlyReport into_device("/dev/null", nullptr, collector);
    into_device.offer();
    const analysis::RunModel model = collector.finish();
    CHECK_FALSE(into_device.holds(model));
}
