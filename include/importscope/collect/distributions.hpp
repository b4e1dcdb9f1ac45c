#pragma once

#include "importscope/analysis/finding.hpp"
#include "importscope/util/cache_dir.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace importscope::collect {

/// Which installed distribution provides an importable location, read from the metadata beside it
/// (`*.dist-info`: METADATA, top_level.txt or RECORD; `*.egg-info`: PKG-INFO, top_level.txt), as
/// importlib.metadata would find it. Each directory's metadata is read once, the first time a
/// location in it is asked about, and kept in importscope's cache for later runs while the
/// directory keeps its identity and modification time (installing, upgrading or removing a
/// distribution adds or removes a metadata directory in it): a site directory holds a few hundred
/// metadata files, which every run would otherwise open.
class DistributionIndex {
public:
    /// `cache`: the directory where each directory's metadata is kept; none: read every time.
    explicit DistributionIndex(std::optional<std::filesystem::path> cache = cache_directory());

    /// The distributions whose top-level name `origin` is (a package's `__init__.py`, a module's
    /// file, or an extension's), in the order of their metadata directories' names: none when no
    /// metadata beside it names it, two or more when distributions share the directory.
    std::vector<analysis::Distribution> owners_of(const std::string& origin);

private:
    struct Claim {
        analysis::Distribution distribution;
        std::string metadata; ///< its *.dist-info or *.egg-info directory
    };
    using TopLevelNames = std::map<std::string, std::vector<Claim>>;
    const TopLevelNames& read_directory(const std::string& directory);

    std::optional<std::filesystem::path> m_cache;
    std::map<std::string, TopLevelNames> m_directories;
};

/// The version of each distribution of `names` (compared as PEP 503 normalizes names) first found
/// in the directories of `path`, in order, as importlib.metadata.version() finds it: by the name
/// of its `*.dist-info` or `*.egg-info` directory, whose METADATA or PKG-INFO alone is read; none
/// when no metadata there names it.
std::map<std::string, std::optional<std::string>> installed_versions(const std::vector<std::string>& names,
                                                                    const std::vector<std::string>& path);

} // namespace importscope::collect
