#pragma once

#include "importscope/analysis/finding.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace importscope::collect {

/// Which installed distribution provides an importable location, read from the metadata beside it
/// (`*.dist-info`: METADATA, top_level.txt or RECORD; `*.egg-info`: PKG-INFO, top_level.txt), as
/// importlib.metadata would find it. Each directory's metadata is read once, the first time a
/// location in it is asked about.
class DistributionIndex {
public:
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

    std::map<std::string, TopLevelNames> m_directories;
};

/// The version of each distribution of `names` (compared as PEP 503 normalizes names) first found
/// in the directories of `path`, in order, as importlib.metadata.version() finds it: by the name
/// of its `*.dist-info` or `*.egg-info` directory, whose METADATA or PKG-INFO alone is read; none
/// when no metadata there names it.
std::map<std::string, std::optional<std::string>> installed_versions(const std::vector<std::string>& names,
                                                                    const std::vector<std::string>& path);

} // namespace importscope::collect
