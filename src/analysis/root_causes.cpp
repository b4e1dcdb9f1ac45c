// Grouping findings under the one cause that explains them (docs/findings.md, "Root causes").

#include "importscope/analysis/root_causes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace importscope::analysis {

namespace {

using nlohmann::json;

bool under(const std::string& name, const std::string& package)
{
    return name == package ||
           (name.size() > package.size() && name.starts_with(package) && name[package.size()] == '.');
}

/// "PYTHONPATH", "the script's directory", "a line of /site/x.pth", "an entry the program added".
std::string origin_phrase(const json& origin)
{
    const std::string how = origin.value("origin", "");
    if (how == ".pth file")
        return "a line of " + origin.value("pth_file", std::string("a .pth file"));
    if (how == "script directory")
        return "the script's directory, sys.path[0]";
    if (how == "working directory")
        return "the working directory, sys.path[0]";
    if (how == "program")
        return "an entry the program added";
    if (how == "start-up")
        return "an entry added while site ran";
    return "an entry of " + how;
}

/// A cause as a duplicate init's or a partial alias's evidence names it, or an empty one.
RootCause cause_named_by(const Finding& f)
{
    RootCause cause;
    const json& evidence = f.evidence;
    if (f.kind == "partial-alias" && evidence.contains("alias")) {
        const std::string key = evidence.value("alias", "");
        cause.id = "alias:" + key;
        cause.kind = "sys.modules alias";
        cause.evidence = {{"kind", cause.kind},
                          {"key", key},
                          {"module", evidence.value("original", "")},
                          {"first_seen_at", evidence.value("alias_first_used_at", json::array())}};
        if (evidence.contains("alias_set_at"))
            cause.evidence["set_at"] = evidence.at("alias_set_at");
        if (evidence.contains("alias_set_in_code"))
            cause.evidence["set_in_code"] = evidence.at("alias_set_in_code");
        cause.message = fmt::format("sys.modules[\"{}\"] is {} under a second name, and its submodules are not: ", key,
                                    evidence.value("original", ""));
        cause.message += evidence.value("nothing_ran_twice", false)
                             ? fmt::format("imports through \"{}.\" find the package's files again, but each "
                                           "extension's init reached that way gave back the module it had made, "
                                           "so nothing ran twice",
                                           key)
                             : fmt::format("every import through \"{}.\" executes the package's files again", key);
        cause.advice = f.advice;
        return cause;
    }
    const json& named = f.kind == "duplicate-extension-init" ? evidence.value("cause", json()) : json();
    if (!named.is_object())
        return cause;
    const std::string kind = named.value("kind", "");
    if (kind == "sys.modules alias") {
        cause.id = "alias:" + named.value("key", "");
        cause.message = fmt::format("sys.modules[\"{}\"] is {} under a second name, and its submodules are not",
                                    named.value("key", ""), named.value("module", ""));
    } else if (kind == "package directory on sys.path") {
        cause.id = "sys.path:" + named.value("entry", "");
        cause.message = fmt::format("{}, the directory of the package {}, is on sys.path: its modules import again "
                                    "under top-level names",
                                    named.value("entry", ""), named.value("package", ""));
        if (const json& origin = named.value("added_by", json()); origin.is_object())
            cause.message += fmt::format(" (it is there as {})", origin_phrase(origin));
    } else if (kind == "load by path") {
        cause.id = "path-load:" + named.value("module", "");
        cause.message = fmt::format("{} was loaded by its file's path, outside the import system, from the file "
                                    "that {} had loaded",
                                    named.value("module", ""), named.value("loaded_first_as", ""));
        if (const json& at = named.value("at", json()); at.is_object())
            cause.message += fmt::format(" (at {}:{})", at.value("file", ""), at.value("line", 0));
    } else {
        return cause; // "unknown": no cause to group under
    }
    cause.kind = kind;
    cause.evidence = named;
    cause.advice = f.advice;
    return cause;
}

/// Whether a finding that names no cause is explained by `cause`.
bool explained_by(const Finding& f, const RootCause& cause)
{
    const json& e = cause.evidence;
    if (cause.kind == "sys.modules alias") {
        const std::string key = e.value("key", "");
        if (f.kind == "duplicate-source-exec")
            return std::any_of(f.module_names.begin(), f.module_names.end(),
                               [&](const std::string& name) { return under(name, key); });
        if (f.kind == "native-type-conflict")
            return under(f.evidence.value("failed_module", ""), key);
        return false;
    }
    if (cause.kind == "load by path")
        return f.kind == "native-type-conflict" && f.evidence.value("failed_module", "") == e.value("module", "");
    // The file is inside the package directory: a type conflict of one extension with itself, or a
    // source file one of whose names is the other's tail.
    const std::string entry = e.value("entry", "") + "/";
    if (!f.file.starts_with(entry))
        return false;
    if (f.kind == "native-type-conflict")
        return f.evidence.value("relation", json()) == "same-file";
    if (f.kind != "duplicate-source-exec")
        return false;
    return std::any_of(f.module_names.begin(), f.module_names.end(), [&](const std::string& a) {
        return std::any_of(f.module_names.begin(), f.module_names.end(),
                           [&](const std::string& b) { return a.size() > b.size() && a.ends_with("." + b); });
    });
}

void add(RootCause& cause, const Finding& f, std::size_t index)
{
    cause.findings.push_back(index);
    if (f.severity == Severity::error)
        cause.severity = Severity::error;
    if (std::find(cause.pids.begin(), cause.pids.end(), f.pid) == cause.pids.end())
        cause.pids.push_back(f.pid);
}

} // namespace

std::vector<RootCause> find_root_causes(const std::vector<Finding>& findings)
{
    // The causes findings name, per process: a cause explains the findings of the processes it
    // was seen in only.
    std::map<std::string, RootCause> causes;
    std::map<std::tuple<std::string, int>, bool> seen_in;
    std::vector<bool> linked(findings.size(), false);
    for (std::size_t i = 0; i < findings.size(); ++i) {
        RootCause named = cause_named_by(findings[i]);
        if (named.id.empty())
            continue;
        auto [it, added] = causes.try_emplace(named.id, named);
        // A partial alias describes its cause best: its text is kept over a duplicate init's.
        if (!added && findings[i].kind == "partial-alias") {
            it->second.message = std::move(named.message);
            it->second.advice = std::move(named.advice);
            it->second.evidence = std::move(named.evidence);
        }
        add(it->second, findings[i], i);
        seen_in[{it->first, findings[i].pid}] = true;
        linked[i] = true;
    }
    for (std::size_t i = 0; i < findings.size(); ++i) {
        if (linked[i])
            continue;
        for (auto& [id, cause] : causes)
            if (seen_in.contains({id, findings[i].pid}) && explained_by(findings[i], cause)) {
                add(cause, findings[i], i);
                break;
            }
    }
    std::vector<RootCause> out;
    for (auto& [id, cause] : causes) {
        std::sort(cause.findings.begin(), cause.findings.end());
        std::sort(cause.pids.begin(), cause.pids.end());
        out.push_back(std::move(cause));
    }
    std::stable_sort(out.begin(), out.end(), [](const RootCause& a, const RootCause& b) {
        return (a.severity != Severity::error) < (b.severity != Severity::error);
    });
    return out;
}

} // namespace importscope::analysis
