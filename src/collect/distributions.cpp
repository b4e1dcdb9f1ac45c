#include "importscope/collect/distributions.hpp"

#include <algorithm>
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

/// The top-level name a path of RECORD or of an importable directory gives: "pkg/x.py" -> "pkg",
/// "mod.py" -> "mod", "_ext.cpython-311-x86_64-linux-gnu.so" -> "_ext".
std::string top_level_of(std::string_view path)
{
    if (const std::size_t slash = path.find('/'); slash != std::string_view::npos)
        return std::string(path.substr(0, slash));
    return std::string(path.substr(0, path.find('.')));
}

/// The top-level names a distribution's metadata directory lists.
std::vector<std::string> top_level_names(const fs::path& metadata)
{
    std::vector<std::string> names;
    if (std::ifstream in(metadata / "top_level.txt"); in) {
        for (std::string line; std::getline(in, line);)
            if (!line.empty())
                names.push_back(line);
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

} // namespace

const DistributionIndex::TopLevelNames& DistributionIndex::read_directory(const std::string& directory)
{
    auto [it, inserted] = m_directories.try_emplace(directory);
    if (!inserted)
        return it->second;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
        const fs::path& path = entry.path();
        const std::string extension = path.extension().string();
        if (extension != ".dist-info" && extension != ".egg-info")
            continue;
        const auto distribution = read_metadata(path / (extension == ".dist-info" ? "METADATA" : "PKG-INFO"));
        if (!distribution)
            continue;
        for (const std::string& name : top_level_names(path))
            it->second.try_emplace(name, *distribution);
    }
    return it->second;
}

std::optional<analysis::Distribution> DistributionIndex::owner_of(const std::string& origin)
{
    const fs::path path(origin);
    const bool package = path.filename().string().starts_with("__init__.");
    const fs::path importable = package ? path.parent_path() : path;
    const std::string name = package ? importable.filename().string() : top_level_of(importable.filename().string());
    const TopLevelNames& names = read_directory(importable.parent_path().string());
    if (const auto it = names.find(name); it != names.end())
        return it->second;
    return std::nullopt;
}

} // namespace importscope::collect
