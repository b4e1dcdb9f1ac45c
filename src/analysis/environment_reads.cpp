#include "importscope/analysis/environment_reads.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

namespace importscope::analysis {

namespace {

using Line = std::tuple<std::string, int, std::string>; // file, line, function

Line line_of(const journal::Frame& frame)
{
    return {frame.file, frame.line, frame.function};
}

EnvironmentReadEvidence read_evidence(const VariableRead& variable, const journal::Frame& at, bool on_import_path)
{
    return {variable.name,
            variable.set,
            variable.set ? std::optional<std::string>(variable.value) : std::nullopt,
            at.file,
            at.line,
            on_import_path,
            {}};
}

/// The reads that could have chosen the finding's path: made from a file on its import stacks
/// before its last load. A read elsewhere in the same package (a version lookup, a default left
/// unset) names nothing about this path and is left out.
std::vector<EnvironmentReadEvidence> reads_for(const ProcessEnvironmentReads& reads, const Finding& finding)
{
    const ImportPath path = import_path_of(finding.evidence);
    std::vector<EnvironmentReadEvidence> on_path;
    for (const VariableRead& variable : reads.variables)
        for (std::size_t i = 0; i < variable.read_at.size(); ++i) {
            const bool before = path.last_load == 0 || i >= variable.read_seq.size() || variable.read_seq[i] < path.last_load;
            if (before && path.files.count(variable.read_at[i].file) != 0) {
                on_path.push_back(read_evidence(variable, variable.read_at[i], true));
                break;
            }
        }
    if (on_path.size() > k_reads_per_finding)
        on_path.erase(on_path.begin() + static_cast<std::ptrdiff_t>(k_reads_per_finding), on_path.end());
    return on_path;
}

} // namespace

ProcessEnvironmentReads environment_reads(const ProcessRecord& process)
{
    std::map<Line, std::size_t> variables_per_line;
    for (const auto& read : process.environment_reads)
        ++variables_per_line[line_of(read.frame)];
    ProcessEnvironmentReads out;
    std::map<Line, std::size_t> bulk_index;
    std::map<std::string, std::size_t> variable_index;
    for (const auto& read : process.environment_reads) {
        const Line line = line_of(read.frame);
        if (variables_per_line[line] >= k_bulk_read_variables) {
            if (bulk_index.emplace(line, out.bulk.size()).second)
                out.bulk.push_back({read.frame, variables_per_line[line]});
            continue;
        }
        const auto [it, inserted] = variable_index.emplace(read.name, out.variables.size());
        if (inserted)
            out.variables.push_back({read.name, read.set, read.value, {}, {}});
        out.variables[it->second].read_at.push_back(read.frame);
        out.variables[it->second].read_seq.push_back(read.seq);
    }
    return out;
}

void attach_environment_reads(std::vector<Finding>& findings, const RunModel& model)
{
    std::map<int, ProcessEnvironmentReads> by_pid; // made for the processes of error findings only
    for (Finding& finding : findings) {
        if (finding.severity != Severity::error)
            continue;
        const auto process = std::find_if(model.processes.begin(), model.processes.end(),
                                          [&](const ProcessRecord& p) { return p.pid == finding.pid; });
        if (process == model.processes.end() || process->environment_reads.empty())
            continue;
        auto [it, inserted] = by_pid.try_emplace(finding.pid);
        if (inserted)
            it->second = environment_reads(*process);
        if (std::vector<EnvironmentReadEvidence> reads = reads_for(it->second, finding); !reads.empty())
            set_environment_read(finding.evidence, std::move(reads));
    }
}

} // namespace importscope::analysis
