#include "importscope/analysis/finding.hpp"
#include "importscope/journal/pybind11_message.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <tuple>

namespace importscope::analysis {

namespace {

/// How the file of a module that already exposes the type relates to the file that failed.
std::string relation(const ModuleRecord& failed, const journal::TypeOwner& owner, const FileHasher& hash_file)
{
    if (failed.identity && owner.identity && *failed.identity == *owner.identity)
        return "same-file";
    const std::string owner_path = owner.realpath.empty() ? owner.file : owner.realpath;
    if (hash_file && !owner_path.empty() && !failed.file().empty()) {
        const auto a = hash_file(failed.file());
        const auto b = hash_file(owner_path);
        if (a && b && *a == *b)
            return "copies";
    }
    return "different-libraries";
}

std::string relation_text(const std::string& relation)
{
    if (relation == "same-file")
        return "from the same file: one extension initialized under two module names";
    if (relation == "copies")
        return "from another copy of the same file: the extension is installed twice";
    return "from a different library that binds the same C++ type globally";
}

std::string advice_for(const std::string& relation, const std::string& type_name, const std::string& binding)
{
    if (relation == "same-file")
        return "Load the extension under one module name only (see duplicate-extension-init and partial-alias).";
    if (relation == "copies")
        return "Keep one copy of the extension importable: remove the second installation or the vendored copy, "
               "or import both through the same package.";
    if (binding == "nanobind")
        return fmt::format("Two libraries bind the C++ type {} with nanobind. Import only one of them in this "
                           "process, or keep them in separate processes.",
                           type_name);
    return fmt::format("Two libraries register the C++ type {} in pybind11's global registry. Import only one of "
                       "them in this process, upgrade to versions that bind it with py::module_local(), or keep "
                       "them in separate processes.",
                       type_name);
}

/// A type bound twice, as the binding library said it: pybind11 refuses (an ImportError), nanobind
/// warns and binds another Python type over the same C++ type (journal::rebound_type reads both).
struct Rebinding {
    std::string type_name;
    std::string binding; ///< "pybind11" or "nanobind"
    std::string said;    ///< the error message (nanobind's too, under -W error) or the warning
};

std::optional<Rebinding> rebinding_of(const ModuleRecord& r)
{
    if (r.error)
        if (auto rebound = journal::rebound_type(r.error->message))
            return Rebinding{std::move(rebound->type_name), rebound->binding, r.error->message};
    for (const std::string& warning : r.warnings)
        if (auto rebound = journal::rebound_type(warning))
            return Rebinding{std::move(rebound->type_name), rebound->binding, warning};
    return std::nullopt;
}

/// What each binding library does with a second binding of a type, and how bad that is.
struct BindingFacts {
    Severity severity;
    const char* message; ///< fmt pattern: the module, the type
    const char* explanation;
};

constexpr BindingFacts k_pybind11 = {
    Severity::error, "importing {} failed: pybind11 type \"{}\" is already registered",
    "pybind11 keeps one registry of bound C++ types per process (per pybind11 ABI). A second registration of the "
    "same C++ type, by the same extension initialized again or by another library, fails with this ImportError, "
    "and the half-initialized module may crash the process at exit."};
constexpr BindingFacts k_nanobind = {
    Severity::warning, "importing {} bound nanobind type \"{}\" a second time",
    "nanobind keeps one registry of bound C++ types per process. A second binding of the same C++ type, by the same "
    "extension initialized again or by another library, only warns: the second module's type is another Python type "
    "over the same C++ type, so its objects are refused where the first one's are expected, and the other way round."};

void describe(Finding& f, const ModuleRecord& r, const Rebinding& rebinding)
{
    const BindingFacts& facts = rebinding.binding == "nanobind" ? k_nanobind : k_pybind11;
    f.severity = facts.severity;
    f.message = fmt::format(fmt::runtime(facts.message), r.name, rebinding.type_name);
    f.explanation = facts.explanation;
}

} // namespace

std::vector<Finding> find_native_type_conflicts(const RunModel& model, const FileHasher& hash_file)
{
    // The modules that imported the failing one fail with the same message; the failure itself is
    // the innermost of them (the last to begin), normally the extension whose PyInit raised.
    std::map<std::tuple<std::string, int, std::string>, std::pair<const ModuleRecord*, Rebinding>> failures;
    for (const auto& r : model.modules) {
        std::optional<Rebinding> rebinding = rebinding_of(r);
        if (!rebinding)
            continue;
        auto [it, inserted] = failures.try_emplace({r.journal, r.pid, rebinding->type_name}, &r, *rebinding);
        if (!inserted && r.order > it->second.first->order)
            it->second = {&r, std::move(*rebinding)};
    }

    std::vector<Finding> findings;
    for (const auto& [key, failure] : failures) {
        const ModuleRecord& r = *failure.first;
        const Rebinding& rebinding = failure.second;
        const std::string& type_name = rebinding.type_name;

        std::vector<TypeOwnerEvidence> owners;
        std::string first_relation;
        std::vector<std::string> names{r.name};
        for (const auto& record : model.type_owners) {
            if (record.journal != r.journal || record.pid != r.pid || record.event.type_name != type_name)
                continue;
            for (const auto& owner : record.event.owners) {
                const std::string how = relation(r, owner, hash_file);
                if (first_relation.empty())
                    first_relation = how;
                names.push_back(owner.module);
                owners.push_back({owner.module,
                                  owner.realpath.empty() ? owner.file : owner.realpath,
                                  owner.qualname,
                                  owner.pybind11,
                                  how,
                                  {}});
            }
        }
        Finding f;
        f.kind = "native-type-conflict";
        f.pid = r.pid;
        f.module_names = names;
        f.file = r.file();
        describe(f, r, rebinding);
        if (!owners.empty())
            f.message += fmt::format(", by {} {}", owners.front().module, relation_text(first_relation));
        else
            f.message += " (no loaded module exposes a type of that name)";
        f.advice = advice_for(first_relation.empty() ? "different-libraries" : first_relation, type_name,
                              rebinding.binding);
        NativeTypeConflictEvidence evidence;
        evidence.type_name = type_name;
        evidence.binding = rebinding.binding;
        evidence.error = r.error;
        if (rebinding.binding == "nanobind")
            evidence.warning = rebinding.said;
        evidence.failed_module = r.name;
        evidence.owners = std::move(owners);
        if (!first_relation.empty())
            evidence.relation = first_relation;
        evidence.stack = r.stack_frames();
        f.evidence = std::move(evidence);
        findings.push_back(std::move(f));
    }
    return findings;
}

} // namespace importscope::analysis
