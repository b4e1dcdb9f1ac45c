#include "importscope/app/run_stages.hpp"

#include "importscope/analysis/known_issues.hpp"
#include "importscope/collect/binding_library.hpp"
#include "importscope/collect/distributions.hpp"
#include "importscope/supervisor/environment.hpp"
#include "importscope/util/regular_file.hpp"
#include "importscope/util/sha256.hpp"

#include "importscope/journal/run_layout.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <filesystem>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <unistd.h>

namespace importscope::app {

std::vector<int> traced_minors(const InstallLayout& layout)
{
    std::vector<int> minors;
    for (const std::string& minor : supervisor::available_minors(layout.runtime_dir))
        if (const auto version = supervisor::parse_version(minor))
            minors.push_back(version->second);
    return minors;
}

namespace {

/// A child's note is a few hundred bytes: its pid, version, executable and argv.
constexpr std::size_t k_largest_hookless_note = std::size_t{1} << 20;

/// The Python children that had no hooks of their version and said so in the run directory
/// (journal::k_hookless_prefix), as processes seen, with their minor.
std::vector<ObservedPython> hookless_children(const std::filesystem::path& run_dir)
{
    std::vector<ObservedPython> children;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->path().filename().string().starts_with(journal::k_hookless_prefix))
            continue;
        // The target can write into the run directory: a FIFO is not waited on, a huge file not read.
        const std::optional<std::string> text = read_regular_file(it->path().c_str(), k_largest_hookless_note);
        const nlohmann::json facts = nlohmann::json::parse(text.value_or(""), nullptr, false);
        if (!facts.is_object())
            continue;
        ObservedPython child;
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

std::vector<ObservedPython> observed_pythons(const supervisor::SupervisedRun& end, const std::filesystem::path& run_dir)
{
    std::vector<ObservedPython> observed = hookless_children(run_dir);
    const auto hookless = static_cast<std::ptrdiff_t>(observed.size());
    for (const ObservedPython& seen : end.pythons_seen)
        if (std::none_of(observed.begin(), observed.begin() + hookless,
                         [&](const auto& o) { return o.pid == seen.pid; }))
            observed.push_back(seen);
    return observed;
}

std::vector<ObservedLauncher> observed_launchers(const RunRequest& request, const supervisor::SupervisedRun& end)
{
    std::vector<ObservedLauncher> observed;
    const bool executed = !end.start_words.empty() && end.start_words[0] == embed::start_word::exec &&
                          !program_not_executed(end.start_words);
    if (request.is_program() && executed) {
        const embed::Target& program = request.resolved.target;
        std::vector<std::string> argv{program.program_argv0};
        argv.insert(argv.end(), program.args.begin(), program.args.end());
        observed.push_back({end.pid, static_cast<int>(::getpid()), "the command", program.value, std::move(argv)});
    }
    observed.insert(observed.end(), end.launchers_seen.begin(), end.launchers_seen.end());
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

analysis::Conclusions find_hazards(analysis::RunModel& model, const std::string& data_dir,
                                            const analysis::FileHasher& hash_file,
                                            const analysis::DistributionLookup& distribution_of)
{
    analysis::AnalysisOptions analysis_options;
    analysis_options.hash_file = hash_file;
    analysis_options.distribution_of = distribution_of;
    analysis_options.binding_of = [](const std::string& path) { return collect::binding_library_of(path); };
    analysis_options.file_exists = is_regular_file;
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
    return analysis::conclude(model, std::move(findings));
}

namespace {

/// The packages whose versions every report gives: the double-initialization family's.
const std::array<const char*, 7> k_reported_packages = {"vllm",     "flashinfer-python", "torch", "deep_gemm",
                                                         "deep-gemm", "pybind11",          "triton"};

/// {name: version or null} of k_reported_packages, on the sys.path the fingerprint read.
nlohmann::json package_versions(const nlohmann::json& fingerprint_facts)
{
    std::vector<std::string> path;
    if (const auto scanned = fingerprint_facts.find("scanned"); fingerprint_facts.is_object() && scanned != fingerprint_facts.end())
        for (const auto& entry : *scanned)
            if (entry.is_array() && !entry.empty() && entry[0].is_string())
                path.push_back(entry[0].get<std::string>());
    nlohmann::json versions = nlohmann::json::object();
    for (const auto& [name, version] : collect::installed_versions({k_reported_packages.begin(), k_reported_packages.end()}, path))
        versions[name] = version ? nlohmann::json(*version) : nlohmann::json(nullptr);
    return versions;
}

/// {top-level name: [{name, version}]}: the distributions that provide each top-level module the
/// run recorded, by the file of its first record (a submodule's tells its package's directory).
nlohmann::json top_level_distributions(const analysis::RunModel& model, const analysis::DistributionLookup& distribution_of)
{
    std::map<std::string, std::string, std::less<>> origins; // top-level name -> its __init__ or file
    std::string_view last_top; // a package's modules come one after another: one lookup for them all
    for (const auto& m : model.modules) {
        if (m.origin.empty() || !m.origin.starts_with('/'))
            continue;
        const std::string_view top = std::string_view(m.name).substr(0, m.name.find('.'));
        const bool seen = top == last_top || origins.contains(top);
        last_top = top;
        if (seen)
            continue;
        std::filesystem::path origin(m.origin);
        if (top.size() != m.name.size()) { // a submodule: its top-level package's __init__, as many levels up
            if (origin.filename().string().starts_with("__init__."))
                origin = origin.parent_path(); // a package is its directory
            for (auto dots = std::count(m.name.begin(), m.name.end(), '.'); dots > 0; --dots)
                origin = origin.parent_path();
            origin /= "__init__.py";
        }
        origins.emplace(top, origin.string());
    }
    nlohmann::json distributions = nlohmann::json::object();
    for (const auto& [top, origin] : origins) {
        std::vector<analysis::Distribution> owners = distribution_of ? distribution_of(origin) : std::vector<analysis::Distribution>{};
        if (owners.empty())
            continue;
        std::sort(owners.begin(), owners.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
        nlohmann::json& listed = distributions[top];
        for (const auto& owner : owners)
            listed.push_back({{"name", owner.name}, {"version", owner.version}});
    }
    return distributions;
}

} // namespace

nlohmann::json describe_environment(nlohmann::json fingerprint_facts, const analysis::RunModel& model,
                                    const analysis::DistributionLookup& distribution_of,
                                    const std::vector<std::string>& env_prefixes)
{
    std::vector<std::string> prefixes = supervisor::k_default_env_prefixes;
    prefixes.insert(prefixes.end(), env_prefixes.begin(), env_prefixes.end());
    nlohmann::json packages = package_versions(fingerprint_facts);
    nlohmann::json distributions = top_level_distributions(model, distribution_of);
    return supervisor::collect_environment(std::move(fingerprint_facts), std::move(packages), std::move(distributions),
                                           prefixes);
}

} // namespace importscope::app
