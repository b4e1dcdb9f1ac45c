#pragma once

// What the analysis concludes from a run, the judgement the report writes down and no more: each
// finding with the root cause that explains it, the root causes, and what each process read of
// its environment. The report formats these; it decides nothing of its own.

#include "importscope/analysis/environment_reads.hpp"
#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/analysis/root_causes.hpp"

#include <vector>

namespace importscope::analysis {

struct Conclusions {
    std::vector<Finding> findings; ///< as found, each with caused_by naming its root cause, if any
    std::vector<RootCause> causes; ///< find_root_causes(findings)
    /// environment_reads() of each of the model's processes, in the model's order.
    std::vector<ProcessEnvironmentReads> environment_reads;
};

/// The conclusions from `model` and the findings the analysis made of it.
Conclusions conclude(const RunModel& model, std::vector<Finding> findings);

} // namespace importscope::analysis
