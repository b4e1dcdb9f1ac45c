// analyze() (finding.hpp): every finder on the model in turn, then the environment reads of each
// error finding, the known issues that match, and the findings' order.

#include "importscope/analysis/environment_reads.hpp"
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
    std::vector<Finding> findings = find_duplicate_extension_inits(model);
    explain_by_binding(findings, options.binding_of);
    const std::vector<Finding> duplicates = findings;
    for (const std::vector<Finding>& more :
         {find_partial_aliases(model, duplicates), find_failed_extension_loads(model, duplicates),
          find_duplicate_source_execs(model),
          find_native_type_conflicts(model, options.hash_file),
          find_duplicate_extension_copies(model, options.hash_file), find_multiple_installations(model, options.distribution_of)})
        findings.insert(findings.end(), more.begin(), more.end());
    attach_environment_reads(findings, model);
    match_known_issues(findings, options);
    order_findings(findings);
    return findings;
}

void match_known_issues(std::vector<Finding>& findings, const AnalysisOptions& options)
{
    if (options.known_issues && !findings.empty())
        if (const KnownIssueCatalogue* catalogue = options.known_issues())
            for (auto& f : findings)
                f.known_issue = catalogue->match(f);
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
