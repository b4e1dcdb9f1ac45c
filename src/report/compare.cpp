#include "importscope/report/compare.hpp"

#include "importscope/report/escape.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace importscope::report {

using nlohmann::json;

namespace {

/// The file as a package sees it: after site-packages/ or dist-packages/, else from the top-level
/// package of the finding's first module name, else its last two components.
std::string relative_file(const analysis::Finding& finding)
{
    const std::string& file = finding.file;
    for (const char* marker : {"/site-packages/", "/dist-packages/"})
        if (const auto at = file.rfind(marker); at != std::string::npos)
            return file.substr(at + std::string(marker).size());
    for (const std::string& name : finding.module_names) {
        const std::string top = name.substr(0, name.find('.'));
        if (const auto at = file.rfind("/" + top + "/"); at != std::string::npos)
            return file.substr(at + 1);
    }
    const auto last = file.rfind('/');
    const auto before = last == std::string::npos || last == 0 ? std::string::npos : file.rfind('/', last - 1);
    return before == std::string::npos ? file : file.substr(before + 1);
}

std::map<std::string, const ReportedFinding*> by_key(const Document& report)
{
    std::map<std::string, const ReportedFinding*> findings;
    for (const auto& f : report.findings)
        findings.emplace(finding_key(f), &f);
    return findings;
}

void compare_versions(const json& old_env, const json& new_env, const char* section, json& changes)
{
    const json empty = json::object();
    const json& a = old_env.is_object() ? old_env.value(section, empty) : empty;
    const json& b = new_env.is_object() ? new_env.value(section, empty) : empty;
    std::set<std::string> names;
    for (const auto& [k, v] : a.items())
        names.insert(k);
    for (const auto& [k, v] : b.items())
        names.insert(k);
    for (const auto& name : names) {
        const json before = a.value(name, json());
        const json after = b.value(name, json());
        if (before != after)
            changes[name] = {{"old", before}, {"new", after}};
    }
}

} // namespace

std::string finding_key(const analysis::Finding& finding)
{
    return fmt::format("{} | {} | {}", finding.kind, fmt::join(finding.module_names, ","), relative_file(finding));
}

ReportDiff diff_reports(const Document& old_report, const Document& new_report)
{
    const auto before = by_key(old_report);
    const auto after = by_key(new_report);
    ReportDiff diff;
    for (const auto& [key, f] : after)
        (before.count(key) ? diff.stayed : diff.appeared).push_back(*f);
    for (const auto& [key, f] : before)
        if (!after.count(key))
            diff.disappeared.push_back(*f);
    compare_versions(old_report.environment, new_report.environment, "packages", diff.version_changes);
    return diff;
}

std::string render_diff(const ReportDiff& diff)
{
    std::string out;
    auto section = [&](const char* title, const std::vector<ReportedFinding>& findings) {
        out += fmt::format("{} ({}):\n", title, findings.size());
        for (const auto& f : findings)
            out += fmt::format("  {} {}: {}\n", analysis::to_string(f.severity), terminal_text(f.kind),
                              terminal_text(finding_key(f)));
    };
    section("disappeared", diff.disappeared);
    section("appeared", diff.appeared);
    section("stayed", diff.stayed);
    out += fmt::format("package versions changed ({}):\n", diff.version_changes.size());
    for (const auto& [name, change] : diff.version_changes.items())
        out += fmt::format("  {}: {} -> {}\n", terminal_text(name),
                           terminal_text(change.at("old").is_null() ? "absent" : change.at("old").dump()),
                           terminal_text(change.at("new").is_null() ? "absent" : change.at("new").dump()));
    return out;
}

} // namespace importscope::report
