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

std::string_view top_level(std::string_view module)
{
    return module.substr(0, module.find('.'));
}

/// The files and top-level packages of every frame (an object with "file" and "line") in `evidence`.
void collect_frames(const nlohmann::json& evidence, std::set<std::string>& files, std::set<std::string>& packages)
{
    if (evidence.is_array()) {
        for (const auto& item : evidence)
            collect_frames(item, files, packages);
        return;
    }
    if (!evidence.is_object())
        return;
    if (const auto file = evidence.find("file"); file != evidence.end() && file->is_string() && evidence.contains("line")) {
        files.insert(file->get<std::string>());
        if (const auto module = evidence.find("module"); module != evidence.end() && module->is_string())
            if (const std::string_view package = top_level(module->get_ref<const std::string&>());
                !package.empty() && package != "__main__" && package != "importlib")
                packages.emplace(package);
    }
    for (const auto& [key, value] : evidence.items())
        if (value.is_structured())
            collect_frames(value, files, packages);
}

nlohmann::json read_json(const VariableRead& variable, const journal::Frame& at, bool on_import_path)
{
    return {{"name", variable.name},   {"set", variable.set},     {"value", variable.set ? nlohmann::json(variable.value) : nlohmann::json(nullptr)},
            {"file", at.file},         {"line", at.line},         {"on_import_path", on_import_path}};
}

nlohmann::json reads_for(const ProcessEnvironmentReads& reads, const Finding& finding)
{
    std::set<std::string> files;
    std::set<std::string> packages;
    collect_frames(finding.evidence, files, packages);
    nlohmann::json on_path = nlohmann::json::array();
    nlohmann::json by_package = nlohmann::json::array();
    for (const VariableRead& variable : reads.variables) {
        const auto in_file = std::find_if(variable.read_at.begin(), variable.read_at.end(),
                                          [&](const journal::Frame& f) { return files.count(f.file) != 0; });
        if (in_file != variable.read_at.end()) {
            on_path.push_back(read_json(variable, *in_file, true));
            continue;
        }
        const auto in_package = std::find_if(variable.read_at.begin(), variable.read_at.end(), [&](const journal::Frame& f) {
            return !f.module.empty() && packages.count(std::string(top_level(f.module))) != 0;
        });
        if (in_package != variable.read_at.end())
            by_package.push_back(read_json(variable, *in_package, false));
    }
    for (auto& read : by_package)
        on_path.push_back(std::move(read));
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
            out.variables.push_back({read.name, read.set, read.value, {}});
        out.variables[it->second].read_at.push_back(read.frame);
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
