#pragma once

// The distributions of a directory as collect::DistributionIndex reads them from their metadata,
// kept in importscope's cache (importscope/util/cache_dir.hpp) for later runs: a file per
// directory, valid while the directory keeps its identity and modification time. The file is
// text of a line per metadata directory, its fields between tabs: a run reads it where it would
// read the metadata, and a JSON parser cost it a third of what the metadata did.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace importscope::collect {

/// A metadata directory (`*.dist-info`, `*.egg-info`) of a directory: its name, its distribution's
/// name and version, and the top-level names it claims.
struct MetadataEntry {
    std::string metadata;
    std::string name;
    std::string version;
    std::vector<std::string> top_level;

    bool operator==(const MetadataEntry&) const = default;
};

/// What a directory's cached entries hold for: its identity and modification time. Installing,
/// upgrading or removing a distribution adds or removes a metadata directory, which changes it.
struct DirectoryStamp {
    std::uint64_t dev = 0;
    std::uint64_t ino = 0;
    std::int64_t mtime_ns = 0;

    bool operator==(const DirectoryStamp&) const = default;
};

/// The stamp of the open directory `fd`; none when fstat() fails.
std::optional<DirectoryStamp> stamp_of(int fd);

/// The entries kept in `cache` for `directory` when it had `stamp`; none when there are none, or
/// the file holding them is not one this importscope wrote (damaged, another format, too large).
std::optional<std::vector<MetadataEntry>> cached_metadata(const std::filesystem::path& cache,
                                                          const std::string& directory, const DirectoryStamp& stamp);

/// Keeps `entries` in `cache` for `directory` with `stamp`, unless the directory was modified in
/// the last 2 seconds (a change in the same tick of the file system's clock would leave the stamp
/// as it is) or a name holds a tab or a line break. A cache that cannot be written costs the next
/// run the reading; nothing is thrown.
void cache_metadata(const std::filesystem::path& cache, const std::string& directory, const DirectoryStamp& stamp,
                    const std::vector<MetadataEntry>& entries);

} // namespace importscope::collect
