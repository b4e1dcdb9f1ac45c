#include "importscope/report/scan_report.hpp"

#include "importscope/report/document.hpp"
#include "importscope/report/report.hpp"
#include "importscope/report/summary_count.hpp"
#include "importscope/util/error.hpp"
#include "importscope/version.hpp"

#include <fmt/format.h>


namespace importscope::report {

namespace {

using nlohmann::json;

json entries_json(const std::vector<analysis::ScannedEntry>& entries)
{
    json out = json::array();
    for (const analysis::ScannedEntry& e : entries) {
        json item = {{"entry", e.entry}, {"path", e.path}, {"origin", e.origin}};
        if (!e.pth.file.empty())
            item["pth"] = {{"file", e.pth.file}, {"line", e.pth.line}};
        out.push_back(std::move(item));
    }
    return out;
}

json startup_code_json(const std::vector<analysis::StartupCode>& code)
{
    json out = json::array();
    for (const analysis::StartupCode& c : code)
        out.push_back({{"kind", c.kind}, {"file", c.file}, {"line", c.line}, {"text", c.text}});
    return out;
}

/// The report's "scan": what the renderers read typed, the rest as the report writes it.
Scan scan_record(const ScanInfo& info, const analysis::ScanFacts& facts, const Outcome& outcome)
{
    Scan scan;
    scan.files = facts.files;
    scan.python = facts.python.get<PythonInfo>(); // {"executable", "version"}
    scan.duration_s = static_cast<double>(info.ended_ns - info.started_ns) / 1e9;
    scan.unparsable = facts.unparsable.get<std::vector<json>>();
    scan.outcome = outcome;
    scan.rest = {{"argv", info.argv},
                 {"cwd", info.cwd},
                 {"host", info.host},
                 {"environment", info.environment},
                 {"paths", info.paths},
                 {"sys_path", entries_json(facts.sys_path)},
                 {"startup_code", startup_code_json(facts.startup_code)},
                 {"started_at", iso_time(info.started_ns)},
                 {"ended_at", iso_time(info.ended_ns)}};
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
    for (const json& file : facts.unparsable)
        report.problems.push_back(
            fmt::format("{} was not scanned: {}", file.value("file", ""), file.value("error", "")));
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
