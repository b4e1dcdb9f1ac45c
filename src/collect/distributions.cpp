#include "importscope/collect/distributions.hpp"
#include "importscope/util/regular_file.hpp"
#include "importscope/util/unique_fd.hpp"

#include "metadata_cache.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace importscope::collect {

namespace {

namespace fs = std::filesystem;

/// A directory held open for the files read in it: each is opened by its name under the
/// directory's descriptor, so the kernel looks up the directory's path once, not once per file (a
/// site directory's metadata is a few hundred files).
class Directory {
public:
    explicit Directory(const std::string& path) : m_fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {}
    int fd() const { return m_fd.get(); }
    explicit operator bool() const { return static_cast<bool>(m_fd); }

private:
    UniqueFd m_fd;
};

/// The most of a metadata file read: a RECORD is a few megabytes at the most (torch's), and a file
/// of a terabyte put where one was expected (sparse, it costs its maker nothing) is not read to
/// its end.
constexpr std::size_t k_largest_metadata = std::size_t{64} << 20;

/// The text of `file` (relative to `directory`), read until its end, until `enough(text, seen)`
/// says so (`seen`: how much of the text it was shown before, so that it need not look there
/// again) or up to k_largest_metadata; none when it cannot be opened or is no regular file (a FIFO
/// named like metadata is not waited on). POSIX calls, not a stream: a run reads the metadata of
/// every distribution of a site directory, a few hundred files, and a stream's set-up cost more
/// than their reading.
template <typename Enough>
std::optional<std::string> read_text_until(int directory, const std::string& file, Enough&& enough)
{
    const std::optional<RegularFile> opened = open_regular_file(file.c_str(), directory);
    if (!opened)
        return std::nullopt;
    const UniqueFd& fd = opened->fd;
    std::string text;
    std::array<char, 4096> buffer; // NOLINT(cppcoreguidelines-pro-type-member-init): read() fills it
    for (std::size_t seen = 0; text.size() < k_largest_metadata && !enough(std::string_view(text), seen);) {
        seen = text.size();
        const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        text.append(buffer.data(), static_cast<std::size_t>(n));
    }
    return text;
}

/// The whole text of `file` (relative to `directory`); none when it cannot be opened, is no
/// regular file or is larger than k_largest_metadata.
std::optional<std::string> read_text(int directory, const std::string& file)
{
    return read_regular_file(file.c_str(), k_largest_metadata, directory);
}

/// Calls `take(line)` for each line of `text`, as std::getline() cuts them: at each '\n', with
/// no empty line after a final one.
template <typename Take>
void for_each_line(std::string_view text, Take&& take)
{
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        take(text.substr(0, end));
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
}

/// Name and Version from the header of a METADATA or PKG-INFO file (RFC 822 style, up to the
/// first empty line: the description after it, often most of the file, is not read).
std::optional<analysis::Distribution> read_metadata(int directory, const std::string& file)
{
    const std::optional<std::string> text =
        read_text_until(directory, file, [](std::string_view read, std::size_t seen) {
            const std::size_t from = seen < 2 ? 0 : seen - 2; // a blank line may straddle two reads
            return read.starts_with("\n") || read.find("\n\n", from) != std::string_view::npos ||
                   read.find("\n\r\n", from) != std::string_view::npos;
        });
    if (!text)
        return std::nullopt;
    analysis::Distribution found;
    // The header's lines until its end, or until both are found (they come first, as
    // Metadata-Version, Name, Version).
    for (std::string_view rest = *text; !rest.empty() && (found.name.empty() || found.version.empty());) {
        const std::size_t end = rest.find('\n');
        std::string_view line = rest.substr(0, end);
        rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty())
            break;
        if (line.starts_with("Name: ") && found.name.empty())
            found.name = line.substr(6);
        else if (line.starts_with("Version: ") && found.version.empty())
            found.version = line.substr(9);
    }
    if (found.name.empty())
        return std::nullopt;
    return found;
}

/// The names of the `*.dist-info` and `*.egg-info` directories in `directory`, sorted.
std::vector<std::string> metadata_directories_in(const std::string& directory)
{
    // readdir() itself: the directories of a run's top-level modules include the standard
    // library's, of hundreds of entries and no metadata, and a path object per entry cost more
    // than the rest of the look.
    std::vector<std::string> names;
    if (DIR* listing = ::opendir(directory.c_str())) {
        while (const dirent* entry = ::readdir(listing)) {
            const std::string_view name = entry->d_name;
            const std::size_t dot = name.rfind('.');
            if (dot == 0 || dot == std::string_view::npos) // fs::path::extension(): none for ".x"
                continue;
            if (const std::string_view extension = name.substr(dot); extension == ".dist-info" || extension == ".egg-info")
                names.emplace_back(name);
        }
        ::closedir(listing);
    }
    std::sort(names.begin(), names.end());
    return names;
}

/// `name` in `directory`, as fs::path's operator/ joins them.
std::string joined(const std::string& directory, const std::string& name)
{
    return directory.empty() || directory.ends_with('/') ? directory + name : directory + '/' + name;
}

/// A metadata directory's header file: METADATA, or an egg's PKG-INFO.
std::string metadata_file(const std::string& metadata)
{
    return metadata + (metadata.ends_with(".dist-info") ? "/METADATA" : "/PKG-INFO");
}

/// The top-level name a path of RECORD or of an importable directory gives: "pkg/x.py" -> "pkg",
/// "mod.py" -> "mod", "_ext.cpython-311-x86_64-linux-gnu.so" -> "_ext".
std::string_view top_level_of(std::string_view path)
{
    if (const std::size_t slash = path.find('/'); slash != std::string_view::npos)
        return path.substr(0, slash);
    return path.substr(0, path.find('.'));
}

std::vector<std::string> lines_of(std::string_view text)
{
    std::vector<std::string> lines;
    for_each_line(text, [&](std::string_view line) {
        if (!line.empty())
            lines.emplace_back(line);
    });
    return lines;
}

/// The top-level names a distribution's metadata directory lists, less the namespace packages it
/// declares (namespace_packages.txt), which several distributions share by design. `metadata` is
/// the name of the metadata directory in `directory`.
std::vector<std::string> top_level_names(int directory, const std::string& metadata)
{
    std::vector<std::string> names;
    if (const std::optional<std::string> top_level = read_text(directory, metadata + "/top_level.txt")) {
        const std::vector<std::string> namespaces =
            lines_of(read_text(directory, metadata + "/namespace_packages.txt").value_or(""));
        for (const std::string& name : lines_of(*top_level))
            if (std::find(namespaces.begin(), namespaces.end(), name) == namespaces.end())
                names.push_back(name);
        return names;
    }
    const std::string record = read_text(directory, metadata + "/RECORD").value_or("");
    // A package's files come one after another in a RECORD (a megabyte for the largest): a line
    // of the name last taken adds nothing, and is passed over before any other test.
    std::string_view taken;
    for_each_line(record, [&](std::string_view line) {
        const std::string_view path = line.substr(0, line.find(','));
        const std::string_view name = top_level_of(path);
        if (name == taken || path.empty() || path.find(".dist-info/") != std::string_view::npos ||
            path.starts_with(".."))
            return;
        if (name.empty() || name == "__pycache__")
            return;
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.emplace_back(name);
        taken = name;
    });
    return names;
}

/// Whether the metadata's RECORD lists `file` (a path relative to the directory, "pkg/__init__.py");
/// true without a RECORD (egg-info), where top_level.txt is all there is to go by.
bool record_lists(const std::string& metadata, const std::string& file)
{
    const std::optional<std::string> record = read_text(AT_FDCWD, metadata + "/RECORD");
    if (!record)
        return true;
    // A line that begins with the file and a comma; the search stops at the first.
    const std::string entry = file + ',';
    return record->starts_with(entry) || record->find('\n' + entry) != std::string::npos;
}

/// The metadata directories of `directory` (held open as `opened`) that name a distribution, in
/// the order of their names.
std::vector<MetadataEntry> read_metadata_entries(const Directory& opened, const std::string& directory)
{
    std::vector<MetadataEntry> entries;
    for (const std::string& metadata : metadata_directories_in(directory))
        if (auto distribution = read_metadata(opened.fd(), metadata_file(metadata)))
            entries.push_back({metadata, std::move(distribution->name), std::move(distribution->version),
                               top_level_names(opened.fd(), metadata)});
    return entries;
}

} // namespace

DistributionIndex::DistributionIndex(std::optional<std::filesystem::path> cache) : m_cache(std::move(cache)) {}

const DistributionIndex::TopLevelNames& DistributionIndex::read_directory(const std::string& directory)
{
    auto [it, inserted] = m_directories.try_emplace(directory);
    if (!inserted)
        return it->second;
    const Directory opened(directory);
    if (!opened)
        return it->second;
    const std::optional<DirectoryStamp> stamp = m_cache ? stamp_of(opened.fd()) : std::nullopt;
    std::optional<std::vector<MetadataEntry>> entries =
        stamp ? cached_metadata(*m_cache, directory, *stamp) : std::nullopt;
    if (!entries) {
        entries = read_metadata_entries(opened, directory);
        if (stamp) // one without metadata too: the standard library's directory is a long listing
            cache_metadata(*m_cache, directory, *stamp, *entries);
    }
    for (const MetadataEntry& entry : *entries) {
        for (const std::string& name : entry.top_level) {
            std::vector<Claim>& claims = it->second[name];
            if (std::none_of(claims.begin(), claims.end(),
                             [&](const Claim& c) { return c.distribution.name == entry.name; }))
                claims.push_back({{entry.name, entry.version}, joined(directory, entry.metadata)});
        }
    }
    return it->second;
}

namespace {

std::string normalized(std::string name)
{
    for (char& c : name)
        c = c == '-' || c == '.' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name;
}

} // namespace

std::map<std::string, std::optional<std::string>> installed_versions(const std::vector<std::string>& names,
                                                                    const std::vector<std::string>& path)
{
    std::map<std::string, std::optional<std::string>> versions;
    std::map<std::string, std::vector<std::string>> wanted; // normalized -> as asked ("deep_gemm", "deep-gemm")
    for (const std::string& name : names) {
        versions[name] = std::nullopt;
        wanted[normalized(name)].push_back(name);
    }
    for (const std::string& directory : path) {
        const Directory opened(directory);
        for (const std::string& metadata : opened ? metadata_directories_in(directory) : std::vector<std::string>{}) {
            // "<name>-<version>.dist-info", "<name>.egg-info": only a name asked for is read.
            const std::string stem = fs::path(metadata).stem().string();
            const auto asked = wanted.find(normalized(stem.substr(0, stem.find('-'))));
            if (asked == wanted.end() || versions[asked->second.front()])
                continue;
            if (const auto found = read_metadata(opened.fd(), metadata_file(metadata)))
                for (const std::string& name : asked->second)
                    versions[name] = found->version;
        }
    }
    return versions;
}

namespace {

/// A path cut at its last '/': what comes before (as fs::path::parent_path() has it: "/" for a
/// file at the root, "" for a name alone) and the name after it.
std::pair<std::string_view, std::string_view> parent_and_name(std::string_view path)
{
    const std::size_t slash = path.rfind('/');
    if (slash == std::string_view::npos)
        return {{}, path};
    std::string_view parent = path.substr(0, slash);
    while (parent.size() > 1 && parent.back() == '/') // "a//b" -> "a"
        parent.remove_suffix(1);
    return {parent.empty() ? path.substr(0, 1) : parent, path.substr(slash + 1)};
}

} // namespace

std::vector<analysis::Distribution> DistributionIndex::owners_of(const std::string& origin)
{
    // Views of the origin, not fs::path: the look-up comes once per top-level name a run imports.
    const auto [directory, file] = parent_and_name(origin);
    const bool package = file.starts_with("__init__.");
    const auto [parent, importable] = package ? parent_and_name(directory) : std::pair{directory, file};
    const std::string name(package ? importable : top_level_of(importable));
    const TopLevelNames& names = read_directory(std::string(parent));
    const auto it = names.find(name);
    if (it == names.end())
        return {};
    // Two claims of one name: those whose RECORD lists another file of that name (pytest's py.py
    // beside the py package) do not provide this one.
    const std::string listed = package ? name + "/" + std::string(file) : std::string(file);
    std::vector<analysis::Distribution> owners;
    for (const Claim& claim : it->second)
        if (it->second.size() == 1 || record_lists(claim.metadata, listed))
            owners.push_back(claim.distribution);
    return owners;
}

} // namespace importscope::collect
