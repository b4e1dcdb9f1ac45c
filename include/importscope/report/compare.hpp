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

} // namespace importscope::report
