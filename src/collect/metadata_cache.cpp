#include "metadata_cache.hpp"

#include "importscope/util/atomic_file.hpp"
#include "importscope/util/cache_dir.hpp"
#include "importscope/util/regular_file.hpp"

#include <fmt/format.h>

#include <ctime>
#include <string_view>
#include <sys/stat.h>

namespace importscope::collect {

namespace {

namespace fs = std::filesystem;

/// A directory's cache file: its stamp and its metadata directories.
struct CachedDirectory {
    int format = 0;
    std::string directory;
    std::uint64_t dev = 0;
    std::uint64_t ino = 0;
    std::int64_t mtime_ns = 0;
    std::vector<MetadataEntry> entries;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.required("format", e.format);
        f.required("directory", e.directory);
        f.required("dev", e.dev);
        f.required("ino", e.ino);
        f.required("mtime_ns", e.mtime_ns);
        f.required("entries", e.entries);
    }
};

using json_fields::from_json;
using json_fields::to_json;

constexpr int k_format = 1;
constexpr std::size_t k_largest_file = std::size_t{16} << 20; ///< a site directory of thousands of distributions
constexpr std::size_t k_files_kept = 256;                     ///< the newest directories' files
constexpr std::int64_t k_settled_ns = 2'000'000'000;

/// The cache file of `directory`, named by its path's FNV-1a hash (the file names the directory
/// again, so that two directories of one hash are told apart).
fs::path cache_file_of(const fs::path& cache, std::string_view directory)
{
    std::uint64_t hash = 14695981039346656037ULL;
    for (const char c : directory)
        hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return cache / fmt::format("distributions-{:016x}.json", hash);
}

std::int64_t wall_ns()
{
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

} // namespace

std::optional<DirectoryStamp> stamp_of(int fd)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return std::nullopt;
    return DirectoryStamp{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

std::optional<std::vector<MetadataEntry>> cached_metadata(const fs::path& cache, const std::string& directory,
                                                          const DirectoryStamp& stamp)
{
    const std::optional<std::string> text = read_regular_file(cache_file_of(cache, directory).c_str(), k_largest_file);
    if (!text)
        return std::nullopt;
    const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
    try {
        CachedDirectory cached = json.get<CachedDirectory>();
        if (cached.format != k_format || cached.directory != directory ||
            DirectoryStamp{cached.dev, cached.ino, cached.mtime_ns} != stamp)
            return std::nullopt;
        return std::move(cached.entries);
    } catch (const std::exception&) { // not this format's: read the metadata
        return std::nullopt;
    }
}

void cache_metadata(const fs::path& cache, const std::string& directory, const DirectoryStamp& stamp,
                    const std::vector<MetadataEntry>& entries)
{
    if (wall_ns() - stamp.mtime_ns < k_settled_ns)
        return;
    try {
        const CachedDirectory cached{k_format, directory, stamp.dev, stamp.ino, stamp.mtime_ns, entries};
        fs::create_directories(cache);
        write_file_atomically(cache_file_of(cache, directory), nlohmann::json(cached).dump());
        prune_cache_files(cache, "distributions-", ".json", k_files_kept);
    } catch (const std::exception&) {
        // an unwritable cache only costs the next run the reading
    }
}

} // namespace importscope::collect
