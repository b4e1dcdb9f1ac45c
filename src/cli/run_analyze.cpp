#include "cli/run_stages.hpp"

#include "importscope/analysis/known_issues.hpp"
#include "importscope/collect/binding_library.hpp"
#include "importscope/collect/distributions.hpp"
#include "importscope/supervisor/environment.hpp"
#include "importscope/util/sha256.hpp"

#include "importscope/journal/run_layout.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <map>
#include <memory>
#include <set>
#include <string_view>

namespace importscope::cli {

std::vector<int> traced_minors(const InstallLayout& layout)
{
    std::vector<int> minors;
    for (const std::string& minor : supervisor::available_minors(layout.runtime_dir))
        if (const auto version = supervisor::parse_version(minor))
            minors.push_back(version->second);
    return minors;
}

namespace {

/// The Python children that had no hooks of their version and said so in the run directory
/// (journal::k_hookless_prefix), as processes seen, with their minor.
std::vector<analysis::ObservedPython> hookless_children(const std::filesystem::path& run_dir)
{
    std::vector<analysis::ObservedPython> children;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->path().filename().string().starts_with(journal::k_hookless_prefix))
            continue;
        std::ifstream in(it->path());
        const nlohmann::json facts = nlohmann::json::parse(in, nullptr, false);
        if (!facts.is_object())
            continue;
        analysis::ObservedPython child;
        child.pid = facts.value("pid", 0);
        child.ppid = facts.value("ppid", 0);
        child.executable = facts.value("executable", "");
        child.argv = facts.value("argv", std::vector<std::string>{});
        child.environment = "kept";
        if (const auto version = supervisor::parse_version(facts.value("version", "")))
            child.minor = version->second;
        if (child.pid > 0 && child.minor)
            children.push_back(std::move(child));
    }
    return children;
}

} // namespace

std::vector<analysis::ObservedPython> observed_pythons(const supervisor::ProcessEnd& end,
                                                       const std::filesystem::path& run_dir)
{
    std::vector<analysis::ObservedPython> observed = hookless_children(run_dir);
    for (const auto& seen : end.pythons_seen)
        if (std::none_of(observed.begin(), observed.end(), [&](const auto& o) { return o.pid == seen.pid; }))
            observed.push_back({seen.pid, seen.ppid, seen.executable, seen.argv, seen.environment, std::nullopt});
    return observed;
}

analysis::FileHasher cached_hasher()
{
    auto hashes = std::make_shared<std::map<std::string, std::optional<std::string>>>();
    return [hashes](const std::string& path) {
        auto [it, inserted] = hashes->try_emplace(path);
        if (inserted)
            it->second = sha256_file(path);
        return it->second;
    };
}

analysis::DistributionLookup cached_distributions()
{
    auto index = std::make_shared<collect::DistributionIndex>();
    return [index](const std::string& origin) { return index->owners_of(origin); };
}

std::optional<analysis::KnownIssueCatalogue> read_known_issues(const std::string& data_dir, std::string& problem)
{
    if (data_dir.empty()) {
        problem = "known issues not matched: no importscope-data directory beside the binary";
        return std::nullopt;
    }
    try {
        return analysis::KnownIssueCatalogue::load(data_dir + "/known-issues.json");
    } catch (const std::invalid_argument& e) {
        problem = fmt::format("known issues not matched: {}", e.what());
        return std::nullopt;
    }
}

std::vector<analysis::Finding> find_hazards(analysis::RunModel& model, const std::string& data_dir,
                                            const analysis::FileHasher& hash_file,
                                            const analysis::DistributionLookup& distribution_of)
{
    analysis::AnalysisOptions analysis_options;
    analysis_options.hash_file = hash_file;
    analysis_options.distribution_of = distribution_of;
    analysis_options.binding_of = [](const std::string& path) { return collect::binding_library_of(path); };
    // The catalogue is read only when there are findings: compiling its patterns costs a run
    // without findings several milliseconds.
    std::optional<analysis::KnownIssueCatalogue> catalogue;
    std::string catalogue_problem;
    analysis_options.known_issues = [&]() -> const analysis::KnownIssueCatalogue* {
        catalogue = read_known_issues(data_dir, catalogue_problem);
        return catalogue ? &*catalogue : nullptr;
    };
    std::vector<analysis::Finding> findings = analysis::analyze(model, analysis_options);
    if (!catalogue_problem.empty())
        model.problems.push_back(std::move(catalogue_problem));
    return findings;
}

nlohmann::json describe_environment(nlohmann::json fingerprint_facts, const analysis::RunModel& model,
                                    const std::vector<std::string>& env_prefixes)
{
    std::set<std::string, std::less<>> top_levels;
    std::string_view previous; // a package's modules mostly follow each other
    for (const auto& m : model.modules)
        if (const std::string_view top = std::string_view(m.name).substr(0, m.name.find('.')); top != previous) {
            previous = top;
            if (top_levels.find(top) == top_levels.end())
                top_levels.emplace(top);
        }
    std::vector<std::string> prefixes = supervisor::k_default_env_prefixes;
    prefixes.insert(prefixes.end(), env_prefixes.begin(), env_prefixes.end());
    return supervisor::collect_environment(std::move(fingerprint_facts), {top_levels.begin(), top_levels.end()},
                                           prefixes);
}

} // namespace importscope::cli
