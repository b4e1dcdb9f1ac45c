#include "importscope/report/merge.hpp"

#include "importscope/report/compare.hpp"
#include "importscope/report/reader.hpp"
#include "importscope/report/report.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cerrno>

namespace importscope::report {

using nlohmann::json;

/// An anonymous temporary file that takes one section's records, a compact line each, and gives
/// them back into the merged report's text; gone when closed.
struct ReportMerge::Scratch {
    Scratch() : file(std::tmpfile(), &std::fclose)
    {
        if (!file)
            throw system_error("merge: cannot create a temporary file", errno);
    }

    void record(const json& value)
    {
        const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
        const char* separator = count++ == 0 ? "    " : ",\n    ";
        if (std::fputs(separator, file.get()) < 0 || std::fwrite(text.data(), 1, text.size(), file.get()) != text.size())
            throw system_error("merge: cannot write a temporary file", errno);
    }

    /// `"key": [ ... ]` with the records, then `,` and a newline.
    void write(const TextSink& sink, std::string_view key)
    {
        sink(fmt::format("  \"{}\": [\n", key));
        std::rewind(file.get());
        std::array<char, 1 << 20> buffer{};
        for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0;)
            sink(std::string_view(buffer.data(), n));
        if (std::ferror(file.get()))
            throw system_error("merge: cannot read a temporary file", errno);
        sink(count > 0 ? "\n  ],\n" : "  ],\n");
    }

    std::unique_ptr<std::FILE, decltype(&std::fclose)> file;
    std::size_t count = 0;
};

struct ReportMerge::Group {
    SharedFinding shared;
    std::set<std::size_t> runs;
    std::set<std::int64_t> ranks;
    std::set<std::string> hosts;
};

namespace {

/// Which of two runs' outcomes a merged report shows: the one a CI gate must not miss.
int outcome_rank(const std::optional<Outcome>& outcome)
{
    static const std::array<const char*, 6> k_order = {"ok",           "target-failed", "timed-out",
                                                       "not-executed", "tool-failure",  "findings"};
    if (!outcome)
        return -1;
    for (std::size_t i = 0; i < k_order.size(); ++i)
        if (outcome->reason == k_order[i])
            return static_cast<int>(i);
    return -1;
}

void merge_causes(std::vector<ReportedCause>& merged, const std::vector<ReportedCause>& causes)
{
    for (const ReportedCause& cause : causes) {
        auto same = std::find_if(merged.begin(), merged.end(), [&](const ReportedCause& c) { return c.id == cause.id; });
        if (same == merged.end()) {
            merged.push_back(cause);
            continue;
        }
        same->findings += cause.findings;
        if (cause.severity == analysis::Severity::error)
            same->severity = analysis::Severity::error;
        std::set<int> pids(same->pids.begin(), same->pids.end());
        pids.insert(cause.pids.begin(), cause.pids.end());
        same->pids.assign(pids.begin(), pids.end());
    }
}

void shift_frame_indexes(ReportedModule& record, std::uint64_t first)
{
    for (std::uint64_t& index : record.stack)
        index += first;
    for (std::optional<std::uint64_t>* frame : {&record.call_site, &record.caught_at})
        if (*frame)
            **frame += first;
}

/// What tells one run from another: its host, start, end, command line and processes. The same
/// report given twice (a glob that matches it twice, a retried upload) has the same identity; a
/// run without its start (a hand-made report) has none and is never taken for another.
std::optional<std::string> run_identity(const Document& report)
{
    if (report.run->started_at.empty())
        return std::nullopt;
    std::vector<int> pids;
    for (const auto& p : report.processes)
        pids.push_back(p.pid);
    std::sort(pids.begin(), pids.end());
    const Run& run = *report.run;
    return fmt::format("{}\n{}\n{}\n{}\n{}", run.host, run.started_at, run.ended_at, fmt::join(run.argv, "\x1f"),
                       fmt::join(pids, ","));
}

} // namespace

std::string ranges_text(const std::set<std::int64_t>& numbers)
{
    std::vector<std::string> ranges;
    for (auto it = numbers.begin(); it != numbers.end();) {
        const std::int64_t first = *it;
        std::int64_t last = first;
        while (++it != numbers.end() && *it == last + 1)
            ++last;
        ranges.push_back(last == first ? std::to_string(first) : fmt::format("{}-{}", first, last));
    }
    return fmt::format("{}", fmt::join(ranges, ","));
}

ReportMerge::ReportMerge()
    : m_frames(std::make_unique<Scratch>()), m_modules(std::make_unique<Scratch>()),
      m_processes(std::make_unique<Scratch>()), m_findings(std::make_unique<Scratch>()),
      m_untraced(std::make_unique<Scratch>())
{
}

ReportMerge::~ReportMerge() = default;

void ReportMerge::add(const Document& report, const std::string& source)
{
    if (!report.run)
        throw Error("merge takes the reports of importscope run; a scan's report has no run to merge");
    if (const auto identity = run_identity(report)) {
        const std::size_t times = ++m_times_given[*identity];
        if (times == 2)
            m_given_again.emplace_back(*identity, fmt::format("{}: the run started at {}", report.run->host,
                                                              report.run->started_at));
        if (times > 1)
            return;
    }
    add_run(report, source);
}

void ReportMerge::add_run(const Document& report, const std::string& source)
{
    const Run& run = *report.run;
    const std::string& host = run.host;
    if (!m_first) {
        m_first.emplace();
        m_first->schema = report.schema;
        m_first->tool = report.tool;
        m_first->run = report.run;
        m_first->run->merged_from.emplace();
        m_first->aliases = report.aliases;
        m_first->environment = report.environment;
    }
    for (const journal::Frame& frame : report.frames)
        m_frames->record(json(frame));
    for (ReportedModule module : report.modules) {
        module.host = host;
        shift_frame_indexes(module, m_frame_count);
        m_modules->record(json(module));
    }
    m_frame_count += report.frames.size();
    for (ReportedProcess process : report.processes) {
        process.host = host;
        m_processes->record(json(process));
    }
    for (auto untraced : report.untraced) {
        untraced.host = host;
        m_untraced->record(json(untraced));
    }
    m_count.add(report);
    merge_causes(m_causes, report.causes);
    for (const std::string& problem : report.problems)
        m_problems.push_back(fmt::format("{}: {}", host, problem));
    m_runs.push_back({host, run.argv, run.started_at, run.exit, run.outcome, run.job, report.findings.size(),
                      source.empty() ? std::nullopt : std::optional(source)});
    if (run.outcome && outcome_rank(run.outcome) > outcome_rank(m_outcome))
        m_outcome = run.outcome;
    add_findings(report, m_runs.size() - 1);
}

void ReportMerge::add_findings(const Document& report, std::size_t run)
{
    const std::string& host = report.run->host;
    const std::optional<std::int64_t> rank = report.run->job ? report.run->job->rank : std::nullopt;
    for (ReportedFinding finding : report.findings) {
        finding.host = host;
        const std::string key = finding_key(finding);
        auto [it, inserted] = m_groups.try_emplace(key);
        Group& group = it->second;
        if (inserted) {
            m_group_order.push_back(key);
            group.shared.key = key;
            group.shared.kind = finding.kind;
            group.shared.message = finding.message;
        }
        if (finding.severity == analysis::Severity::error)
            group.shared.severity = analysis::Severity::error;
        ++group.shared.processes;
        group.runs.insert(run);
        group.hosts.insert(host);
        if (rank)
            group.ranks.insert(*rank);
        m_findings->record(json(finding));
    }
}

AcrossRuns ReportMerge::across_runs() const
{
    AcrossRuns across;
    across.runs = m_runs.size();
    std::set<std::string> hosts;
    std::set<std::int64_t> ranks;
    for (std::size_t i = 0; i < m_runs.size(); ++i) {
        const MergedRun& run = m_runs[i];
        hosts.insert(run.host);
        if (run.job && run.job->rank)
            ranks.insert(*run.job->rank);
        if (run.findings.value_or(0) == 0)
            across.clean.push_back(i);
    }
    across.hosts = hosts.size();
    if (!ranks.empty())
        across.ranks = ranges_text(ranks);
    for (const std::string& key : m_group_order) {
        const Group& group = m_groups.at(key);
        SharedFinding shared = group.shared;
        shared.runs = group.runs.size();
        if (!group.ranks.empty())
            shared.ranks = ranges_text(group.ranks);
        shared.hosts.assign(group.hosts.begin(), group.hosts.end());
        across.findings.push_back(std::move(shared));
    }
    return across;
}

void ReportMerge::write(const TextSink& sink)
{
    if (!m_first)
        throw Error("merge needs at least one report");
    std::vector<std::string> problems = m_problems;
    for (const auto& [identity, run] : m_given_again)
        problems.push_back(fmt::format("{} was given {} times; it is merged once", run, m_times_given.at(identity)));

    Document rest = *m_first;
    rest.run->merged_from = m_runs;
    rest.run->outcome = m_outcome;
    rest.causes = m_causes;
    rest.problems = std::move(problems);
    rest.summary = m_count.summary();
    rest.across_runs = across_runs();
    json tree = rest;
    for (const char* streamed : {"frames", "modules", "processes", "findings", "untraced"})
        tree.erase(streamed);
    tree.erase("schema");

    sink(fmt::format("{{\n  \"schema\": {},\n", json(m_first->schema).dump()));
    m_frames->write(sink, "frames");
    m_modules->write(sink, "modules");
    m_processes->write(sink, "processes");
    m_findings->write(sink, "findings");
    m_untraced->write(sink, "untraced");
    const std::string text = pretty_text(tree); // "{\n  ...keys...\n}\n"
    sink(std::string_view(text).substr(2));
}

Document merge_reports(const std::vector<Document>& reports)
{
    ReportMerge merge;
    for (const Document& report : reports)
        merge.add(report, "");
    std::string text;
    merge.write([&](std::string_view piece) { text += piece; });
    return parse_report(text, "the merged report");
}

} // namespace importscope::report
