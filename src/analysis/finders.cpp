// The registry of finders (finders.hpp): each finding kind's finder and the journal events that can
// change its findings, in one table; and analyze(), which runs them.

#include "importscope/analysis/finders.hpp"

#include "importscope/analysis/environment_reads.hpp"
#include "importscope/journal/pybind11_message.hpp"

#include <algorithm>
#include <variant>

namespace importscope::analysis {

namespace {

using journal::AliasSeen;
using journal::Caught;
using journal::ExtensionLoad;
using journal::ImportBegin;
using journal::ImportEnd;
using journal::Installation;
using journal::NoBuild;
using journal::TypeOwners;

/// Only an init of a file name the journal initialized before can make a second init or a copy.
bool screen_extension_inits(const journal::Event& event, const LiveContext& context)
{
    return !std::holds_alternative<ExtensionLoad>(event) || context.repeats_extension_name;
}

/// An alias, or what an alias leads to: a source file run again, an extension initialized again.
bool screen_partial_aliases(const journal::Event& event, const LiveContext& context)
{
    if (std::holds_alternative<ImportBegin>(event))
        return context.repeats_source;
    return screen_extension_inits(event, context);
}

bool screen_source_execs(const journal::Event&, const LiveContext& context)
{
    return context.repeats_source;
}

/// An import that failed or warned the way a second binding of a native type does; a type's owners.
bool screen_type_conflicts(const journal::Event& event, const LiveContext&)
{
    const auto* end = std::get_if<ImportEnd>(&event);
    if (!end)
        return true;
    if (end->error && journal::rebound_type(end->error->message))
        return true;
    return std::any_of(end->warnings.begin(), end->warnings.end(),
                       [](const std::string& w) { return journal::rebound_type(w).has_value(); });
}

/// A copy is an error once both copies initialized: its severity waits on the imports' ends.
bool screen_extension_copies(const journal::Event& event, const LiveContext& context)
{
    if (!std::holds_alternative<ImportEnd>(event))
        return screen_extension_inits(event, context);
    return std::any_of(context.findings.begin(), context.findings.end(), [](const Finding& f) {
        return f.kind == "duplicate-extension-copy" && f.severity != Severity::error;
    });
}

/// An installation makes a finding when another copy shadows it or a --match name has it (a
/// vendored copy loaded beside it); the others (every top-level import has one) cannot.
bool screen_installations(const journal::Event& event, const LiveContext&)
{
    const auto& installation = std::get<Installation>(event);
    return !installation.shadowed.empty() || installation.matched;
}

std::vector<Finding> duplicate_inits(const RunModel& model, const AnalysisOptions& options, const std::vector<Finding>&)
{
    std::vector<Finding> found = find_duplicate_extension_inits(model);
    explain_by_binding(found, options.binding_of);
    return found;
}

const Finder k_finders[] = {
    {"duplicate-extension-init", EventKinds::of<ExtensionLoad>(), screen_extension_inits, duplicate_inits},
    {"partial-alias", EventKinds::of<AliasSeen, ImportBegin, ExtensionLoad>(), screen_partial_aliases,
     [](const RunModel& model, const AnalysisOptions&, const std::vector<Finding>& duplicates) {
         return find_partial_aliases(model, duplicates);
     }},
    {"extension-load-failed", EventKinds::of<Caught, NoBuild>(), nullptr,
     [](const RunModel& model, const AnalysisOptions&, const std::vector<Finding>& duplicates) {
         return find_failed_extension_loads(model, duplicates);
     }},
    {"duplicate-source-exec", EventKinds::of<ImportBegin>(), screen_source_execs,
     [](const RunModel& model, const AnalysisOptions&, const std::vector<Finding>&) {
         return find_duplicate_source_execs(model);
     }},
    {"native-type-conflict", EventKinds::of<ImportEnd, TypeOwners>(), screen_type_conflicts,
     [](const RunModel& model, const AnalysisOptions& options, const std::vector<Finding>&) {
         return find_native_type_conflicts(model, options.hash_file);
     }},
    {"duplicate-extension-copy", EventKinds::of<ExtensionLoad, ImportEnd>(), screen_extension_copies,
     [](const RunModel& model, const AnalysisOptions& options, const std::vector<Finding>&) {
         return find_duplicate_extension_copies(model, options.hash_file);
     }},
    {"multiple-installations", EventKinds::of<Installation>(), screen_installations,
     [](const RunModel& model, const AnalysisOptions& options, const std::vector<Finding>&) {
         return find_multiple_installations(model, options.distribution_of);
     }},
};

} // namespace

std::span<const Finder> finders()
{
    return k_finders;
}

std::vector<Finding> analyze(const RunModel& model, const AnalysisOptions& options, std::span<const Finder> registry)
{
    std::vector<Finding> findings;
    std::vector<Finding> duplicates;
    for (const Finder& finder : registry) {
        std::vector<Finding> found = finder.find(model, options, duplicates);
        if (&finder == &registry.front())
            duplicates = found;
        findings.insert(findings.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
    }
    attach_environment_reads(findings, model);
    match_known_issues(findings, options);
    order_findings(findings);
    return findings;
}

} // namespace importscope::analysis
