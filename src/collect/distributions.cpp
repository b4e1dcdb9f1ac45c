#include "importscope/collect/distributions.hpp"

#include <algorithm>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace importscope::collect {

namespace {

namespace fs = std::filesystem;

/// Name and Version from the header of a METADATA or PKG-INFO file (RFC 822 style, up to the
/// first empty line).
std::optional<analysis::Distribution> read_metadata(const fs::path& file)
{
    std::ifstream in(file);
    if (!in)
        return std::nullopt;
    analysis::Distribution found;
    for (std::string line; std::getline(in, line) && !line.empty() && line != "\r";) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.starts_with("Name: ") && found.name.empty())
            found.name = line.substr(6);
        else if (line.starts_with("Version: ") && found.version.empty())
            found.version = line.substr(9);
    }
    if (found.name.empty())
        return std::nullopt;
    return found;
}

/// The `*.dist-info` and `*.egg-info` directories of `directory`, in order of their names.
std::vector<fs::path> metadata_directories_in(const std::string& directory)
{
    // readdir() itself: the directories of a run's top-level modules include the standard
    // library's, of hundreds of entries and no metadata, and a path object per entry cost more
    // than the rest of the look.
    std::vector<fs::path> found;
    if (DIR* listing = ::opendir(directory.c_str())) {
        while (const dirent* entry = ::readdir(listing)) {
            const std::string_view name = entry->d_name;
            const std::size_t dot = name.rfind('.');
            if (dot == 0 || dot == std::string_view::npos) // fs::path::extension(): none for ".x"
                continue;
            if (const std::string_view extension = name.substr(dot); extension == ".dist-info" || extension == ".egg-info")
                found.push_back(fs::path(directory) / name);
        }
        ::closedir(listing);
    }
    std::sort(found.begin(), found.end());
    return found;
}

/// A metadata directory's header file: METADATA, or an egg's PKG-INFO.
fs::path metadata_file(const fs::path& metadata)
{
    return metadata / (metadata.extension() == ".dist-info" ? "METADATA" : "PKG-INFO");
}

/// The top-level name a path of RECORD or of an importable directory gives: "pkg/x.py" -> "pkg",
/// "mod.py" -> "mod", "_ext.cpython-311-x86_64-linux-gnu.so" -> "_ext".
std::string top_level_of(std::string_view path)
{
    if (const std::size_t slash = path.find('/'); slash != std::string_view::npos)
        return std::string(path.substr(0, slash));
    return std::string(path.substr(0, path.find('.')));
}

std::vector<std::string> lines_of(const fs::path& file)
{
    std::vector<std::string> lines;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(line);
    return lines;
}

/// The top-level names a distribution's metadata directory lists, less the namespace packages it
/// declares (namespace_packages.txt), which several distributions share by design.
std::vector<std::string> top_level_names(const fs::path& metadata)
{
    std::vector<std::string> names;
    if (std::ifstream in(metadata / "top_level.txt"); in) {
        const std::vector<std::string> namespaces = lines_of(metadata / "namespace_packages.txt");
        for (const std::string& name : lines_of(metadata / "top_level.txt"))
            if (std::find(namespaces.begin(), namespaces.end(), name) == namespaces.end())
                names.push_back(name);
        return names;
    }
    std::ifstream record(metadata / "RECORD");
    for (std::string line; std::getline(record, line);) {
        const std::string path = line.substr(0, line.find(','));
        if (path.empty() || path.find(".dist-info/") != std::string::npos || path.starts_with(".."))
            continue;
        if (const std::string name = top_level_of(path); !name.empty() && name != "__pycache__" &&
                                                          std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }
    return names;
}

/// Whether the metadata's RECORD lists `file` (a path relative to the directory, "pkg/__init__.py");
/// true without a RECORD (egg-info), where top_level.txt is all there is to go by.
bool record_lists(const fs::path& metadata, const std::string& file)
{
    std::ifstream record(metadata / "RECORD");
    if (!record)
        return true;
    for (std::string line; std::getline(record, line);)
        if (line.starts_with(file) && line.size() > file.size() && line[file.size()] == ',')
            return true;
    return false;
}

} // namespace

const DistributionIndex::TopLevelNames& DistributionIndex::read_directory(const std::string& directory)
{
    auto [it, inserted] = m_directories.try_emplace(directory);
    if (!inserted)
        return it->second;
    for (const fs::path& path : metadata_directories_in(directory)) {
        const auto distribution = read_metadata(metadata_file(path));
        if (!distribution)
            continue;
        for (const std::string& name : top_level_names(path)) {
            std::vector<Claim>& claims = it->second[name];
            if (std::none_of(claims.begin(), claims.end(),
                             [&](const Claim& c) { return c.distribution.name == distribution->name; }))
                claims.push_back({*distribution, path.string()});
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
        for (const fs::path& metadata : metadata_directories_in(directory)) {
            // "<name>-<version>.dist-info", "<name>.egg-info": only a name asked for is read.
            const std::string stem = metadata.stem().string();
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
