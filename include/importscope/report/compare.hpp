#pragma once

#include "importscope/report/document.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace importscope::report {

/// What changed between two reports of the same reproducer (before and after an upgrade).
/// Findings are matched by kind, module names and the file path relative to its site-packages
/// or package root, never by pid or absolute path.
struct ReportDiff {
    std::vector<ReportedFinding> appeared;                     ///< in NEW only
    std::vector<ReportedFinding> disappeared;                  ///< in OLD only
    std::vector<ReportedFinding> stayed;                       ///< in both (NEW's copy)
    nlohmann::json version_changes = nlohmann::json::object(); ///< package -> {old, new}
};

/// The key a finding is matched by: "kind | module names | relative file".
std::string finding_key(const analysis::Finding& finding);

ReportDiff diff_reports(const Document& old_report, const Document& new_report);

/// The diff for a terminal or a CI log.
std::string render_diff(const ReportDiff& diff);

/// One report from the reports of several nodes or ranks: processes keep the host they ran on,
/// findings, frames and modules are concatenated (each record's frame indexes moved along), the
/// summary is counted again. A run given more than once (the same host, start, end, command line
/// and processes) is merged once, and `problems` says so. The reports are read_report's (report/2). Throws Error (status 2)
/// when given no report, or a scan's.
Document merge_reports(const std::vector<Document>& reports);

} // namespace importscope::report
