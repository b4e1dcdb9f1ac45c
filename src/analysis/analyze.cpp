#include "importscope/analysis/finding.hpp"

#include <algorithm>
#include <tuple>

namespace importscope::analysis {

const char* to_string(Severity severity)
{
    return severity == Severity::error ? "error" : "warning";
}

std::vector<Finding> analyze(const RunModel& model)
{
    std::vector<Finding> findings = find_duplicate_extension_inits(model);
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        // Errors first; the rest in a fixed order so that reports compare cleanly.
        return std::tuple(a.severity != Severity::error, a.kind, a.pid, a.file) <
               std::tuple(b.severity != Severity::error, b.kind, b.pid, b.file);
    });
    return findings;
}

} // namespace importscope::analysis
