#include "importscope/analysis/scan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

namespace importscope::analysis {

namespace {

SourcePlace line_at(const std::string& file, int line)
{
    return {file, line, {}};
}

std::string at(const std::string& file, int line)
{
    return line > 0 ? fmt::format("{}:{}", file, line) : file;
}

/// The importers whose chain reaches an extension: what would initialize it a second time.
std::vector<const AliasImporter*> reaching_extensions(const StaticAlias& alias)
{
    std::vector<const AliasImporter*> found;
    for (const AliasImporter& importer : alias.importers)
        if (!importer.executes_again.empty())
            found.push_back(&importer);
    return found;
}

/// "layout.py:1 imports deep_gemm._C": each step of a chain after the first, where it is imported.
std::string chain_text(const AliasImporter& importer)
{
    std::vector<std::string> steps;
    for (std::size_t i = 1; i < importer.executes_again.size(); ++i) {
        const ExecutedAgain& step = importer.executes_again[i];
        steps.push_back(fmt::format("{} imports {}", at(step.imported_at.file, step.imported_at.line), step.module));
    }
    return fmt::format("{}", fmt::join(steps, ", then "));
}

StaticImporter importer_evidence(const AliasImporter& importer)
{
    StaticImporter out{importer.file, importer.line, importer.module, {}, importer.under_both_names, {}};
    for (const ExecutedAgain& step : importer.executes_again) {
        ChainStep& item = out.executes_again.emplace_back();
        item.module = step.module;
        item.file = step.file;
        if (!step.imported_at.file.empty())
            item.imported_at = step.imported_at;
    }
    return out;
}

/// The loop that aliases the loaded submodules whenever the alias is set, if there is one.
const SubmoduleAliasing* always_covering(const StaticAlias& alias)
{
    const auto found = std::find_if(alias.covered_by.begin(), alias.covered_by.end(),
                                    [](const SubmoduleAliasing& loop) { return loop.condition.empty(); });
    return found == alias.covered_by.end() ? nullptr : &*found;
}

/// What the alias's value is, as far as the scan knows: a package found in the scanned files, a
/// module not among them, or a value it could not resolve.
std::string what_is_aliased(const StaticAlias& alias)
{
    if (!alias.target.empty())
        return alias.target_is_package ? fmt::format("{} aliased as {}", alias.target, alias.alias)
                                       : fmt::format("the module {} aliased as {}", alias.target, alias.alias);
    const std::string set = fmt::format("sys.modules[\"{}\"] = {}", alias.alias, alias.value);
    if (alias.targets_known && !alias.targets.empty())
        return fmt::format("{} ({} is {}, which is not in the scanned files: whether it is a package is unknown)", set,
                           alias.value, fmt::join(alias.targets, " or "));
    return fmt::format("{} ({} is unresolved: the scan cannot tell which module it is)", set, alias.value);
}

std::string alias_message(const StaticAlias& alias, const std::vector<const AliasImporter*>& reaching)
{
    const std::string what = what_is_aliased(alias);
    const std::string where = at(alias.file, alias.line);
    if (const SubmoduleAliasing* loop = always_covering(alias))
        return fmt::format("{} at {}, its loaded submodules too ({}): a submodule loaded after that and imported as "
                           "{}.* would be executed again",
                           what, where, at(loop->file, loop->line), alias.alias);
    std::string covered;
    if (!alias.covered_by.empty()) {
        const SubmoduleAliasing& loop = alias.covered_by.front();
        covered = fmt::format("; its loaded submodules are aliased too ({}), but only {} ({})",
                              at(loop.file, loop.line), loop.condition, at(loop.file, loop.condition_line));
    }
    if (!reaching.empty()) {
        const AliasImporter& first = *reaching.front();
        return fmt::format("{} at {}{}{} {} imports {} through it: {}, so {} would be initialized a second time "
                           "as {}",
                           what, where, covered, covered.empty() ? ", and" : ", and otherwise", at(first.file, first.line),
                           first.module, chain_text(first), first.executes_again.back().file,
                           first.executes_again.back().module);
    }
    if (!alias.importers.empty()) {
        // An importer that executes under the alias what also runs under the package's own names,
        // or one the scan could not follow: the first, as the example.
        const auto again = std::find_if(alias.importers.begin(), alias.importers.end(), [](const AliasImporter& i) {
            return !i.under_both_names || !i.under_both_names->empty();
        });
        const AliasImporter& first = again == alias.importers.end() ? alias.importers.front() : *again;
        const std::string prefix =
            fmt::format("{} at {}{}{} {} imports {} through it", what, where, covered,
                        covered.empty() ? ", and" : ", and otherwise", at(first.file, first.line), first.module);
        if (again == alias.importers.end())
            return fmt::format("{}: the scanned code runs none of the modules {} execute under {}'s own names, so "
                               "each would run once, under the alias, until something imports it by its own name",
                               prefix,
                               alias.importers.size() == 1 ? std::string("that import")
                                                           : fmt::format("those {} imports", alias.importers.size()),
                               alias.target);
        if (!first.under_both_names)
            return fmt::format("{}: that module's source would be executed again under the alias", prefix);
        const std::vector<std::string>& both = *first.under_both_names;
        const std::string& named =
            std::find(both.begin(), both.end(), first.module) != both.end() ? first.module : both.front();
        return fmt::format("{}: {} would be executed again under the alias, as it runs as {} too", prefix, named,
                           alias.target + named.substr(alias.alias.size()));
    }
    return fmt::format("{} at {}{}; no scanned code imports a submodule through {}", what, where,
                       covered.empty() ? " (the module alone, not its submodules)" : covered, alias.alias);
}

Finding alias_finding(const StaticAlias& alias)
{
    const std::vector<const AliasImporter*> reaching = reaching_extensions(alias);
    Finding f;
    f.kind = "partial-alias";
    // A loop that aliases the submodules only under a condition leaves the path without it as it was.
    f.severity = !reaching.empty() && always_covering(alias) == nullptr ? Severity::error : Severity::warning;
    f.module_names = {alias.alias};
    if (!alias.target.empty())
        f.module_names.push_back(alias.target);
    f.file = alias.target_file.empty() ? alias.file : alias.target_file; // the aliased package's, as in run
    f.message = alias_message(alias, reaching);
    f.explanation = fmt::format(
        "sys.modules[\"{0}\"] makes `import {0}` return the package, but `import {0}.sub` looks for "
        "\"{0}.sub\" in sys.modules, finds nothing, and executes the file of sub again as a new module. An "
        "extension reached that way runs its PyInit a second time: pybind11 raises \"generic_type: type ... is "
        "already registered!\", nanobind warns, and C state is duplicated.",
        alias.alias);
    f.advice = alias.target.empty()
                   ? fmt::format("Alias every submodule along with {0} (each \"{0}.<sub>\" key), or import the "
                                 "package by its own name.",
                                 alias.alias)
                   : fmt::format("Alias every submodule along with the package (sys.modules[\"{0}.\" + rest] for "
                                 "each loaded \"{1}.\" + rest, after importing them), or make the importers use "
                                 "{1} directly.",
                                 alias.alias, alias.target);
    PartialAliasEvidence evidence;
    evidence.alias = alias.alias;
    evidence.value = alias.value;
    evidence.targets = alias.targets;
    evidence.target_file = alias.target_file;
    evidence.set_at = std::vector<CodeLine>{{alias.file, alias.line, alias.function, {}}};
    evidence.importers.emplace();
    for (const AliasImporter& importer : alias.importers)
        evidence.importers->push_back(importer_evidence(importer));
    evidence.submodules_aliased_at.emplace();
    for (const SubmoduleAliasing& loop : alias.covered_by) {
        AliasingLoop& covered = evidence.submodules_aliased_at->emplace_back();
        covered.file = loop.file;
        covered.line = loop.line;
        if (!loop.condition.empty())
            covered.only = LoopCondition{loop.condition, loop.condition_line};
    }
    StaticSeen& seen = evidence.static_seen.emplace();
    seen.seen.push_back(line_at(alias.file, alias.line));
    for (const AliasImporter* importer : reaching)
        seen.seen.push_back(line_at(importer->file, importer->line));
    f.evidence = std::move(evidence);
    return f;
}

std::string owners_text(const std::vector<Distribution>& owners)
{
    std::vector<std::string> names;
    names.reserve(owners.size());
    for (const Distribution& d : owners)
        names.push_back(fmt::format("{} {}", d.name, d.version));
    return names.empty() ? std::string("no distribution's metadata") : fmt::format("{}", fmt::join(names, ", "));
}

/// The file whose distribution owns an extension: its top-level package's `__init__.py`, or itself.
std::string top_level_origin(const ScannedExtension& extension)
{
    const std::string top = extension.module.substr(0, extension.module.find('.'));
    if (top == extension.module)
        return extension.path;
    return (std::filesystem::path(extension.root) / top / "__init__.py").string();
}

std::string parent_and_name(const std::string& path)
{
    const std::filesystem::path p(path);
    return (p.parent_path().filename() / p.filename()).string();
}

std::string leaf(const std::string& module)
{
    return module.substr(module.rfind('.') + 1);
}

Finding copy_finding(const std::vector<const ScannedExtension*>& copies, bool by_content, const AnalysisOptions& options)
{
    Finding f;
    f.kind = "duplicate-extension-copy";
    f.severity = Severity::warning;
    f.file = copies.front()->path;
    DuplicateCopyEvidence evidence;
    StaticSeen& seen = evidence.static_seen.emplace(); // what the scan saw, where
    std::vector<std::string> places;
    for (const ScannedExtension* copy : copies) {
        f.module_names.push_back(copy->module);
        const std::vector<Distribution> owners =
            options.distribution_of ? options.distribution_of(top_level_origin(*copy)) : std::vector<Distribution>{};
        std::vector<DistributionEvidence> distributions;
        distributions.reserve(owners.size());
        for (const Distribution& d : owners)
            distributions.push_back({d.name, d.version, {}});
        evidence.copies.push_back({copy->module, copy->path, std::nullopt, std::move(distributions), {}});
        seen.seen.push_back(line_at(copy->path, 0));
        places.push_back(fmt::format("{} ({})", copy->path, owners_text(owners)));
    }
    f.message = fmt::format("{} copies of one extension are installed ({}): {}", copies.size(),
                            by_content ? "identical content" : "the same package-relative path in two distributions",
                            fmt::join(places, " and "));
    f.explanation = "A process that imports both loads two separate libraries with their own C++ state: two "
                    "registries, two runtimes. pybind11 refuses the second registration of a type (\"already "
                    "registered\"), and libraries that keep global state (CUDA contexts, operator tables) conflict.";
    f.advice = "Keep one copy importable: use the vendored copy or the installed one, not both (uninstall the other, "
               "or make the vendoring package import the installed one).";
    evidence.matched_by = by_content ? "sha256" : "package-relative path";
    f.evidence = std::move(evidence);
    return f;
}

/// Identical extension files, hashed only when another of the same PyInit name and size exists; and
/// the same package-relative path owned by two different distributions.
std::vector<Finding> copy_findings(const std::vector<ScannedExtension>& extensions, const AnalysisOptions& options)
{
    std::map<std::tuple<std::string, std::uint64_t>, std::vector<const ScannedExtension*>> same_size;
    std::map<std::string, std::vector<const ScannedExtension*>> same_relative;
    for (const ScannedExtension& e : extensions) {
        same_size[{leaf(e.module), e.size}].push_back(&e);
        same_relative[parent_and_name(e.path)].push_back(&e);
    }
    std::vector<Finding> findings;
    std::set<std::set<std::string>> reported;
    auto report = [&](const std::vector<const ScannedExtension*>& group, bool by_content) {
        std::set<std::string> files;
        for (const ScannedExtension* e : group)
            files.insert(e->path);
        if (files.size() >= 2 && reported.insert(files).second)
            findings.push_back(copy_finding(group, by_content, options));
    };
    if (options.hash_file)
        for (const auto& [key, group] : same_size) {
            if (group.size() < 2)
                continue;
            std::map<std::string, std::vector<const ScannedExtension*>> by_hash;
            for (const ScannedExtension* e : group)
                if (const auto hash = options.hash_file(e->path))
                    by_hash[*hash].push_back(e);
            for (const auto& [hash, copies] : by_hash)
                report(copies, true);
        }
    if (options.distribution_of)
        for (const auto& [relative, group] : same_relative) {
            if (group.size() < 2)
                continue;
            std::map<std::string, std::vector<const ScannedExtension*>> by_owner;
            for (const ScannedExtension* e : group)
                for (const Distribution& d : options.distribution_of(top_level_origin(*e)))
                    by_owner[d.name].push_back(e);
            if (by_owner.size() >= 2)
                report(group, false);
        }
    return findings;
}

std::string entry_origin_text(const ScannedEntry& entry)
{
    if (entry.origin == ".pth")
        return fmt::format("added by {} line {}", entry.pth.file, entry.pth.line);
    if (entry.origin == "PYTHONPATH")
        return "from PYTHONPATH";
    return fmt::format("origin: {}", entry.origin);
}

Finding package_directory_finding(const PackageDirectoryEntry& found)
{
    Finding f;
    f.kind = "package-directory-on-sys-path";
    f.severity = found.extensions.empty() ? Severity::warning : Severity::error;
    f.module_names = {found.package};
    f.file = found.entry.path;
    f.message = fmt::format("sys.path entry {} ({}) is the directory of package {}, which {} imports too: each of its "
                            "modules is importable under two names{}",
                            found.entry.path, entry_origin_text(found.entry), found.package, found.outer_entry,
                            found.extensions.empty()
                                ? std::string()
                                : fmt::format(", and its extension {} would be initialized twice when both are "
                                              "imported",
                                              found.extensions.front()));
    f.explanation = fmt::format(
        "A module of {0} imported as `{0}.x` and as `x` (from the entry inside the package) is executed twice as "
        "two modules; an extension runs its PyInit twice, which pybind11 refuses (\"already registered\").",
        found.package);
    f.advice = found.entry.origin == ".pth"
                   ? fmt::format("Remove line {} of {}: import {} by its package name.", found.entry.pth.line,
                                 found.entry.pth.file, found.package)
                   : fmt::format("Take {} off sys.path ({}) and import {} by its package name.", found.entry.path,
                                 entry_origin_text(found.entry), found.package);
    PackageDirectoryEvidence evidence;
    evidence.static_seen.emplace().seen.push_back(
        line_at(found.entry.origin == ".pth" ? found.entry.pth.file : found.entry.path,
                found.entry.origin == ".pth" ? found.entry.pth.line : 0));
    evidence.entry = found.entry.path;
    evidence.origin = found.entry.origin;
    evidence.outer_entry = found.outer_entry;
    evidence.package = found.package;
    evidence.extensions = found.extensions;
    f.evidence = std::move(evidence);
    return f;
}

std::string origin_file(const TopLevelName& name)
{
    return name.kind == "package" ? (std::filesystem::path(name.path) / "__init__.py").string() : name.path;
}

/// A top-level name in two scanned directories (the first shadows the others) or claimed by two
/// distributions in one: `run`'s multiple-installations, from an installation made of the listings.
std::vector<Finding> installation_findings(const ScanFacts& facts, const AnalysisOptions& options)
{
    RunModel model;
    std::map<std::string, std::size_t> index; // name -> its installation
    std::set<std::string> seen_dirs;
    auto add = [&](const ScannedEntry& entry) {
        if (entry.origin == "stdlib" || !seen_dirs.insert(entry.path).second)
            return;
        for (const TopLevelName& name : entry.top_level) {
            const auto [it, inserted] = index.try_emplace(name.name, model.installations.size());
            if (inserted) {
                InProcess<journal::Installation> installation;
                installation.event.name = name.name;
                installation.event.origin = origin_file(name);
                model.installations.push_back(std::move(installation));
            } else {
                model.installations[it->second].event.shadowed.push_back(origin_file(name));
            }
        }
    };
    for (const ScannedEntry& entry : facts.sys_path)
        add(entry);
    for (const ScannedEntry& entry : facts.arguments)
        add(entry);
    std::vector<Finding> findings = find_multiple_installations(model, options.distribution_of);
    for (Finding& f : findings) {
        auto& evidence = std::get<MultipleInstallationsEvidence>(f.evidence);
        StaticSeen& seen = evidence.static_seen.emplace();
        if (evidence.places)
            for (const InstallationPlace& place : *evidence.places)
                seen.seen.push_back(line_at(place.origin, 0));
        if (seen.seen.empty())
            seen.seen.push_back(line_at(f.file, 0));
    }
    return findings;
}

} // namespace

std::vector<Finding> find_static_hazards(const ScanFacts& facts, const AnalysisOptions& options)
{
    std::vector<Finding> findings;
    for (const StaticAlias& alias : facts.aliases)
        findings.push_back(alias_finding(alias));
    for (const PackageDirectoryEntry& found : facts.package_dirs_on_path)
        findings.push_back(package_directory_finding(found));
    for (const std::vector<Finding>& more :
         {copy_findings(facts.extensions, options), installation_findings(facts, options)})
        findings.insert(findings.end(), more.begin(), more.end());
    match_known_issues(findings, options);
    order_findings(findings);
    return findings;
}

} // namespace importscope::analysis
