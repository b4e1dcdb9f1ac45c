#include "importscope/report/scan_report.hpp"

#include "importscope/report/document.hpp"
#include "importscope/report/report.hpp"
#include "importscope/report/summary_count.hpp"
#include "importscope/util/error.hpp"
#include "importscope/version.hpp"

#include <fmt/format.h>


namespace importscope::report {

namespace {

std::vector<ScannedPathEntry> path_entries(const std::vector<analysis::ScannedEntry>& entries)
{
    std::vector<ScannedPathEntry> out;
    for (const analysis::ScannedEntry& e : entries) {
        ScannedPathEntry& item = out.emplace_back();
        item.entry = e.entry;
        item.path = e.path;
        item.origin = e.origin;
        if (!e.pth.file.empty())
            item.pth = e.pth;
    }
    return out;
}

/// The report's "scan".
Scan scan_record(const ScanInfo& info, const analysis::ScanFacts& facts, const Outcome& outcome)
{
    Scan scan;
    scan.argv = info.argv;
    scan.cwd = info.cwd;
    scan.host = info.host;
    scan.environment = info.environment;
    scan.paths = info.paths;
    scan.sys_path = path_entries(facts.sys_path);
    scan.startup_code = facts.startup_code;
    scan.files = facts.files;
    scan.python = facts.python.get<PythonInfo>(); // {"executable", "version"}
    scan.started_at = iso_time(info.started_ns);
    scan.ended_at = iso_time(info.ended_ns);
    scan.duration_s = static_cast<double>(info.ended_ns - info.started_ns) / 1e9;
    scan.unparsable = facts.unparsable;
    scan.outcome = outcome;
    return scan;
}

} // namespace

Document build_scan_report(const ScanInfo& info, const analysis::ScanFacts& facts,
                           const std::vector<analysis::Finding>& findings, const Outcome& outcome)
{
    Document report;
    report.schema = k_schema;
    report.tool = {"importscope", k_version, ""};
    report.scan = scan_record(info, facts, outcome);
    for (const analysis::Finding& finding : findings)
        report.findings.push_back({finding, std::nullopt});
    report.problems = facts.problems;
    for (const analysis::UnparsableFile& file : facts.unparsable)
        report.problems.push_back(fmt::format("{} was not scanned: {}", file.file, file.error));
    report.summary = summarize(report);
    return report;
}

Outcome decide_scan_outcome(std::size_t selected_findings, const std::vector<analysis::UnreadFile>& unread)
{
    Outcome outcome;
    for (const analysis::UnreadFile& file : unread)
        outcome.failures.push_back(fmt::format("{} could not be read: {}", file.path, file.error));
    if (selected_findings == 0 && !unread.empty()) {
        outcome.status = static_cast<int>(ExitStatus::tool_failure);
        outcome.reason = "tool-failure";
        outcome.message = fmt::format("the scan is incomplete: {} file{} or director{} could not be read, and no "
                                      "finding that --fail-on selects was made in the rest",
                                      unread.size(), unread.size() == 1 ? "" : "s", unread.size() == 1 ? "y" : "ies");
    } else if (selected_findings > 0) {
        outcome.status = static_cast<int>(ExitStatus::static_findings);
        outcome.reason = "findings";
        outcome.message = fmt::format("{} finding{} that --fail-on selects", selected_findings,
                                      selected_findings == 1 ? "" : "s");
    } else {
        outcome.reason = "ok";
        outcome.message = "no finding that --fail-on selects";
    }
    return outcome;
}

} // namespace importscope::report
