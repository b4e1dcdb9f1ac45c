#include "importscope/collect/distributions.hpp"
#include "importscope/util/unique_fd.hpp"

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

/// The text of `file`, read until its end or until `enough(text)` says so; none when it cannot be
/// opened. POSIX calls, not a stream: a run reads the metadata of every distribution of a site
/// directory, a few hundred files, and a stream's set-up cost more than their reading.
template <typename Enough>
std::optional<std::string> read_text_until(const std::string& file, Enough&& enough)
{
    const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd)
        return std::nullopt;
    std::string text;
    std::array<char, 4096> buffer; // NOLINT(cppcoreguidelines-pro-type-member-init): read() fills it
    while (!enough(text)) {
        const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        text.append(buffer.data(), static_cast<std::size_t>(n));
    }
    return text;
}

std::optional<std::string> read_text(const std::string& file)
{
    return read_text_until(file, [](const std::string&) { return false; });
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
std::optional<analysis::Distribution> read_metadata(const std::string& file)
{
    const std::optional<std::string> text = read_text_until(file, [](const std::string& read) {
        return read.starts_with("\n") || read.find("\n\n") != std::string::npos ||
               read.find("\n\r\n") != std::string::npos;
    });
    if (!text)
        return std::nullopt;
    analysis::Distribution found;
    bool header = true;
    for_each_line(*text, [&](std::string_view line) {
        if (!header || line.empty() || line == "\r") {
            header = false;
            return;
        }
        if (line.back() == '\r')
            line.remove_suffix(1);
        if (line.starts_with("Name: ") && found.name.empty())
            found.name = line.substr(6);
        else if (line.starts_with("Version: ") && found.version.empty())
            found.version = line.substr(9);
    });
    if (found.name.empty())
        return std::nullopt;
    return found;
}

/// The `*.dist-info` and `*.egg-info` directories of `directory`, in order of their names.
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
    // The paths, as fs::path's operator/ joins them.
    std::string prefix = directory;
    if (!prefix.empty() && !prefix.ends_with('/'))
        prefix += '/';
    for (std::string& name : names)
        name.insert(0, prefix);
    return names;
}

/// A metadata directory's header file: METADATA, or an egg's PKG-INFO.
std::string metadata_file(const std::string& metadata)
{
    return metadata + (metadata.ends_with(".dist-info") ? "/METADATA" : "/PKG-INFO");
}

/// The top-level name a path of RECORD or of an importable directory gives: "pkg/x.py" -> "pkg",
/// "mod.py" -> "mod", "_ext.cpython-311-x86_64-linux-gnu.so" -> "_ext".
std::string top_level_of(std::string_view path)
{
    if (const std::size_t slash = path.find('/'); slash != std::string_view::npos)
        return std::string(path.substr(0, slash));
    return std::string(path.substr(0, path.find('.')));
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
/// declares (namespace_packages.txt), which several distributions share by design.
std::vector<std::string> top_level_names(const std::string& metadata)
{
    std::vector<std::string> names;
    if (const std::optional<std::string> top_level = read_text(metadata + "/top_level.txt")) {
        const std::vector<std::string> namespaces = lines_of(read_text(metadata + "/namespace_packages.txt").value_or(""));
        for (const std::string& name : lines_of(*top_level))
            if (std::find(namespaces.begin(), namespaces.end(), name) == namespaces.end())
                names.push_back(name);
        return names;
    }
    for_each_line(read_text(metadata + "/RECORD").value_or(""), [&](std::string_view line) {
        const std::string_view path = line.substr(0, line.find(','));
        if (path.empty() || path.find(".dist-info/") != std::string_view::npos || path.starts_with(".."))
            return;
        if (const std::string name = top_level_of(path); !name.empty() && name != "__pycache__" &&
                                                          std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    });
    return names;
}

/// Whether the metadata's RECORD lists `file` (a path relative to the directory, "pkg/__init__.py");
/// true without a RECORD (egg-info), where top_level.txt is all there is to go by.
bool record_lists(const std::string& metadata, const std::string& file)
{
    const std::optional<std::string> record = read_text(metadata + "/RECORD");
    if (!record)
        return true;
    // A line that begins with the file and a comma; the search stops at the first.
    const std::string entry = file + ',';
    return record->starts_with(entry) || record->find('\n' + entry) != std::string::npos;
}

} // namespace

const DistributionIndex::TopLevelNames& DistributionIndex::read_directory(const std::string& directory)
{
    auto [it, inserted] = m_directories.try_emplace(directory);
    if (!inserted)
        return it->second;
    for (const std::string& path : metadata_directories_in(directory)) {
        const auto distribution = read_metadata(metadata_file(path));
        if (!distribution)
            continue;
        for (const std::string& name : top_level_names(path)) {
            std::vector<Claim>& claims = it->second[name];
            if (std::none_of(claims.begin(), claims.end(),
                             [&](const Claim& c) { return c.distribution.name == distribution->name; }))
                claims.push_back({*distribution, path});
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
        for (const std::string& metadata : metadata_directories_in(directory)) {
            // "<name>-<version>.dist-info", "<name>.egg-info": only a name asked for is read.
            const std::string stem = fs::path(metadata).stem().string();
            const auto asked = wanted.find(normalized(stem.substr(0, stem.find('-'))));
            if (asked == wanted.end() || versions[asked->second.front()])
                continue;
            if (const auto found = read_metadata(metadata_file(metadata)))
                for (const std::string& name : asked->second)
                    versions[name] = found->version;
        }
    }
    return versions;
}

std::vector<analysis::Distribution> DistributionIndex::owners_of(const std::string& origin)
{
    const fs::path path(origin);
    const bool package = path.filename().string().starts_with("__init__.");
    const fs::path importable = package ? path.parent_path() : path;
    const std::string name = package ? importable.filename().string() : top_level_of(importable.filename().string());
    const TopLevelNames& names = read_directory(importable.parent_path().string());
    const auto it = names.find(name);
    if (it == names.end())
        return {};
    // Two claims of one name: those whose RECORD lists another file of that name (pytest's py.py
    // beside the py package) do not provide this one.
    const std::string file = package ? name + "/" + path.filename().string() : path.filename().string();
    std::vector<analysis::Distribution> owners;
    for (const Claim& claim : it->second)
        if (it->second.size() == 1 || record_lists(claim.metadata, file))
            owners.push_back(claim.distribution);
    return owners;
}

} // namespace importscope::collect
