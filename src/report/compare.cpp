#include "importscope/report/compare.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <map>
#include <algorithm>
#include <array>
#include <set>

namespace importscope::report {

using nlohmann::json;

namespace {

/// The file as a package sees it: after site-packages/ or dist-packages/, else from the top-level
/// package of the finding's first module name, else its last two components.
std::string relative_file(const json& finding)
{
    const std::string file = finding.value("file", "");
    for (const char* marker : {"/site-packages/", "/dist-packages/"})
        if (const auto at = file.rfind(marker); at != std::string::npos)
            return file.substr(at + std::string(marker).size());
    for (const json& name : finding.value("module_names", json::array())) {
        const std::string top = name.get<std::string>().substr(0, name.get<std::string>().find('.'));
        if (const auto at = file.rfind("/" + top + "/"); at != std::string::npos)
            return file.substr(at + 1);
    }
    const auto last = file.rfind('/');
    const auto before = last == std::string::npos || last == 0 ? std::string::npos : file.rfind('/', last - 1);
    return before == std::string::npos ? file : file.substr(before + 1);
}

std::map<std::string, json> by_key(const json& report)
{
    std::map<std::string, json> findings;
    for (const json& f : report.at("findings"))
        findings.emplace(finding_key(f), f);
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

std::string finding_key(const json& finding)
{
    std::string names;
    for (const json& name : finding.value("module_names", json::array()))
        names += (names.empty() ? "" : ",") + name.get<std::string>();
    return fmt::format("{} | {} | {}", finding.value("kind", ""), names, relative_file(finding));
}

ReportDiff diff_reports(const json& old_report, const json& new_report)
{
    const auto before = by_key(old_report);
    const auto after = by_key(new_report);
    ReportDiff diff;
    for (const auto& [key, f] : after)
        (before.count(key) ? diff.stayed : diff.appeared).push_back(f);
    for (const auto& [key, f] : before)
        if (!after.count(key))
            diff.disappeared.push_back(f);
    compare_versions(old_report.value("environment", json()), new_report.value("environment", json()), "packages",
                     diff.version_changes);
    return diff;
}

std::string render_diff(const ReportDiff& diff)
{
    std::string out;
    auto section = [&](const char* title, const std::vector<json>& findings) {
        out += fmt::format("{} ({}):\n", title, findings.size());
        for (const json& f : findings)
            out += fmt::format("  {} {}: {}\n", f.value("severity", ""), f.value("kind", ""), finding_key(f));
    };
    section("disappeared", diff.disappeared);
    section("appeared", diff.appeared);
    section("stayed", diff.stayed);
    out += fmt::format("package versions changed ({}):\n", diff.version_changes.size());
    for (const auto& [name, change] : diff.version_changes.items())
        out += fmt::format("  {}: {} -> {}\n", name, change.at("old").is_null() ? "absent" : change.at("old").dump(),
                           change.at("new").is_null() ? "absent" : change.at("new").dump());
    return out;
}

namespace {

/// Which of two runs' outcomes a merged report shows: the one a CI gate must not miss.
int outcome_rank(const json& outcome)
{
    static const std::array<const char*, 5> k_order = {"ok", "target-failed", "timed-out", "tool-failure",
                                                       "findings"};
    if (!outcome.is_object())
        return -1;
    const std::string reason = outcome.value("reason", "");
    for (std::size_t i = 0; i < k_order.size(); ++i)
        if (reason == k_order[i])
            return static_cast<int>(i);
    return -1;
}

} // namespace

namespace {

/// The same cause in several reports (every node of a job) is one: its findings counted together.
void merge_causes(json& merged, const json& causes)
{
    for (const json& cause : causes) {
        auto same = std::find_if(merged.begin(), merged.end(),
                                 [&](const json& c) { return c.value("id", "") == cause.value("id", ""); });
        if (same == merged.end()) {
            merged.push_back(cause);
            continue;
        }
        (*same)["findings"] = same->value("findings", 0) + cause.value("findings", 0);
        if (cause.value("severity", "") == "error")
            (*same)["severity"] = "error";
        std::set<int> pids = same->value("pids", std::set<int>{});
        for (int pid : cause.value("pids", std::vector<int>{}))
            pids.insert(pid);
        (*same)["pids"] = pids;
    }
}

/// A module record's frame indexes moved along by `first`, where its report's frames begin in the
/// merged report's "frames".
void shift_frame_indexes(json& record, std::uint64_t first)
{
    if (const auto stack = record.find("stack"); stack != record.end())
        for (json& index : *stack)
            index = index.get<std::uint64_t>() + first;
    for (const char* key : {"call_site", "caught_at"})
        if (const auto frame = record.find(key); frame != record.end() && !frame->is_null())
            *frame = frame->get<std::uint64_t>() + first;
}

} // namespace

json merge_reports(const std::vector<json>& reports)
{
    if (reports.empty())
        throw Error("merge needs at least one report");
    json merged = reports.front();
    merged["processes"] = json::array();
    merged["frames"] = json::array();
    merged["modules"] = json::array();
    merged["findings"] = json::array();
    merged["causes"] = json::array();
    merged["problems"] = json::array();
    merged["untraced"] = json::array();
    json sources = json::array();
    std::size_t errors = 0, warnings = 0, inits = 0;
    std::set<std::pair<std::string, int>> with_findings;
    for (const json& report : reports) {
        const std::string host = report.at("run").value("host", "");
        for (json process : report.at("processes")) {
            process["host"] = host;
            merged["processes"].push_back(std::move(process));
        }
        const std::uint64_t first_frame = merged["frames"].size();
        for (const json& frame : report.at("frames"))
            merged["frames"].push_back(frame);
        for (json module : report.at("modules")) {
            module["host"] = host;
            shift_frame_indexes(module, first_frame);
            inits += module.value("initialized_extension", false) ? 1 : 0;
            merged["modules"].push_back(std::move(module));
        }
        for (json finding : report.at("findings")) {
            finding["host"] = host;
            (finding.value("severity", "") == "error" ? errors : warnings) += 1;
            with_findings.insert({host, finding.value("pid", 0)});
            merged["findings"].push_back(std::move(finding));
        }
        merge_causes(merged["causes"], report.value("causes", json::array()));
        for (json untraced : report.value("untraced", json::array())) {
            untraced["host"] = host;
            merged["untraced"].push_back(std::move(untraced));
        }
        for (const json& problem : report.at("problems"))
            merged["problems"].push_back(fmt::format("{}: {}", host, problem.get<std::string>()));
        sources.push_back({{"host", host},
                           {"argv", report.at("run").value("argv", json::array())},
                           {"started_at", report.at("run").value("started_at", "")},
                           {"exit", report.at("run").at("exit")},
                           {"outcome", report.at("run").value("outcome", json(nullptr))}});
        if (const json outcome = report.at("run").value("outcome", json(nullptr));
            !outcome.is_null() && outcome_rank(outcome) > outcome_rank(merged["run"]["outcome"]))
            merged["run"]["outcome"] = outcome;
    }
    merged["run"]["merged_from"] = sources;
    merged["summary"] = {{"processes", merged["processes"].size()},
                         {"processes_with_findings", with_findings.size()},
                         {"python_processes", merged["processes"].size() + merged["untraced"].size()},
                         {"untraced_processes", merged["untraced"].size()},
                         {"modules", merged["modules"].size()},
                         {"extension_inits", inits},
                         {"findings", merged["findings"].size()},
                         {"errors", errors},
                         {"warnings", warnings}};
    return merged;
}

} // namespace importscope::report
