// How long a report takes to build from a large journal, and how much memory: 200,000 events
// (100,000 recorded imports, begin and end) written as a journal file, then read, folded, analysed
// and rendered as the supervisor does after a run.

#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/journal/reader.hpp"
#include "importscope/analysis/conclusions.hpp"
#include "importscope/journal/record_format.hpp"
#include "importscope/report/report.hpp"
#include "importscope/util/clock.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>
#include <sys/resource.h>
#include <unistd.h>

using namespace importscope;

int main(int argc, char** argv)
{
    const int imports = argc > 1 ? std::atoi(argv[1]) : 100'000;
    std::string pattern = (std::filesystem::temp_directory_path() / "importscope-bench-XXXXXX").string();
    const std::filesystem::path dir = ::mkdtemp(pattern.data());
    const auto path = dir / "journal-1-0.isj";
    {
        std::ofstream out(path, std::ios::binary);
        const auto record = [](const journal::Event& event) {
            std::string payload;
            journal::encode_record_to(payload, event);
            return journal::framed_record(payload);
        };
        const auto header = journal::file_header();
        out.write(header.data(), static_cast<std::streamsize>(header.size()));
        journal::ProcessStart start;
        start.pid = 1;
        start.start_method = "main";
        out << record(start);
        for (int i = 0; i < imports; ++i) {
            journal::ImportBegin b;
            b.pid = 1;
            b.seq = 2 * static_cast<std::uint64_t>(i) + 1;
            b.id = static_cast<std::uint64_t>(i) + 1;
            b.name = fmt::format("pkg_{}.sub_{}.mod_{}", i / 1000, (i / 100) % 10, i);
            b.kind = "source";
            b.origin = fmt::format("/tree/pkg_{}/sub_{}/mod_{}.py", i / 1000, (i / 100) % 10, i);
            b.realpath = b.origin;
            b.identity = journal::FileIdentity{2049, static_cast<std::uint64_t>(i)};
            b.loader = "_frozen_importlib_external.SourceFileLoader";
            b.stack = {{"/tree/target.py", 4, "<module>", "__main__"}, {b.origin, 1, "<module>", b.name}};
            out << record(b);
            journal::ImportEnd e;
            e.pid = 1;
            e.seq = b.seq + 1;
            e.id = b.id;
            e.mono_ns = 1000;
            out << record(e);
        }
    }
    const auto size = std::filesystem::file_size(path);

    // Each phase as the supervisor runs it, timed on its own.
    std::vector<std::pair<const char*, std::int64_t>> phases;
    std::int64_t mark = monotonic_ns();
    const std::int64_t started = mark;
    auto phase = [&](const char* name) {
        const std::int64_t now = monotonic_ns();
        phases.emplace_back(name, now - mark);
        mark = now;
    };
    auto journals = journal::read_run_journals(dir);
    phase("read");
    const auto model = analysis::build_model(std::move(journals));
    phase("model");
    const auto findings = analysis::analyze(model);
    phase("analyze");
    report::RunInfo run;
    run.main_pid = 1;
    run.exit.code = 0;
    const auto report = report::build_report(run, model, analysis::conclude(model, findings));
    phase("report");
    std::size_t text_size = 0;
    write_file_atomically(dir / "report.json", [&](const TextSink& sink) {
        report::write_report(report, model, nullptr, [&](std::string_view piece) {
            text_size += piece.size();
            sink(piece);
        });
    });
    phase("write");
    const double seconds = static_cast<double>(monotonic_ns() - started) / 1e9;

    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    fmt::print("journal: {} events, {:.1f} MiB; report: {:.1f} MiB; built in {:.3f} s; peak RSS {:.0f} MiB\n",
               2 * imports + 1, static_cast<double>(size) / (1 << 20), static_cast<double>(text_size) / (1 << 20),
               seconds, static_cast<double>(usage.ru_maxrss) / 1024);
    for (const auto& [name, ns] : phases)
        fmt::print("  {:<8} {:.3f} s\n", name, static_cast<double>(ns) / 1e9);
    std::filesystem::remove_all(dir);
    return 0;
}
