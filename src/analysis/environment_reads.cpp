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

/// What of a finding's evidence tells which reads could have chosen its path: the files of its
/// frames, and the place of its last load in the process's events (0: none named).
struct ImportPath {
    std::set<std::string> files;
    std::uint64_t last_load = 0;
};

/// The files of every frame (an object with "file" and "line") in `evidence`, and the latest
/// "order" of its loads.
void collect_path(const nlohmann::json& evidence, ImportPath& path)
{
    if (evidence.is_array()) {
        for (const auto& item : evidence)
            collect_path(item, path);
        return;
    }
    if (!evidence.is_object())
        return;
    if (const auto file = evidence.find("file"); file != evidence.end() && file->is_string() && evidence.contains("line"))
        path.files.insert(file->get<std::string>());
    if (const auto order = evidence.find("order"); order != evidence.end() && order->is_number_unsigned())
        path.last_load = std::max(path.last_load, order->get<std::uint64_t>());
    for (const auto& [key, value] : evidence.items())
        if (value.is_structured())
            collect_path(value, path);
}

nlohmann::json read_json(const VariableRead& variable, const journal::Frame& at, bool on_import_path)
{
    return {{"name", variable.name},   {"set", variable.set},     {"value", variable.set ? nlohmann::json(variable.value) : nlohmann::json(nullptr)},
            {"file", at.file},         {"line", at.line},         {"on_import_path", on_import_path}};
}

/// The reads that could have chosen the finding's path: made from a file on its import stacks
/// before its last load. A read elsewhere in the same package (a version lookup, a default left
/// unset) names nothing about this path and is left out.
nlohmann::json reads_for(const ProcessEnvironmentReads& reads, const Finding& finding)
{
    ImportPath path;
    collect_path(finding.evidence, path);
    nlohmann::json on_path = nlohmann::json::array();
    for (const VariableRead& variable : reads.variables)
        for (std::size_t i = 0; i < variable.read_at.size(); ++i) {
            const bool before = path.last_load == 0 || i >= variable.read_seq.size() || variable.read_seq[i] < path.last_load;
            if (before && path.files.count(variable.read_at[i].file) != 0) {
                on_path.push_back(read_json(variable, variable.read_at[i], true));
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
        if (nlohmann::json reads = reads_for(it->second, finding); !reads.empty()) {
            if (!finding.evidence.is_object())
                finding.evidence = nlohmann::json::object();
            finding.evidence["environment_read"] = std::move(reads);
        }
    }
}

} // namespace importscope::analysis
