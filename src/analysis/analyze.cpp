// analyze() (finding.hpp), the registry's finders (finders.cpp) on the whole run; the known issues
// that match and the findings' order, with which every analysis ends.

#include "importscope/analysis/finders.hpp"
#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/known_issues.hpp"

#include <algorithm>
#include <tuple>

namespace importscope::analysis {

const char* to_string(Severity severity)
{
    return severity == Severity::error ? "error" : "warning";
}

std::vector<Finding> analyze(const RunModel& model, const AnalysisOptions& options)
{
    return analyze(model, options, finders());
}

void match_known_issues(std::vector<Finding>& findings, const AnalysisOptions& options)
{
    if (options.known_issues && !findings.empty())
        if (const KnownIssueCatalogue* catalogue = options.known_issues())
            for (auto& f : findings)
                f.known_issue = catalogue->match(f, options.file_exists);
}

void order_findings(std::vector<Finding>& findings)
{
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        // Errors first; the rest in a fixed order so that reports compare cleanly.
        return std::tuple(a.severity != Severity::error, a.kind, a.pid, a.file) <
               std::tuple(b.severity != Severity::error, b.kind, b.pid, b.file);
    });
}

} // namespace importscope::analysis
