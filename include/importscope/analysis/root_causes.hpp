#pragma once

#include "importscope/analysis/finding.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace importscope::analysis {

/// One cause behind several findings: a sys.modules alias whose submodules were not aliased, or a
/// package's own directory on sys.path. The same cause in several processes (every rank of a
/// data-parallel run) is one cause.
struct RootCause {
    std::string id;   ///< "alias:deep_gemm", "sys.path:/site/scipy": the same in every process and report
    std::string kind; ///< "sys.modules alias", "package directory on sys.path" or "load by path"
    Severity severity = Severity::warning; ///< the worst of its findings'
    std::vector<int> pids;                 ///< the processes it acted in, ascending
    std::string message;                   ///< one line: what the cause is
    std::string advice;                    ///< the one fix for all its findings
    CauseEvidence evidence;                ///< the cause as the findings' evidence gives it
    std::vector<std::size_t> findings;     ///< indices into the findings it was found among
};

/// The causes of `findings` that explain one or more of them, each with the findings it explains:
/// a duplicate init whose evidence names the cause; the partial alias itself; a source file executed
/// again under the alias, or under a top-level name from inside the package directory; a type
/// conflict raised by an import under the alias. Ordered errors first, then by id.
std::vector<RootCause> find_root_causes(const std::vector<Finding>& findings);

} // namespace importscope::analysis
