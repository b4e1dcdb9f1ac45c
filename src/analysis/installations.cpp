#include "importscope/analysis/finding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace importscope::analysis {

namespace {

/// "deep_gemm/_C.cpython-311-x86_64-linux-gnu.so": the file as its package sees it.
std::string package_relative(const std::string& path)
{
    const std::filesystem::path p(path);
    return (p.parent_path().filename() / p.filename()).string();
}

std::string package_dir(const std::string& origin)
{
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(origin, ec);
    return (ec ? std::filesystem::path(origin) : canonical).parent_path().string();
}

std::string_view last_component(std::string_view name)
{
    return name.substr(name.rfind('.') + 1); // the whole name when it has no dot (npos + 1 is 0)
}

} // namespace

std::vector<Finding> find_duplicate_extension_copies(const RunModel& model, const FileHasher& hash_file)
{
    // Only files whose module has the last name of another extension loaded by the same process
    // are hashed: CPython runs PyInit_<last name>, so two copies of one extension are always loaded
    // under the same last name. Hashing every extension would cost each run milliseconds.
    using Leaf = std::tuple<std::string, int, std::string>;
    std::map<Leaf, int> leaf_count;
    for (const auto& r : model.modules)
        if (r.initialized_extension && !r.file().empty())
            ++leaf_count[{r.journal, r.pid, std::string(last_component(r.name))}];

    // Group each process's extension loads by content and by package-relative path.
    using Group = std::tuple<std::string, int, std::string>;
    std::map<Group, std::vector<const ModuleRecord*>> groups;
    std::map<std::string, std::optional<std::string>> hashes; // once per file
    for (const auto& r : model.modules) {
        if (!r.initialized_extension || r.file().empty())
            continue;
        groups[{r.journal, r.pid, "path:" + package_relative(r.file())}].push_back(&r);
        if (hash_file && leaf_count[{r.journal, r.pid, std::string(last_component(r.name))}] > 1) {
            auto [it, inserted] = hashes.try_emplace(r.file());
            if (inserted)
                it->second = hash_file(r.file());
            if (it->second)
                groups[{r.journal, r.pid, "sha256:" + *it->second}].push_back(&r);
        }
    }

    // Content first: the same pair found by content and by path is reported once, as identical.
    std::vector<const std::pair<const Group, std::vector<const ModuleRecord*>>*> ordered;
    for (const auto& entry : groups)
        if (std::get<2>(entry.first).starts_with("sha256:"))
            ordered.push_back(&entry);
    for (const auto& entry : groups)
        if (!std::get<2>(entry.first).starts_with("sha256:"))
            ordered.push_back(&entry);

    std::vector<Finding> findings;
    std::set<std::set<std::string>> reported;
    for (const auto* entry : ordered) {
        const auto& [group, loads] = *entry;
        std::set<std::string> files;
        for (const auto* r : loads)
            files.insert(r->file());
        if (files.size() < 2 || !reported.insert(files).second)
            continue;
        const bool by_content = std::get<2>(group).starts_with("sha256:");
        const bool all_live = std::all_of(loads.begin(), loads.end(), [](const ModuleRecord* r) {
            return r->status == ImportStatus::ok || r->status == ImportStatus::unknown;
        });
        Finding f;
        f.kind = "duplicate-extension-copy";
        f.severity = all_live ? Severity::error : Severity::warning;
        f.pid = loads.front()->pid;
        f.file = loads.front()->file();
        DuplicateCopyEvidence evidence;
        for (const auto* r : loads) {
            f.module_names.push_back(r->name);
            evidence.copies.push_back({r->name, r->file(), to_string(r->status), std::nullopt, {}});
        }
        f.message =
            fmt::format("{} copies of one extension are loaded in process {} ({}): {}", files.size(), f.pid,
                        by_content ? "identical content" : "the same package-relative path", fmt::join(files, " and "));
        f.explanation = "Each copy is a separate library with its own C++ state: two registries, two runtimes, two "
                        "sets of globals in one process. Types from one are foreign to the other, and libraries "
                        "that register global state (CUDA contexts, operator tables) can conflict or crash.";
        f.advice = "Keep one copy importable: use the vendored copy or the installed one, not both (uninstall the "
                   "other, or make the vendoring package import the installed one).";
        evidence.matched_by = by_content ? "sha256" : "package-relative path";
        if (by_content)
            evidence.sha256 = std::get<2>(group).substr(7);
        f.evidence = std::move(evidence);
        findings.push_back(std::move(f));
    }
    return findings;
}

/// "/site/idna (idna 3.3)": a place, with the distribution that installed it when its metadata says.
std::string place_text(const std::string& dir, const std::optional<DistributionEvidence>& distribution)
{
    if (!distribution)
        return dir;
    return fmt::format("{} ({} {})", dir, distribution->name, distribution->version);
}

DistributionEvidence evidence_of(const Distribution& distribution)
{
    return {distribution.name, distribution.version, {}};
}

std::optional<DistributionEvidence> distribution_at(const DistributionLookup& distribution_of,
                                                    const std::string& origin)
{
    if (!distribution_of)
        return std::nullopt;
    if (const auto found = distribution_of(origin); !found.empty())
        return evidence_of(found.front());
    return std::nullopt;
}

/// A multiple-installations warning about the top-level name an installation event looked up.
Finding installation_finding(const InProcess<journal::Installation>& installation)
{
    Finding f;
    f.kind = "multiple-installations";
    f.severity = Severity::warning;
    f.pid = installation.pid;
    f.module_names = {installation.event.name};
    f.file = installation.event.origin;
    return f;
}

/// A top-level package that two distributions' metadata claim in one directory: installed over
/// each other, their files are mixed, and uninstalling one removes files the other needs.
std::optional<Finding> shared_directory(const InProcess<journal::Installation>& installation,
                                        const DistributionLookup& distribution_of)
{
    const journal::Installation& e = installation.event;
    const std::vector<Distribution> owners = distribution_of(e.origin);
    if (owners.size() < 2)
        return std::nullopt;
    const std::string place = package_dir(e.origin);
    std::vector<std::string> names; // with versions
    std::vector<std::string> owner_names;
    std::vector<DistributionEvidence> distributions;
    for (const Distribution& owner : owners) {
        names.push_back(fmt::format("{} {}", owner.name, owner.version));
        owner_names.push_back(owner.name);
        distributions.push_back(evidence_of(owner));
    }
    Finding f = installation_finding(installation);
    f.message = fmt::format("{} at {} is installed by {} distributions in one directory: {}", e.name, place,
                            owners.size(), fmt::join(names, ", "));
    f.explanation = fmt::format(
        "Each of these distributions' metadata (RECORD, top_level.txt) claims {0}: the one installed last "
        "overwrote the files they share, so what `import {0}` runs is a mix of both, and uninstalling either "
        "removes files the other needs.",
        e.name);
    f.advice = fmt::format("Keep one of them: pip uninstall {}, then reinstall the one you mean to use (pip "
                           "install --force-reinstall {}).",
                           fmt::join(owner_names, " "), owner_names.front());
    MultipleInstallationsEvidence evidence;
    evidence.name = e.name;
    evidence.importable_from = place;
    evidence.distributions = std::move(distributions);
    f.evidence = std::move(evidence);
    return f;
}

/// A top-level package importable from two or more places along sys.path: the first shadows the rest.
Finding shadowing(const InProcess<journal::Installation>& installation, const DistributionLookup& distribution_of)
{
    const journal::Installation& e = installation.event;
    const std::string winner = package_dir(e.origin);
    std::vector<std::string> shadowed; // one directory reached through two entries (a symlink) is one
    std::vector<std::string> shadowed_origins;
    for (const auto& origin : e.shadowed)
        if (const std::string dir = package_dir(origin);
            dir != winner && std::find(shadowed.begin(), shadowed.end(), dir) == shadowed.end()) {
            shadowed.push_back(dir);
            shadowed_origins.push_back(origin);
        }
    // Each place with the distribution installed there, the one imported first.
    std::vector<InstallationPlace> places;
    places.push_back({winner, e.origin, distribution_at(distribution_of, e.origin), {}});
    for (std::size_t i = 0; i < shadowed.size(); ++i)
        places.push_back({shadowed[i], shadowed_origins[i], distribution_at(distribution_of, shadowed_origins[i]), {}});
    std::vector<std::string> shadowed_text;
    for (std::size_t i = 1; i < places.size(); ++i)
        shadowed_text.push_back(place_text(shadowed[i - 1], places[i].distribution));
    Finding f = installation_finding(installation);
    f.message = fmt::format("{} is importable from {} places on sys.path: {}, the one imported (first on sys.path), "
                            "shadows {}",
                            e.name, shadowed.size() + 1, place_text(winner, places[0].distribution),
                            fmt::join(shadowed_text, ", "));
    f.explanation = fmt::format(
        "Two installations of {0} exist along sys.path. `import {0}` takes the first, so a copy in the working "
        "directory, on PYTHONPATH or earlier in site-packages hides the installed distribution, and what runs is "
        "not what `pip show {0}` describes.",
        e.name);
    f.advice = fmt::format("Remove the copy you do not mean to run, or take its directory off sys.path (check the "
                           "working directory, PYTHONPATH and .pth files); `python -c \"import {0}; print({0}.__file__)\"` "
                           "shows which one wins.",
                           e.name);
    MultipleInstallationsEvidence evidence;
    evidence.name = e.name;
    evidence.importable_from = winner;
    evidence.shadowed = std::move(shadowed);
    evidence.places = std::move(places);
    f.evidence = std::move(evidence);
    return f;
}

std::vector<Finding> find_multiple_installations(const RunModel& model, const DistributionLookup& distribution_of)
{
    std::vector<Finding> findings;
    if (model.installations.empty())
        return findings;
    for (const auto& installation : model.installations) {
        if (!installation.event.shadowed.empty())
            if (Finding f = shadowing(installation, distribution_of);
                !std::get<MultipleInstallationsEvidence>(f.evidence).shadowed->empty())
                findings.push_back(std::move(f));
        if (distribution_of && !installation.event.origin.empty())
            if (std::optional<Finding> f = shared_directory(installation, distribution_of))
                findings.push_back(std::move(*f));
    }
    // The loaded modules named like an installation by the last component of their name, in one
    // pass: each installation looks at its namesakes only.
    std::unordered_map<std::string_view, std::vector<const ModuleRecord*>> namesakes;
    for (const auto& installation : model.installations)
        if (!installation.event.origin.empty() && installation.event.matched)
            namesakes.try_emplace(installation.event.name);
    for (const auto& r : model.modules)
        if (!r.origin.empty() && r.kind != "extension" && !r.stdlib) // encodings.idna is no idna
            if (const auto it = namesakes.find(last_component(r.name)); it != namesakes.end())
                it->second.push_back(&r);
    for (const auto& installation : model.installations) {
        const std::string& name = installation.event.name;
        if (installation.event.origin.empty() || !installation.event.matched || namesakes[name].empty())
            continue;
        const std::string installed_dir = package_dir(installation.event.origin);
        std::set<std::string> elsewhere;
        std::vector<std::string> names;
        for (const ModuleRecord* namesake : namesakes[name]) {
            const ModuleRecord& r = *namesake;
            if (r.journal != installation.journal || r.pid != installation.pid)
                continue;
            const std::string dir = package_dir(r.origin);
            if (dir != installed_dir && elsewhere.insert(dir).second)
                names.push_back(r.name);
        }
        if (elsewhere.empty())
            continue;
        std::optional<DistributionEvidence> installed = distribution_at(distribution_of, installation.event.origin);
        Finding f;
        f.kind = "multiple-installations";
        f.severity = Severity::warning;
        f.pid = installation.pid;
        f.module_names = names;
        f.module_names.insert(f.module_names.begin(), name);
        f.file = installation.event.origin;
        f.message = fmt::format("{} is importable from {} and was also loaded as {} from {}", name,
                                place_text(installed_dir, installed), fmt::join(names, ", "), fmt::join(elsewhere, ", "));
        f.explanation = fmt::format(
            "Two installations of {0} exist in this environment. Which one `import {0}` gives depends on sys.path "
            "and on what was imported first, and an alias such as sys.modules.setdefault(\"{0}\", ...) does "
            "nothing when the other one was imported before it.",
            name);
        f.advice = fmt::format("Remove the installation you do not mean to use (pip uninstall {}), or make every "
                               "import go through one of them.",
                               installed ? installed->name : name);
        MultipleInstallationsEvidence evidence;
        evidence.name = name;
        evidence.importable_from = installed_dir;
        evidence.also_loaded_from = std::vector<std::string>(elsewhere.begin(), elsewhere.end());
        evidence.distribution = std::move(installed);
        f.evidence = std::move(evidence);
        findings.push_back(std::move(f));
    }
    return findings;
}

} // namespace importscope::analysis
