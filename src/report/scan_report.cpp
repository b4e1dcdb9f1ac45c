#include "importscope/report/scan_report.hpp"

#include "importscope/report/document.hpp"
#include "importscope/report/report.hpp"
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

json scan_json(const ScanInfo& info, const analysis::ScanFacts& facts, const Outcome& outcome)
{
    return {{"argv", info.argv},
            {"cwd", info.cwd},
            {"host", info.host},
            {"python", facts.python},
            {"environment", info.environment},
            {"paths", info.paths},
            {"sys_path", entries_json(facts.sys_path)},
            {"startup_code", startup_code_json(facts.startup_code)},
            {"files", facts.files},
            {"unparsable", facts.unparsable},
            {"started_at", iso_time(info.started_ns)},
            {"ended_at", iso_time(info.ended_ns)},
            {"duration_s", static_cast<double>(info.ended_ns - info.started_ns) / 1e9},
            {"outcome", outcome}};
}

} // namespace

json build_scan_report(const ScanInfo& info, const analysis::ScanFacts& facts,
                       const std::vector<analysis::Finding>& findings, const Outcome& outcome)
{
    Summary summary;
    summary.count_findings(findings);
    std::vector<std::string> problems = facts.problems;
    for (const json& file : facts.unparsable)
        problems.push_back(fmt::format("{} was not scanned: {}", file.value("file", ""), file.value("error", "")));
    return json{
        {"schema", k_schema},
        {"tool", Tool{"importscope", k_version, ""}},
        {"scan", scan_json(info, facts, outcome)},
        {"processes", json::array()},
        {"frames", json::array()},
        {"modules", json::array()},
        {"findings", findings},
        {"causes", json::array()},
        {"aliases", json::array()},
        {"problems", problems},
        {"untraced", json::array()},
        {"environment", nullptr},
        {"summary", summary},
    };
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
