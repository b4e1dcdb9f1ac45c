// The registry of finders (finders.hpp): the live view and the final analysis both take from it
// which finders run and which events can change their findings, so they agree.

#include "journal_builder.hpp"

#include "importscope/analysis/finders.hpp"
#include "importscope/analysis/live_findings.hpp"
#include "importscope/analysis/model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace importscope;

namespace {

const std::string k_journal = "journal-100-0.jsonl";

/// A finder of the test's own: an error for each environment variable a process read.
std::vector<analysis::Finding> one_per_read(const analysis::RunModel& model, const analysis::AnalysisOptions&,
                                            const std::vector<analysis::Finding>&)
{
    std::vector<analysis::Finding> found;
    for (const auto& process : model.processes)
        for (const auto& read : process.environment_reads) {
            analysis::Finding f;
            f.kind = "test-read";
            f.severity = analysis::Severity::error;
            f.pid = process.pid;
            f.file = read.name;
            found.push_back(std::move(f));
        }
    return found;
}

bool reads_trigger(const journal::Event& event, const analysis::LiveContext&)
{
    return std::get<journal::EnvironmentRead>(event).name == "TRIGGER";
}

const analysis::Finder k_reads[] = {
    {"test-read", analysis::EventKinds::of<journal::EnvironmentRead>(), nullptr, one_per_read},
};
const analysis::Finder k_trigger_reads[] = {
    {"test-read", analysis::EventKinds::of<journal::EnvironmentRead>(), reads_trigger, one_per_read},
};

journal::EnvironmentRead read_of(const std::string& name, std::uint64_t seq)
{
    journal::EnvironmentRead e;
    e.pid = 100;
    e.seq = seq;
    e.name = name;
    return e;
}

/// A live view on a registry, and the model builder behind it, fed one event at a time as the journal tail does.
struct RegistryRun {
    explicit RegistryRun(std::span<const analysis::Finder> registry) : findings({}, registry) {}

    void feed(journal::Event event)
    {
        findings.saw(k_journal, event);
        builder.add(k_journal, std::move(event));
        findings.update(builder);
    }
    void feed(const journal::JournalContents& contents)
    {
        for (const journal::Event& e : contents.events)
            feed(e);
    }

    analysis::ModelBuilder builder;
    analysis::LiveFindings findings;
};

std::vector<std::string> files_of(const std::vector<analysis::Finding>& findings)
{
    std::vector<std::string> files;
    files.reserve(findings.size());
    for (const auto& f : findings)
        files.push_back(f.kind + " " + f.file);
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

TEST_CASE("a finder registered for an event makes the live view analyse again on it, and no other event does",
          "[finders]")
{
    RegistryRun run(k_reads);
    run.feed(testing::JournalBuilder().contents()); // the process's start
    journal::Note note;
    note.pid = 100;
    note.seq = 1;
    note.text = "a gap in the record";
    run.feed(note);
    CHECK(run.findings.analyses() == 0); // no finder of the registry names a note

    run.feed(read_of("HOME", 2));
    CHECK(run.findings.analyses() == 1);
    CHECK(run.findings.errors() == 1);

    // A second init of one file is a finding of the default registry's, not of this one: the live
    // view does not analyse again, and the final analysis with the same registry finds no more.
    journal::ExtensionLoad load;
    load.pid = 100;
    load.name = "a._C";
    load.path = "/s/a/_C.so";
    load.identity = journal::FileIdentity{1, 1};
    load.seq = 3;
    run.feed(load);
    load.name = "b._C";
    load.seq = 4;
    run.feed(load);
    CHECK(run.findings.analyses() == 1);

    const analysis::RunModel model = run.builder.finish({});
    CHECK(files_of(analysis::analyze(model, {}, k_reads)) == files_of(run.findings.findings()));
    CHECK(files_of(run.findings.findings()) == std::vector<std::string>{"test-read HOME"});
    // The default registry, on the same model, finds the second init.
    CHECK(files_of(analysis::analyze(model, {})).size() == 1);
    CHECK(analysis::analyze(model, {}).front().kind == "duplicate-extension-init");
}

TEST_CASE("a finder's screen narrows its events for the live view", "[finders]")
{
    RegistryRun run(k_trigger_reads);
    run.feed(testing::JournalBuilder().contents());
    run.feed(read_of("HOME", 1));
    CHECK(run.findings.analyses() == 0);
    run.feed(read_of("TRIGGER", 2));
    CHECK(run.findings.analyses() == 1);
    // Its analysis sees the whole journal, as the final one does.
    CHECK(files_of(run.findings.findings()) == std::vector<std::string>{"test-read HOME", "test-read TRIGGER"});
    CHECK(files_of(analysis::analyze(run.builder.finish({}), {}, k_trigger_reads)) ==
          files_of(run.findings.findings()));
}

TEST_CASE("the registry has each finding kind of a run once, duplicate inits first, each with its events",
          "[finders]")
{
    const auto registry = analysis::finders();
    REQUIRE_FALSE(registry.empty());
    CHECK(registry.front().kind == "duplicate-extension-init");
    std::set<std::string_view> kinds;
    for (const analysis::Finder& finder : registry) {
        INFO(finder.kind);
        CHECK(kinds.insert(finder.kind).second);
        CHECK(std::find(analysis::k_finding_kinds.begin(), analysis::k_finding_kinds.end(), finder.kind) !=
              analysis::k_finding_kinds.end());
        CHECK_FALSE(finder.changed_by.empty());
        CHECK(finder.find != nullptr);
    }
}

TEST_CASE("events that no finder of the registry names never make the live view analyse again", "[finders]")
{
    testing::JournalBuilder b;
    b.program("subprocess.Popen", "/bin/true");
    b.finalizing();
    b.end_of_process("exit", 0);
    RegistryRun run(analysis::finders());
    run.feed(b.contents());
    run.feed(read_of("HOME", 10));
    CHECK(run.findings.analyses() == 0);
    b.alias("deep_gemm", "v.deep_gemm"); // an alias is partial-alias's
    RegistryRun aliased(analysis::finders());
    aliased.feed(b.contents());
    CHECK(aliased.findings.analyses() == 1);
}
