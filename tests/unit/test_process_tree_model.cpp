#include "journal_builder.hpp"
#include "temp_dir.hpp"

#include "importscope/analysis/finding.hpp"
#include "importscope/journal/run_layout.hpp"
#include "importscope/journal/tail.hpp"
#include "importscope/analysis/conclusions.hpp"
#include "importscope/report/report.hpp"
#include "importscope/report/summary.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace importscope;

TEST_CASE("one journal per process: processes in start order, each with its own modules", "[tree]")
{
    testing::JournalBuilder main(10);
    main.extension_import("a._C", "/s/_C.so", {1, 1});
    testing::JournalBuilder worker(11);
    worker.process(11, 10, "spawn", 1'700'000'000'500'000'000);
    worker.extension_import("v.deep_gemm._C", "/s/_C.so", {1, 1});
    worker.extension_import("deep_gemm._C", "/s/_C.so", {1, 1});
    worker.end_of_process("signal", SIGABRT);

    // Given in the wrong order: the model orders by start time.
    const auto model =
        analysis::build_model(std::vector{worker.contents("journal-11-0.isj"), main.contents("journal-10-0.isj")});
    REQUIRE(model.processes.size() == 2);
    CHECK(model.processes[0].pid == 10);
    CHECK(model.processes[1].pid == 11);
    CHECK(model.processes[1].start_method == "spawn");
    REQUIRE(model.processes[1].end);
    CHECK(model.processes[1].end->how == ExitKnownBy::signal);
    CHECK(model.processes[1].end->signal == SIGABRT);
    CHECK_FALSE(model.processes[0].end);
    CHECK(model.modules.front().pid == 10);

    const auto findings = analysis::analyze(model);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].pid == 11);
}

TEST_CASE("a pid that exec'd Python again is two processes, never merged", "[tree]")
{
    testing::JournalBuilder before(20);
    before.extension_import("x._C", "/s/_C.so", {1, 1});
    before.program("os.exec", "/usr/bin/python3");
    testing::JournalBuilder after(20);
    after.process(20, 1, "exec", 1'700'000'000'900'000'000);
    after.extension_import("y._C", "/s/_C.so", {1, 1});

    const auto model =
        analysis::build_model(std::vector{before.contents("journal-20-0.isj"), after.contents("journal-20-1.isj")});
    REQUIRE(model.processes.size() == 2);
    REQUIRE(model.processes[0].programs.size() == 1);
    CHECK(model.processes[0].programs[0].via == "os.exec");
    CHECK(analysis::analyze(model).empty()); // two images, one load each
}

TEST_CASE("subprocess.Popen through os.posix_spawn (CPython 3.13) is one program start", "[tree]")
{
    testing::JournalBuilder parent(30);
    parent.program("subprocess.Popen", "/usr/bin/python3");
    parent.program("os.posix_spawn", "/usr/bin/python3"); // the same start, seen twice
    parent.program("os.posix_spawn", "/usr/bin/python3"); // a second child
    parent.program("subprocess.Popen", "/usr/bin/env");
    testing::JournalBuilder child(31);
    child.process(31, 30, "exec", 1'700'000'000'900'000'000);
    const auto model =
        analysis::build_model(std::vector{parent.contents("journal-30-0.isj"), child.contents("journal-31-0.isj")});
    REQUIRE(model.processes.size() == 2);
    const auto& programs = model.processes[0].programs;
    REQUIRE(programs.size() == 3);
    CHECK(programs[0].via == "subprocess.Popen");
    CHECK(programs[1].via == "os.posix_spawn");
    CHECK(programs[2].via == "subprocess.Popen");
}

TEST_CASE("the report gives each process the end it recorded or that importscope saw", "[tree]")
{
    testing::JournalBuilder main(30);
    testing::JournalBuilder child(31);
    child.process(31, 30, "fork", 1'700'000'000'100'000'000).end_of_process("os._exit", 1);
    testing::JournalBuilder orphan(32);
    orphan.process(32, 31, "exec", 1'700'000'000'200'000'000);
    const auto model =
        analysis::build_model(std::vector{main.contents("journal-30-0.isj"), child.contents("journal-31-0.isj"),
                                          orphan.contents("journal-32-0.isj")});
    report::RunInfo run;
    run.main_pid = 30;
    run.exit.code = 0;
    run.seen_ends[32].signal = SIGKILL;
    run.seen_ends[32].how = ExitKnownBy::killed;
    const nlohmann::json r = report::build_report(run, model, analysis::conclude(model, {}));
    const auto& processes = r.at("processes");
    REQUIRE(processes.size() == 3);
    CHECK(processes[0].at("exit").at("how") == "waited");
    CHECK(processes[1].at("exit").at("how") == "os._exit");
    CHECK(processes[1].at("exit").at("description") == "exited with status 1 (os._exit)");
    CHECK(processes[2].at("exit").at("signal_name") == "SIGKILL");
    CHECK(processes[2].at("exit").at("description") == "killed by SIGKILL by importscope at the end of the run");
}

TEST_CASE("the journal tail returns whole records only, and the rest once finished", "[tree]")
{
    const testing::TempDir scratch;
    const std::filesystem::path& dir = scratch.path;
    testing::JournalBuilder b;
    b.extension("a._C", "/s/a.so", journal::FileIdentity{1, 1});
    const std::string text = b.bytes();
    const auto cut = text.size() - 10;
    {
        std::ofstream(dir / "journal-100-0.isj") << text.substr(0, cut);
        std::ofstream(dir / "not-a-journal.txt") << "ignored";
    }
    std::vector<journal::Event> seen;
    journal::JournalTail tail(dir, [&](const std::string&, journal::Event&& e, const journal::FrameTable&) { seen.push_back(std::move(e)); });
    tail.poll();
    CHECK(seen.size() == 1); // the process start; the extension's record is unfinished
    {
        std::ofstream(dir / "journal-100-0.isj", std::ios::app) << text.substr(cut);
    }
    seen.clear();
    tail.poll();
    REQUIRE(seen.size() == 1);
    CHECK(std::holds_alternative<journal::ExtensionLoad>(seen[0]));
    seen.clear();
    tail.poll();
    CHECK(seen.empty());
}

TEST_CASE("the journals read as they grew are what reading them at the end gives", "[tree]")
{
    const testing::TempDir scratch;
    const std::filesystem::path& dir = scratch.path;
    // Two journals written in pieces cut anywhere, inside the header, a record, a numbered frame,
    // a UTF-8 sequence; one ends with a record cut short, one has a damaged record.
    testing::JournalBuilder first(100);
    first.extension_import("v.deep_gemm._C", "/s/caf\xc3\xa9/_C.so", {1, 1});
    first.end(first.begin_below("m", "/s/m.py", {journal::Frame{"/t.py", 3, "<module>", "__main__", 1}}));
    journal::Frame known;
    known.number = 1;
    known.known = true;
    first.end(first.begin_below("n", "/s/n.py", {known}));
    const std::string first_text = first.bytes() + first.records().back().substr(0, 9);
    testing::JournalBuilder second(200);
    second.damaged();
    second.extension_import("deep_gemm._C", "/s/caf\xc3\xa9/_C.so", {1, 1});
    const std::string second_text = second.bytes();

    std::map<std::string, std::vector<journal::Event>> seen; // by journal, as the polls gave them
    journal::JournalTail tail(dir, [&](const std::string& journal, journal::Event&& e, const journal::FrameTable&) {
        seen[journal].push_back(std::move(e));
    });
    for (std::size_t at = 0; at < std::max(first_text.size(), second_text.size()); at += 37) {
        std::ofstream(dir / "journal-100-0.isj", std::ios::app) << first_text.substr(std::min(at, first_text.size()), 37);
        std::ofstream(dir / "journal-200-0.isj", std::ios::app) << second_text.substr(std::min(at, second_text.size()), 37);
        tail.poll();
    }
    const auto followed = tail.finish();
    const auto read = journal::read_run_journals(dir);
    REQUIRE(followed.size() == 2);
    REQUIRE(read.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(followed[i].source == read[i].source);
        CHECK(followed[i].bytes == read[i].bytes);
        CHECK(followed[i].problems == read[i].problems);
        const std::vector<journal::Event>& events = seen[followed[i].source];
        CHECK(followed[i].events.empty()); // the sink took them
        REQUIRE(events.size() == read[i].events.size());
        for (std::size_t e = 0; e < read[i].events.size(); ++e)
            CHECK(journal::encode_json(events[e]) == journal::encode_json(read[i].events[e]));
    }
    CHECK(followed[0].problems.size() == 1); // the cut line
    CHECK(followed[1].problems.size() == 1); // "not json"
}

TEST_CASE("patterns travel to children through one environment variable", "[tree]")
{
    const std::vector<std::string> patterns{"deep_gemm", "torch", "*"};
    CHECK(journal::split_patterns(journal::join_patterns(patterns)) == patterns);
    CHECK(journal::split_patterns("").empty());
}

TEST_CASE("each process has a role, from how it started and what it runs", "[tree]")
{
    const auto role = [](const std::string& start_method, std::vector<std::string> argv) {
        analysis::ProcessRecord p;
        p.start_method = start_method;
        p.argv = std::move(argv);
        return analysis::process_role(p);
    };
    CHECK(role("main", {"serve.py"}) == "main");
    CHECK(role("spawn", {"python3", "-c", "from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5)",
                         "--multiprocessing-fork"}) == "spawn worker");
    CHECK(role("forkserver", {}) == "forkserver worker");
    CHECK(role("fork", {}) == "fork child");
    CHECK(role("exec", {"python3", "-c", "from multiprocessing.forkserver import main; main(8, 9, ['__main__'])"}) ==
          "forkserver");
    CHECK(role("exec", {"python3", "-c", "from multiprocessing.resource_tracker import main;main(4)"}) ==
          "resource tracker");
    CHECK(role("exec", {"python3", "-m", "pytest"}) == "subprocess");
}

TEST_CASE("the summary counts the processes by role and names the role of those a finding is in", "[tree]")
{
    nlohmann::json report = nlohmann::json::parse(R"({
        "schema": "importscope.report/2", "tool": {},
        "run": {"exit": {"description": "exited with status 3"}, "target": {}, "duration_s": 1.0},
        "summary": {"processes": 4, "modules": 8, "extension_inits": 8},
        "processes": [{"pid": 10, "role": "main"}, {"pid": 11, "role": "spawn worker"},
                      {"pid": 12, "role": "spawn worker"}, {"pid": 13, "role": "resource tracker"}],
        "findings": [], "problems": [], "untraced": []})");
    for (int pid : {11, 12})
        report["findings"].push_back({{"kind", "duplicate-extension-init"}, {"severity", "error"}, {"pid", pid},
                                      {"module_names", {"a._C", "b._C"}}, {"file", "/s/_C.so"}, {"message", "m"},
                                      {"explanation", "e"}, {"advice", "a"}, {"evidence", nlohmann::json::object()},
                                      {"known_issue", nullptr}});
    const std::string text = report::render_summary(report.get<report::Document>(), false);
    CHECK(text.find("4 processes (main, 2 spawn workers, resource tracker), 8 modules recorded") != std::string::npos);
    CHECK(text.find("2 of 4 processes initialized /s/_C.so under 2 names (pid 11, 12: spawn workers)") !=
          std::string::npos);
}
