#include "importscope/report/compare.hpp"

#include "importscope/report/escape.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace importscope::report {

using nlohmann::json;

namespace {

/// The file as a package sees it: after site-packages/ or dist-packages/, else from the top-level
/// package of the finding's first module name, else its last two components.
std::string relative_file(const analysis::Finding& finding)
{
    const std::string& file = finding.file;
    for (const char* marker : {"/site-packages/", "/dist-packages/"})
        if (const auto at = file.rfind(marker); at != std::string::npos)
            return file.substr(at + std::string(marker).size());
    for (const std::string& name : finding.module_names) {
        const std::string top = name.substr(0, name.find('.'));
        if (const auto at = file.rfind("/" + top + "/"); at != std::string::npos)
            return file.substr(at + 1);
    }
    const auto last = file.rfind('/');
    const auto before = last == std::string::npos || last == 0 ? std::string::npos : file.rfind('/', last - 1);
    return before == std::string::npos ? file : file.substr(before + 1);
}

std::map<std::string, const ReportedFinding*> by_key(const Document& report)
{
    std::map<std::string, const ReportedFinding*> findings;
    for (const auto& f : report.findings)
        findings.emplace(finding_key(f), &f);
    return findings;
}

void compare_versions(const json& old_env, const json& new_env, const char* section, json& changes)
{
    const json empty = json::object();
    const json& a = old_env.is_object() ? old_env.value(section, empty) : empty;
    const json& b = new_env.is_object() ? new_env.value(section, empty) : empty;
    std::set<std::string> names;
    for (const auto& [k, v] : a.items())
        names.insert(k);
    for (const auto& [k, v] : b.items())
        names.insert(k);
    for (const auto& name : names) {
        const json before = a.value(name, json());
        const json after = b.value(name, json());
        if (before != after)
            changes[name] = {{"old", before}, {"new", after}};
    }
}

} // namespace

std::string finding_key(const analysis::Finding& finding)
{
    return fmt::format("{} | {} | {}", finding.kind, fmt::join(finding.module_names, ","), relative_file(finding));
}

ReportDiff diff_reports(const Document& old_report, const Document& new_report)
{
    const auto before = by_key(old_report);
    const auto after = by_key(new_report);
    ReportDiff diff;
    for (const auto& [key, f] : after)
        (before.count(key) ? diff.stayed : diff.appeared).push_back(*f);
    for (const auto& [key, f] : before)
        if (!after.count(key))
            diff.disappeared.push_back(*f);
    compare_versions(old_report.environment, new_report.environment, "packages", diff.version_changes);
    return diff;
}

std::string render_diff(const ReportDiff& diff)
{
    std::string out;
    auto section = [&](const char* title, const std::vector<ReportedFinding>& findings) {
        out += fmt::format("{} ({}):\n", title, findings.size());
        for (const auto& f : findings)
            out += fmt::format("  {} {}: {}\n", analysis::to_string(f.severity), terminal_text(f.kind),
                              terminal_text(finding_key(f)));
    };
    section("disappeared", diff.disappeared);
    section("appeared", diff.appeared);
    section("stayed", diff.stayed);
    out += fmt::format("package versions changed ({}):\n", diff.version_changes.size());
    for (const auto& [name, change] : diff.version_changes.items())
        out += fmt::format("  {}: {} -> {}\n", terminal_text(name),
                           terminal_text(change.at("old").is_null() ? "absent" : change.at("old").dump()),
                           terminal_text(change.at("new").is_null() ? "absent" : change.at("new").dump()));
    return out;
}

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

/// The same cause in several reports (every node of a job) is one: its findings counted together.
void merge_causes(std::vector<Cause>& merged, const std::vector<Cause>& causes)
{
    for (const Cause& cause : causes) {
        auto same = std::find_if(merged.begin(), merged.end(), [&](const Cause& c) { return c.id == cause.id; });
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

/// A module record's frame indexes moved along by `first`, where its report's frames begin in the
/// merged report's "frames".
void shift_frame_indexes(ModuleRecord& record, std::uint64_t first)
{
    for (std::uint64_t& index : record.stack)
        index += first;
    for (std::optional<std::uint64_t>* frame : {&record.call_site, &record.caught_at})
        if (*frame)
            **frame += first;
}

/// Each record of `from` appended to `to`, with the host it ran on.
template <typename Record>
void append_hosted(std::vector<Record>& to, const std::vector<Record>& from, const std::string& host)
{
    for (Record record : from) {
        record.host = host;
        to.push_back(std::move(record));
    }
}

/// The merged report's summary, counted again from what it holds.
Summary count_merged(const Document& merged)
{
    Summary summary;
    summary.count_findings(merged.findings);
    std::set<std::pair<std::string, int>> with_findings;
    for (const auto& f : merged.findings)
        with_findings.insert({f.host.value_or(""), f.pid});
    std::set<std::pair<std::string, int>> processes; // one per process, whatever its images
    for (const auto& p : merged.processes)
        processes.insert({p.host.value_or(""), p.pid});
    summary.processes = processes.size();
    summary.processes_with_findings = with_findings.size();
    summary.python_processes = processes.size() + merged.untraced.size();
    summary.untraced_processes = merged.untraced.size();
    summary.modules = merged.modules.size();
    summary.extension_inits = static_cast<std::size_t>(std::count_if(
        merged.modules.begin(), merged.modules.end(), [](const ModuleRecord& m) { return m.initialized_extension; }));
    return summary;
}

/// One run's report appended to the merged one.
void merge_one(Document& merged, const Document& report, const Run& run)
{
    const std::string& host = run.host;
    append_hosted(merged.processes, report.processes, host);
    const std::uint64_t first_frame = merged.frames.size();
    merged.frames.insert(merged.frames.end(), report.frames.begin(), report.frames.end());
    for (ModuleRecord module : report.modules) {
        module.host = host;
        shift_frame_indexes(module, first_frame);
        merged.modules.push_back(std::move(module));
    }
    append_hosted(merged.findings, report.findings, host);
    merge_causes(merged.causes, report.causes);
    append_hosted(merged.untraced, report.untraced, host);
    for (const std::string& problem : report.problems)
        merged.problems.push_back(fmt::format("{}: {}", host, problem));
    merged.run->merged_from->push_back({host, run.argv, run.started_at, run.exit, run.outcome});
    if (run.outcome && outcome_rank(run.outcome) > outcome_rank(merged.run->outcome))
        merged.run->outcome = run.outcome;
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

Document merge_reports(const std::vector<Document>& reports)
{
    if (reports.empty())
        throw Error("merge needs at least one report");
    if (std::any_of(reports.begin(), reports.end(), [](const Document& report) { return !report.run; }))
        throw Error("merge takes the reports of importscope run; a scan's report has no run to merge");
    // From the first report: what the runs share, its run (which lists them all) and its aliases;
    // every list of records is gathered from all of them.
    const Document& first = reports.front();
    Document merged;
    merged.schema = first.schema;
    merged.tool = first.tool;
    merged.run = first.run;
    merged.aliases = first.aliases;
    merged.environment = first.environment;
    merged.run->merged_from.emplace();
    std::map<std::string, std::size_t> times_given; // by run_identity
    for (const Document& report : reports) {
        const auto identity = run_identity(report);
        if (!identity || ++times_given[*identity] == 1)
            merge_one(merged, report, *report.run);
    }
    for (const Document& report : reports)
        if (const auto it = times_given.find(run_identity(report).value_or(""));
            it != times_given.end() && it->second > 1) {
            merged.problems.push_back(fmt::format("{}: the run started at {} was given {} times; it is merged once",
                                                  report.run->host, report.run->started_at, it->second));
            times_given.erase(it);
        }
    merged.summary = count_merged(merged);
    return merged;
}

} // namespace importscope::report
