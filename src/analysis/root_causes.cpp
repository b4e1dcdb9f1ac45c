// Grouping findings under the one cause that explains them (docs/findings.md, "Root causes").

#include "importscope/analysis/root_causes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace importscope::analysis {

namespace {

bool under(const std::string& name, const std::string& package)
{
    return name == package ||
           (name.size() > package.size() && name.starts_with(package) && name[package.size()] == '.');
}

/// "PYTHONPATH", "the script's directory", "a line of /site/x.pth", "an entry the program added".
std::string origin_phrase(const SysPathOrigin& origin)
{
    const std::string& how = origin.origin;
    if (how == ".pth file")
        return "a line of " + origin.pth_file.value_or("a .pth file");
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

/// The cause a partial alias is: its alias, with the stacks the finding gives.
RootCause alias_cause(const Finding& f, const PartialAliasEvidence& evidence)
{
    RootCause cause;
    const std::string& key = evidence.alias;
    const std::string original = evidence.original.value_or("");
    cause.id = "alias:" + key;
    AliasCause named;
    named.key = key;
    named.module = original;
    named.first_seen_at = evidence.alias_first_used_at.value_or(std::vector<journal::Frame>{});
    named.set_at = evidence.alias_set_at;
    named.set_in_code = evidence.alias_set_in_code;
    cause.kind = named.kind;
    cause.evidence = std::move(named);
    cause.message =
        fmt::format("sys.modules[\"{}\"] is {} under a second name, and its submodules are not: ", key, original);
    cause.message += evidence.nothing_ran_twice.value_or(false)
                         ? fmt::format("imports through \"{}.\" find the package's files again, but each "
                                       "extension's init reached that way gave back the module it had made, "
                                       "so nothing ran twice",
                                       key)
                         : fmt::format("every import through \"{}.\" executes the package's files again", key);
    cause.advice = f.advice;
    return cause;
}

/// A cause as a duplicate init's or a partial alias's evidence names it, or an empty one.
RootCause cause_named_by(const Finding& f)
{
    if (const auto* alias = std::get_if<PartialAliasEvidence>(&f.evidence))
        return alias_cause(f, *alias);
    RootCause cause;
    const auto* init = std::get_if<DuplicateInitEvidence>(&f.evidence);
    if (!init)
        return cause;
    const CauseEvidence& named = init->cause;
    if (const auto* alias = std::get_if<AliasCause>(&named)) {
        cause.id = "alias:" + alias->key;
        cause.kind = alias->kind;
        cause.message = fmt::format("sys.modules[\"{}\"] is {} under a second name, and its submodules are not",
                                    alias->key, alias->module);
    } else if (const auto* directory = std::get_if<PackageDirectoryCause>(&named)) {
        cause.id = "sys.path:" + directory->entry;
        cause.kind = directory->kind;
        cause.message = fmt::format("{}, the directory of the package {}, is on sys.path: its modules import again "
                                    "under top-level names",
                                    directory->entry, directory->package);
        if (directory->added_by)
            cause.message += fmt::format(" (it is there as {})", origin_phrase(*directory->added_by));
    } else if (const auto* by_path = std::get_if<LoadByPathCause>(&named)) {
        cause.id = "path-load:" + by_path->module;
        cause.kind = by_path->kind;
        cause.message = fmt::format("{} was loaded by its file's path, outside the import system, from the file "
                                    "that {} had loaded",
                                    by_path->module, by_path->loaded_first_as);
        if (by_path->at)
            cause.message += fmt::format(" (at {}:{})", by_path->at->file, by_path->at->line);
    } else {
        return cause; // "unknown": no cause to group under
    }
    cause.evidence = named;
    cause.advice = f.advice;
    return cause;
}

/// The module whose import failed in a native type conflict, or "".
const std::string& failed_module_of(const Finding& f)
{
    static const std::string none;
    const auto* conflict = std::get_if<NativeTypeConflictEvidence>(&f.evidence);
    return conflict ? conflict->failed_module : none;
}

/// Whether a finding that names no cause is explained by `cause`.
bool explained_by(const Finding& f, const RootCause& cause)
{
    if (const auto* alias = std::get_if<AliasCause>(&cause.evidence)) {
        const std::string& key = alias->key;
        if (f.kind == "duplicate-source-exec")
            return std::any_of(f.module_names.begin(), f.module_names.end(),
                               [&](const std::string& name) { return under(name, key); });
        if (f.kind == "native-type-conflict")
            return under(failed_module_of(f), key);
        return false;
    }
    if (const auto* by_path = std::get_if<LoadByPathCause>(&cause.evidence))
        return f.kind == "native-type-conflict" && failed_module_of(f) == by_path->module;
    const auto* directory = std::get_if<PackageDirectoryCause>(&cause.evidence);
    if (!directory)
        return false;
    // The file is inside the package directory: a type conflict of one extension with itself, or a
    // source file one of whose names is the other's tail.
    if (!f.file.starts_with(directory->entry + "/"))
        return false;
    if (const auto* conflict = std::get_if<NativeTypeConflictEvidence>(&f.evidence))
        return conflict->relation == "same-file";
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
