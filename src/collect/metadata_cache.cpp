#include "metadata_cache.hpp"

#include "importscope/util/atomic_file.hpp"
#include "importscope/util/cache_dir.hpp"
#include "importscope/util/clock.hpp"
#include "importscope/util/regular_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string_view>
#include <sys/stat.h>

namespace importscope::collect {

namespace {

namespace fs = std::filesystem;

/// The file's first line: what it is and the version of its form.
constexpr std::string_view k_header = "importscope distributions 1";
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
    return cache / fmt::format("distributions-{:016x}", hash);
}

/// The next line of `text` (without its '\n'), taken off it; none at its end.
std::optional<std::string_view> take_line(std::string_view& text)
{
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos)
        return std::nullopt; // every line, the last too, ends in '\n': a file cut short is not read
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end + 1);
    return line;
}

/// The fields of `line`, between tabs.
std::vector<std::string_view> fields_of(std::string_view line)
{
    std::vector<std::string_view> fields;
    for (std::size_t start = 0;;) {
        const std::size_t tab = line.find('\t', start);
        fields.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
        if (tab == std::string_view::npos)
            return fields;
        start = tab + 1;
    }
}

template <typename Number>
bool parse_number(std::string_view text, Number& out)
{
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
    return error == std::errc() && end == text.data() + text.size();
}

std::optional<DirectoryStamp> parse_stamp(std::string_view line)
{
    const std::vector<std::string_view> parts = fields_of(line);
    DirectoryStamp stamp;
    if (parts.size() != 3 || !parse_number(parts[0], stamp.dev) || !parse_number(parts[1], stamp.ino) ||
        !parse_number(parts[2], stamp.mtime_ns))
        return std::nullopt;
    return stamp;
}

bool has_separator(std::string_view text)
{
    return text.find_first_of("\t\n") != std::string_view::npos;
}

bool writable(const std::string& directory, const std::vector<MetadataEntry>& entries)
{
    return directory.find('\n') == std::string::npos &&
           std::none_of(entries.begin(), entries.end(), [](const MetadataEntry& e) {
               return has_separator(e.metadata) || has_separator(e.name) || has_separator(e.version) ||
                      std::any_of(e.top_level.begin(), e.top_level.end(), has_separator);
           });
}

} // namespace

std::optional<DirectoryStamp> stamp_of(int fd)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return std::nullopt;
    return DirectoryStamp{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                          nanoseconds_of(st.st_mtim)};
}

std::optional<std::vector<MetadataEntry>> cached_metadata(const fs::path& cache, const std::string& directory,
                                                          const DirectoryStamp& stamp)
{
    const std::optional<std::string> file = read_regular_file(cache_file_of(cache, directory).c_str(), k_largest_file);
    if (!file)
        return std::nullopt;
    std::string_view text = *file;
    const auto header = take_line(text);
    const auto named = take_line(text);
    const auto stamp_line = take_line(text);
    if (header != k_header || named != directory || !stamp_line || parse_stamp(*stamp_line) != stamp)
        return std::nullopt;
    std::vector<MetadataEntry> entries;
    while (const auto line = take_line(text)) {
        const std::vector<std::string_view> fields = fields_of(*line);
        if (fields.size() < 3)
            return std::nullopt;
        MetadataEntry& entry = entries.emplace_back();
        entry.metadata = fields[0];
        entry.name = fields[1];
        entry.version = fields[2];
        entry.top_level.assign(fields.begin() + 3, fields.end());
    }
    if (!text.empty())
        return std::nullopt;
    return entries;
}

void cache_metadata(const fs::path& cache, const std::string& directory, const DirectoryStamp& stamp,
                    const std::vector<MetadataEntry>& entries)
{
    if (wall_ns() - stamp.mtime_ns < k_settled_ns || !writable(directory, entries))
        return;
    std::string text = fmt::format("{}\n{}\n{}\t{}\t{}\n", k_header, directory, stamp.dev, stamp.ino, stamp.mtime_ns);
    for (const MetadataEntry& entry : entries) {
        text += fmt::format("{}\t{}\t{}", entry.metadata, entry.name, entry.version);
        for (const std::string& name : entry.top_level)
            (text += '\t') += name;
        text += '\n';
    }
    try {
        fs::create_directories(cache);
        write_file_atomically(cache_file_of(cache, directory), text);
        prune_cache_files(cache, "distributions-", "", k_files_kept);
    } catch (const std::exception&) {
        // an unwritable cache only costs the next run the reading
    }
}

} // namespace importscope::collect
