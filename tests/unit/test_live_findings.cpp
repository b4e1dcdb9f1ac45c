#include "journal_builder.hpp"

#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/live_findings.hpp"
#include "importscope/analysis/model.hpp"

#include <catch2/catch.hpp>

#include <tuple>

using namespace importscope;

namespace {

using Summary = std::tuple<std::string, analysis::Severity, int, std::string, std::vector<std::string>>;

std::vector<Summary> summaries(const std::vector<analysis::Finding>& findings)
{
    std::vector<Summary> out;
    out.reserve(findings.size());
    for (const auto& f : findings)
        out.emplace_back(f.kind, f.severity, f.pid, f.file, f.module_names);
    std::sort(out.begin(), out.end());
    return out;
}

/// A run seen live: every event of `contents` handed over one at a time, as the journal tail does,
/// with an update after each (a tick of the supervisor).
struct LiveRun {
    explicit LiveRun(analysis::AnalysisOptions options = {}) : findings(std::move(options)) {}

    void feed(const journal::JournalContents& contents, const std::string& journal = "journal-100-0.isj")
    {
        for (journal::Event e : contents.events) {
            findings.saw(journal, e);
            builder.add(journal, std::move(e));
            findings.update(builder);
            if (findings.errors() > 0 && first_error_at < 0)
                first_error_at = events;
            ++events;
        }
    }

    analysis::ModelBuilder builder;
    analysis::LiveFindings findings;
    int events = 0;
    int first_error_at = -1; ///< the event after which --stop-on-finding would stop
};

/// The vLLM case (testing::partial_alias_journal).
journal::JournalContents partial_alias_run()
{
    return testing::partial_alias_journal().contents();
}

/// Two different libraries binding one C++ type: no file is initialized twice.
journal::JournalContents type_conflict_run()
{
    testing::JournalBuilder b;
    b.extension_import("lib_torch_like", "/s/lib_torch_like.so", {1, 1});
    b.extension_import("lib_paddle_like", "/s/lib_paddle_like.so", {1, 2},
                       journal::ExceptionInfo{"ImportError", "generic_type: type \"cudaDeviceProp\" is already registered!",
                                              ""});
    return b.contents();
}

} // namespace

TEST_CASE("the live findings count as the journals grow and flag the first duplicate", "[live]")
{
    LiveRun run;
    run.feed(testing::JournalBuilder().contents());
    CHECK(run.findings.processes() == 1);
    CHECK(run.findings.errors() == 0);

    testing::JournalBuilder more;
    more.extension_import("v.deep_gemm._C", "/s/_C.so", {1, 1});
    more.extension_import("deep_gemm._C", "/s/_C.so", {1, 1});
    auto later = more.contents();
    later.events.erase(later.events.begin()); // the process start was already counted
    run.feed(later);
    CHECK(run.findings.imports() == 2);
    CHECK(run.findings.errors() == 1);
    CHECK(run.findings.findings().front().kind == "duplicate-extension-init");
}

TEST_CASE("the live findings are the final report's, on every kind", "[live]")
{
    analysis::AnalysisOptions options;
    options.hash_file = [](const std::string& path) -> std::optional<std::string> {
        return path.find("/copy") != std::string::npos || path.find("/site") != std::string::npos
                   ? std::optional<std::string>("same")
                   : std::nullopt;
    };
    testing::JournalBuilder copies;
    copies.extension_import("deep_gemm._C", "/site/deep_gemm/_C.so", {1, 1});
    copies.extension_import("vendored.deep_gemm._C", "/copy/vendored/deep_gemm/_C.so", {1, 2});
    testing::JournalBuilder nanobind;
    const auto id = nanobind.begin("deep_gemm._C", "extension", "/s/_C.so", journal::FileIdentity{1, 1});
    nanobind.extension("deep_gemm._C", "/s/_C.so", journal::FileIdentity{1, 1});
    auto nanobind_run = nanobind.contents();
    journal::ImportEnd warned;
    warned.pid = 100;
    warned.seq = 50;
    warned.id = id;
    warned.warnings = {"RuntimeWarning: nanobind: type 'Runtime' was already registered!"};
    nanobind_run.events.emplace_back(warned);

    for (const auto& contents : {partial_alias_run(), type_conflict_run(), copies.contents(), nanobind_run}) {
        LiveRun run(options);
        run.feed(contents);
        const auto final_findings = analysis::analyze(analysis::build_model(contents), options);
        REQUIRE_FALSE(final_findings.empty());
        CHECK(summaries(run.findings.findings()) == summaries(final_findings));
    }
}

TEST_CASE("the stop on finding fires on a type conflict between two libraries, at the import that failed", "[live]")
{
    LiveRun run;
    const auto contents = type_conflict_run();
    run.feed(contents);
    REQUIRE(run.findings.errors() == 1);
    CHECK(run.findings.findings().front().kind == "native-type-conflict");
    CHECK(run.first_error_at == static_cast<int>(contents.events.size()) - 1); // the failed import's end
}

TEST_CASE("a journal is analysed again only after an event that can make a finding", "[live]")
{
    testing::JournalBuilder b;
    for (int i = 0; i < 2000; ++i)
        b.end(b.begin("pkg.m" + std::to_string(i), "source", "/s/pkg/m" + std::to_string(i) + ".py",
                      journal::FileIdentity{1, static_cast<std::uint64_t>(10 + i)}));
    b.extension_import("a._C", "/s/a/_C.so", {1, 1});
    b.extension_import("b._C", "/s/a/_C.so", {1, 1});
    LiveRun run;
    run.feed(b.contents());
    CHECK(run.findings.errors() == 1);
    CHECK(run.findings.analyses() == 1); // the second init of _C.so; none for the 4,000 other events
}
