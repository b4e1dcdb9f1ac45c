#pragma once

#include "importscope/analysis/finding.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

namespace importscope::analysis {

/// The known-issue catalogue (data/known-issues.json): signatures of findings that upstream projects
/// have reported, with their explanation, links and advice. Data, not code: a new entry needs no build.
class KnownIssueCatalogue {
public:
    /// Parses a catalogue; throws std::invalid_argument naming what is wrong.
    static KnownIssueCatalogue parse(const nlohmann::json& document);
    /// Reads and parses a catalogue file; throws std::invalid_argument.
    static KnownIssueCatalogue load(const std::filesystem::path& path);

    /// The first entry that matches the finding, if any. `exists` answers an entry's
    /// fixed_if_beside; without it, no finding is taken for fixed.
    std::optional<KnownIssue> match(const Finding& finding, const FileExists& exists = {}) const;

    std::size_t size() const { return m_entries.size(); }

private:
    struct Entry {
        std::vector<std::string> kinds;
        std::vector<std::regex> module_names; ///< each must match one of the finding's names
        std::optional<std::regex> file;       ///< searched in the finding's file
        std::optional<std::regex> type_name;  ///< matched against evidence.type_name
        /// Searched in the module of each execution's call site (a duplicate source exec's
        /// evidence.executions[].call_site.module): the code that ran the file again.
        std::optional<std::regex> call_site_module;
        /// A file name that a fixed build has beside the finding's file, in its directory, and an
        /// affected one has not: the entry does not match there.
        std::optional<std::string> fixed_if_beside;
        KnownIssue description;
    };
    std::vector<Entry> m_entries;
};

} // namespace importscope::analysis
