#include "importscope/analysis/conclusions.hpp"

namespace importscope::analysis {

Conclusions conclude(const RunModel& model, std::vector<Finding> findings)
{
    Conclusions conclusions;
    conclusions.causes = find_root_causes(findings);
    for (const RootCause& cause : conclusions.causes)
        for (const std::size_t index : cause.findings)
            findings[index].caused_by = cause.id;
    conclusions.findings = std::move(findings);
    conclusions.environment_reads.reserve(model.processes.size());
    for (const ProcessRecord& process : model.processes)
        conclusions.environment_reads.push_back(environment_reads(process));
    return conclusions;
}

} // namespace importscope::analysis
