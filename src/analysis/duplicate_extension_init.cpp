#include "importscope/analysis/finding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <set>
#include <tuple>

namespace importscope::analysis {

namespace {

/// Extension loads are the same file when they share (dev, ino); a load whose file could not be
/// stat'ed falls back to its real path.
using FileKey = std::tuple<std::string, int, std::uint64_t, std::uint64_t, std::string>;

FileKey file_key(const ModuleRecord& r)
{
    if (r.identity)
        return {r.journal, r.pid, r.identity->dev, r.identity->ino, std::string{}};
    return {r.journal, r.pid, 0, 0, r.file()};
}

nlohmann::json describe_load(const ModuleRecord& r)
{
    nlohmann::json load{{"module", r.name},
                        {"order", r.order},
                        {"status", to_string(r.status)},
                        {"origin", r.origin},
                        {"stack", r.stack}};
    if (const auto* site = r.call_site())
        load["call_site"] = *site;
    if (r.error)
        load["error"] = *r.error;
    return load;
}

/// The package names under which two loads differ: for "a.b.deep_gemm._C" and "deep_gemm._C" that is
/// ("a.b.deep_gemm", "deep_gemm"), the original and its alias.
std::pair<std::string, std::string> differing_packages(const std::string& first, const std::string& second)
{
    std::string a = first, b = second;
    while (true) {
        const auto da = a.rfind('.'), db = b.rfind('.');
        if (da == std::string::npos || db == std::string::npos || a.substr(da) != b.substr(db))
            return {a, b};
        a.resize(da);
        b.resize(db);
    }
}

std::string describe_names(const std::vector<const ModuleRecord*>& loads)
{
    std::string text;
    for (std::size_t i = 0; i < loads.size(); ++i) {
        if (i > 0)
            text += i + 1 == loads.size() ? " and " : ", ";
        text += loads[i]->name;
    }
    return text;
}

} // namespace

std::vector<Finding> find_duplicate_extension_inits(const RunModel& model)
{
    std::map<FileKey, std::vector<const ModuleRecord*>> by_file;
    for (const auto& r : model.modules)
        if (r.initialized_extension)
            by_file[file_key(r)].push_back(&r);

    std::vector<Finding> findings;
    for (const auto& [key, loads] : by_file) {
        std::set<std::string> names;
        for (const auto* r : loads)
            names.insert(r->name);
        if (names.size() < 2)
            continue;

        const ModuleRecord& first = *loads.front();
        Finding f;
        f.kind = "duplicate-extension-init";
        f.severity = Severity::error;
        f.pid = first.pid;
        f.file = first.file();
        for (const auto* r : loads)
            f.module_names.push_back(r->name);
        f.message = fmt::format("{} was initialized {} times in process {}, as {}", f.file, loads.size(), f.pid,
                                describe_names(loads));
        for (const auto* r : loads)
            if (r->error) {
                f.message +=
                    fmt::format("; importing {} failed with {}: {}", r->name, r->error->type, r->error->message);
                break;
            }
        f.explanation =
            "CPython runs an extension's PyInit again for every new module name, but the dynamic loader returns "
            "the library it already loaded, so the second init shares the first one's C++ state: pybind11 "
            "refuses to register its types twice (\"generic_type: type ... is already registered!\"), and "
            "libraries without that check register operators or globals twice and may crash at exit.";
        const ModuleRecord& other =
            **std::find_if(loads.begin(), loads.end(), [&](const ModuleRecord* r) { return r->name != first.name; });
        const auto [original, alias] = differing_packages(first.name, other.name);
        f.advice =
            fmt::format("Load this extension under one name only. If {} is an alias of {} in sys.modules (for example "
                        "sys.modules.setdefault(\"{}\", {})), alias every loaded submodule of {} as well, or import "
                        "through {}.",
                        alias, original, alias, original, original, original);
        nlohmann::json inits = nlohmann::json::array();
        for (const auto* r : loads)
            inits.push_back(describe_load(*r));
        f.evidence = {{"initializations", inits}};
        if (first.identity)
            f.evidence["file_identity"] = {{"dev", first.identity->dev}, {"ino", first.identity->ino}};
        findings.push_back(std::move(f));
    }
    return findings;
}

} // namespace importscope::analysis
